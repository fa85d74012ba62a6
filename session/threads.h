/*
 * Who ran: the processes and threads of a session, and what each was
 * sampled doing (the filter that makes every view show some of them only
 * is the view's: session/view.h).
 *
 * Every sample lands in the thread that took it: its ticks on a CPU and
 * blocked, and its PC as a (thread, hit id) count.  The views' counts (the
 * counters, the buckets, the hits, the stacks) are the whole program's, or,
 * under a filter, recomputed from these per-thread counts for the threads
 * it keeps; the timeline and the saved file always hold the whole run.
 */
#ifndef PROFIL_SESSION_THREADS_H
#define PROFIL_SESSION_THREADS_H

#include "session/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_info {
    uint32_t pid;
    uint32_t ppid; /* 0: not known (the first process, or an attached one) */
    char *exe;     /* owned: the executable it runs, or NULL while not known */
    char **args;   /* owned: its command line, argv[0] included */
    size_t nargs;
    uint64_t start_ns; /* CLOCK_MONOTONIC: when it was created or first seen */
    uint64_t end_ns;   /* when it ended, while ended */
    bool ended;
    bool exit_known; /* wstatus is what it ended with */
    int wstatus;
    bool want_exe;       /* it exec'd and its executable is its next mapping */
    uint32_t exe_module; /* the module of exe, or UINT32_MAX */
    uint64_t samples;    /* scratch for threads_sum */
    long first_thread;   /* its threads: an index into session.threads, then next_in_proc; -1 */
};

struct thread_info {
    uint32_t tid;
    uint32_t pid;
    char *name;        /* owned: comm, or NULL while not known */
    uint64_t start_ns; /* created or first seen */
    uint64_t end_ns;   /* when it ended, while ended */
    bool ended;
    uint64_t on_cpu;  /* ticks on a CPU (user or kernel), since the latest clear */
    uint64_t blocked; /* ticks blocked (wall clock), since the latest clear */
    uint64_t on_cpu_before_clear;
    uint64_t blocked_before_clear;
    uint64_t last_ns;  /* its latest sample */
    bool last_blocked; /* ... was a blocked one */
    long next_in_proc; /* the next thread of its process, or -1 */
};

/* An id's slot in the session's pid and tid indexes: index + 1, 0 empty. */
struct id_slot {
    uint32_t key;
    uint32_t index1;
};

/* A new process PID, first seen at TIME (a reused pid's new process): NULL
 * past LIMIT_PROCS processes. */
struct proc_info *threads_add_proc(struct session *s, uint32_t pid, uint64_t time);

/* The thread TID of process PID, made on first sight at TIME; NULL for tid
 * 0 and past LIMIT_THREADS threads. */
struct thread_info *threads_get(struct session *s, uint32_t pid, uint32_t tid, uint64_t time);
/* The thread TID, or NULL. */
struct thread_info *threads_find(const struct session *s, uint32_t tid);
/* The process PID (the latest of that pid), made on first sight at TIME
 * when CREATE; NULL when not found, and past LIMIT_PROCS processes. */
struct proc_info *threads_proc(struct session *s, uint32_t pid, uint64_t time, bool create);

/* Process and thread events (fork, exec, exit, thread start and end, comm). */
void threads_on_event(struct session *s, const struct event *ev);
/* An executable mapping of PID was made: its executable, after an exec. */
void threads_on_mmap(struct session *s, uint32_t pid, uint32_t module);
/* The first process is the program: its path and arguments, as asked. */
void threads_first(struct session *s, uint32_t pid, uint64_t time);

/* Note COUNT ticks of thread T: on a CPU at hit ID, or blocked (ID UINT32_MAX). */
void threads_count(struct session *s, struct thread_info *t, uint32_t id, bool blocked,
                   uint64_t count);
/* The count of TID at hit ID, the whole run's (since the latest clear when !RUN). */
uint64_t threads_hit_count(const struct session *s, uint32_t tid, uint32_t id, bool run);

void threads_clear(struct session *s); /* a clear ('c'): the counts move to before_clear */
void threads_free(struct session *s);
void threads_reset(struct session *s); /* no process or thread: as a new session */

/* The program's own code for thread T: whether (MODULE) is its process's
 * executable (or the program's, for a process whose executable is unknown). */
bool threads_own_program(const struct session *s, const struct thread_info *t, uint32_t module);

/* Per thread, the whole run (since the latest clear when !RUN): samples,
 * on_cpu, blocked, and own program ticks. */
struct thread_sums {
    uint64_t samples, on_cpu, blocked, program;
};
void threads_sum(const struct session *s, bool run, struct thread_sums *out /* nthreads */);

/* The threads of process P (indices into session.threads, in the order they
 * were seen) in *OUT, which the caller frees; returns how many. */
size_t threads_of_proc(const struct session *s, const struct proc_info *p, size_t **out);

/* How process P ended: "exit 0", "SIGSEGV", "running", "ended, status unknown". */
const char *threads_proc_end(const struct proc_info *p, char *buf, size_t size);

/* TICKS of thread T as a percentage of its life within the session. */
double threads_share_of_life(const struct session *s, const struct thread_info *t, uint64_t ticks);

#endif
