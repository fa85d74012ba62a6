/*
 * What the files of session/ share and nothing else sees: the live address
 * spaces, and how a (module, offset) becomes a function.
 */
#ifndef PROFIL_SESSION_INTERNAL_H
#define PROFIL_SESSION_INTERNAL_H

#include "session/session.h"

struct unwinder;

/* One executable mapping of a live process. */
struct mapping {
    uint64_t start;
    uint64_t end;
    uint64_t pgoff;
    uint32_t module;
};

/* The executable mappings of one live process, sorted by start. */
struct addrspace {
    uint32_t pid;
    struct mapping *maps;
    size_t nmaps;
    size_t alloc;
    struct unwinder *unwinder; /* made on the first stack to unwind here */
    bool unwind_dirty;         /* the mappings changed since the unwinder saw them */
};

/* The address space of PID, made on first sight when CREATE. */
struct addrspace *session_space(struct session *s, uint32_t pid, bool create);

/* The mapping holding PC, or NULL. */
const struct mapping *addrspace_find(const struct addrspace *as, uint64_t pc);

/* Where user PC of AS lies: its module and file offset, or for anonymous
 * code (or no mapping) [anon] and the address itself; true in that case. */
bool session_user_place(struct session *s, const struct addrspace *as, uint64_t pc,
                        uint32_t *module, uint64_t *offset);

void session_on_mmap(struct session *s, const struct event *ev);
void session_on_fork(struct session *s, const struct event *ev);
/* PID's mappings are gone (an exec), and with REMOVE the space itself (an exit). */
void session_forget_space(struct session *s, uint32_t pid, bool remove);
void session_free_spaces(struct session *s);

/* Which of PROFIL's counters a sample at (MODULE, OFFSET) counts in, and
 * for the program area its bucket. */
enum counter_kind { COUNT_PROGRAM, COUNT_DOS, COUNT_IO, COUNT_HIGH };
enum counter_kind session_counter_of(const struct session *s, uint32_t module, uint64_t offset,
                                     size_t *bucket);
/* Where a sample outside the program area counts, by its module's kind. */
enum counter_kind session_module_counter(const struct session *s, uint32_t module);
/* Add N to C's counter K and to its total, saturating. */
void counters_add(struct counters *c, enum counter_kind k, uint64_t n);

/* Make MODULE's code the program area (0: the program's own), its buckets
 * empty: false when it has no code segment or too much code, and nothing
 * changed. */
bool session_set_program_area(struct session *s, uint32_t module);

/* The hit of id ID, or NULL. */
struct hit *session_hit_by_id(struct session *s, uint32_t id);
/* The id of the hit at (MODULE, OFFSET), or UINT32_MAX when there is none. */
uint32_t session_hit_id(const struct session *s, uint32_t module, uint64_t offset);
/* The views' counts made again (threads.c, window.c): all set to 0 (lost and
 * preempted too), then, once the counts are in, the functions' Self from them. */
void session_view_zero(struct session *s);
void session_view_finish(struct session *s);

/* Mix a (module, offset) key so that nearby offsets spread over a table. */
uint64_t hit_hash(uint32_t module, uint64_t offset);

/* The entry of (TID, KEY) in T, made when missing; NULL for tid 0 and,
 * when missing, past LIMIT entries (a file could not hold more). */
struct tid_count *tid_table_get(struct tid_table *t, uint32_t tid, uint32_t key, size_t limit);
/* The count of (TID, KEY): the whole run's, or since the latest clear when !RUN. */
uint64_t tid_table_count(const struct tid_table *t, uint32_t tid, uint32_t key, bool run);
/* The entries with a count in the whole run. */
size_t tid_table_used(const struct tid_table *t);
void tid_table_clear(struct tid_table *t); /* a clear: the counts move to before_clear */
void tid_table_zero(struct tid_table *t);  /* every count 0, the entries kept */
void tid_table_free(struct tid_table *t);  /* empty, as new */

