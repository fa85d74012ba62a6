/*
 * What the views show (view.c): the threads a filter keeps, the frames a
 * time window holds, the program area, and the views' counts made again
 * from the recorded run when one of them changes.  Recording never reads
 * it but to know whether a sample counts in the views now.
 */
#ifndef PROFIL_SESSION_VIEW_H
#define PROFIL_SESSION_VIEW_H

#include "session/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a filter keeps: these threads. */
struct session_filter {
    uint32_t *tids; /* sorted */
    size_t ntids;
    char *label; /* owned: what the header says, "thread 1234 (worker)" */
};

/* Whether the filter keeps TID: there is none, or it keeps TID. */
bool threads_shown(const struct session *s, uint32_t tid);
/* Whether a sample of TID coming in now counts in the views: the filter
 * keeps it and no time window holds the views still. */
bool threads_viewed(const struct session *s, uint32_t tid);

/* Show on-CPU time only (ON), leaving out the wall clock's waits (blocked
 * ticks and the stacks taken with them), or all of it; the views' counts
 * are made again, under the filter and window as they are.  False when the
 * session cannot: a 1983 file. */
bool session_oncpu_set(struct session *s, bool on);

/* Make the views show only the threads of F (owned by the session from
 * now), or every thread (NULL): the counters, buckets, hits, functions and
 * stacks are recomputed from the per-thread counts.  Lost and preempted
 * ticks stay the whole program's: they have no thread.  A time window stays,
 * counting F's threads only, where the frames say which thread took their
 * samples (a live session); else it ends, as it does with F NULL. */
void session_filter_set(struct session *s, struct session_filter *f);
void session_filter_free(struct session_filter *f);

/* A filter of the threads whose tid is TID, whose process is PID, or whose
 * name is COMM (any given: every one must match); NULL and *cause when no
 * thread matches. */
struct session_filter *session_filter_make(const struct session *s, const uint32_t *tid,
                                           const uint32_t *pid, const char *comm, char **cause);

/* The time the threads' samples stand for, in seconds: on a CPU and
 * blocked, summed over threads; *NTHREADS the threads with samples. */
void threads_times(const struct session *s, double *on_cpu_s, double *blocked_s, size_t *nthreads);

/* Make the views count the samples of frames [FROM, TO) of the timeline
 * only (a time window), or, with TO <= FROM, all of them again.  Live, the
 * window stays put while the run grows, and a thread filter stays with it
 * (the frames say which thread took their samples); a file's frames do not,
 * and a window there ends the filter. */
void session_window_set(struct session *s, size_t from, size_t to);

/* The samples frames [FROM, TO) hold of the threads the views show (every
 * thread's when the frames do not say). */
uint64_t session_frames_samples(const struct session *s, size_t from, size_t to);

/* What ran when (the Timeline's lanes): the functions with the most own
 * samples in frames [FROM, TO) of the threads shown, up to MAX (at most 64)
 * of them, most first, as indexes into s->funcs in FUNCS; COUNTS[k * (TO -
 * FROM) + i] their samples in frame FROM + i (the caller gives room for MAX
 * * (TO - FROM)).  Returns how many functions. */
size_t session_frame_funcs(struct session *s, size_t from, size_t to, size_t max, size_t *funcs,
                           uint64_t *counts);

/* --range SPEC (MIPS monitor's lowpc and highpc): the program area is
 * LOW-HIGH (the executable's own addresses, as the histogram shows them)
 * or the code of the program's function of that name, within its code;
 * samples in the program outside it count as high.  0, or -1 and *cause. */
int session_set_range(struct session *s, const char *spec, char **cause);

/* Make MODULE's code the program area (0: the program's own), its buckets
 * empty: false when it has no code segment or too much code, and nothing
 * changed. */
bool session_set_program_area(struct session *s, uint32_t module);
/* The hit of id ID, or NULL. */
struct hit *session_hit_by_id(struct session *s, uint32_t id);
/* The views' counts made again (a filter, a window): all set to 0 (lost and
 * preempted too), then, once the counts are in, the functions' Self from them. */
void session_view_zero(struct session *s);
void session_view_finish(struct session *s);

#endif