/* The function of the code at (MODULE, OFFSET): an index into s->funcs, or
 * -1 for anonymous code no JIT has named yet (try again later). */
int64_t session_resolve(struct session *s, uint32_t module, uint64_t offset);

/* session_resolve of N (module, offset) KEYS at once, into OUT: the
 * functions that must be made up for PCs no symbol names are made in one
 * sorted pass per module, in O(n log n), not one insertion each. */
void session_resolve_many(struct session *s, const struct hit_key *keys, size_t n, int64_t *out);

/* Read a module's image the first time one of its PCs needs a name or a line. */
void session_load_module(struct module *m);

/* The function entry of RAW, inlined in MODULE (index INL of lines.inl_funcs):
 * the module's own function of that name when it has one. */
int64_t session_inline_func(struct session *s, uint32_t module, const char *raw, uint32_t inl);

/* The deepest a stack grows with the functions inlined at its frames: past
 * it, a frame comes without them.  A deep recursion through long inline
 * chains (a .PRF's 4096 frames of 64 levels each) would otherwise make
 * stacks too deep for the reports that print them as nested JSON. */
#define STACKS_MAX_INLINE_DEPTH 4096

/* Intern the stack (PARENT, frame), the frame followed by the functions
 * inlined at its PC (unless --no-inline): the id of the innermost. */
uint32_t session_stack_intern(struct session *s, uint32_t parent, uint32_t module, uint64_t offset);
/* One node as it is, LEVEL included, without looking up the functions
 * inlined at its PC (a file's stacks already hold them). */
uint32_t session_stack_node(struct session *s, uint32_t parent, uint32_t module, uint64_t offset,
                            uint32_t level);

/* Note in F's list (hits or stacks) that ID grew by COUNT. */
void frame_note(struct frame_hit **list, uint32_t *n, uint32_t *alloc, bool *compact, uint32_t id,
                uint64_t count);
/* Sort and merge such a list: one entry per id. */
void frame_list_compact(struct frame_hit **list, uint32_t *n, uint32_t *alloc, bool *compact);
/* What one event carries through its ingest: made by session_ingest and
 * passed down to what counts the event, never kept in the session, so that
 * what counts says what it depends on.  A file's reader, which counts
 * outside any event, passes NULL: no frame, and the views see it all. */
struct ingest {
    struct frame *frame;   /* the timeline's frame the event lands in, or NULL */
    bool view;             /* the views show the event's thread (session/threads.h) */
    uint32_t hit;          /* the hit id the event was counted at */
    struct counters delta; /* what the event adds to the whole run */
};

/* Count COUNT samples at (MODULE, OFFSET) as IN's event (NULL: a reader's).
 * Returns the hit's id. */
uint32_t ingest_hit(struct session *s, struct ingest *in, uint32_t module, uint64_t offset,
                    uint64_t count);
/* Note in IN's frame that thread TID's KEY (a hit id, or FRAME_BLOCKED; a
 * stack id when STACK) grew by COUNT.  Nothing without a frame. */
void frame_tid_note(struct session *s, struct ingest *in, bool stack, uint32_t tid, uint32_t key,
                    uint64_t count);

/* The stacks part of session_ingest: a live sample's stack, unwound and
 * counted (its leaf already counted as a hit), and a replayed one. */
void session_count_stack(struct session *s, struct ingest *in, const struct event *ev);
void session_stacks_clear(struct session *s);
void session_stacks_reset(struct session *s);
void session_stacks_free(struct session *s);

/* Count COUNT samples of thread TID with stack ID (the reader: the whole
 * run's, into count). */
void session_thread_stack(struct session *s, uint32_t tid, uint32_t id, uint64_t count);

/* The bins of session.unwind_hist. */
#define UNWIND_HIST_BINS 2001

/* The Pth percentile of the live unwinding times, in microseconds. */
double session_unwind_percentile(const struct session *s, double p);

#endif
