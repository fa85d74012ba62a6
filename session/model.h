/*
 * The session's model: everything profil knows about one run, as data
 * (struct session and its tables), and what model.c does to the tables.
 * What makes, feeds and frees a whole session is in session.h, which the
 * rest of profil includes; the files of session/ below it include this.
 */
#ifndef PROFIL_SESSION_MODEL_H
#define PROFIL_SESSION_MODEL_H

#include "clockdrv/event.h"
#include "elf/module.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PROFIL's hit counters, widened. */
struct counters {
    uint64_t program; /* sum of the buckets */
    uint64_t dos;
    uint64_t io;
    uint64_t high;
    uint64_t total;     /* program + dos + io + high */
    uint64_t lost;      /* samples dropped before they reached us */
    uint64_t preempted; /* ticks a thread waited for a CPU: neither samples nor lost */
};

/* One distinct PC: (module, file offset) and how often it was seen. */
struct hit {
    uint32_t module;
    uint64_t offset;
    uint64_t count;        /* since the latest clear: what the views show */
    uint64_t before_clear; /* counted before it: the view's whole run is count + before_clear */
    uint64_t run;          /* the recorded run's: every thread, every moment, never cleared */
    int64_t func;          /* cached index into session.funcs, -1 unresolved, -2 none */
    uint32_t id;           /* stable: index into session.hit_keys, in order of first sight */
};

/* What a hit id stands for. */
struct hit_key {
    uint32_t module;
    uint64_t offset;
};

/* One function of the ranking. */
struct func {
    uint32_t module;
    uint64_t start; /* file offsets */
    uint64_t end;
    char *name; /* owned: as shown, demangled (C++, Rust, D) unless raw_names */
    char *raw;  /* owned: the symbol as the file names it, when name is demangled; else NULL */
    uint64_t samples; /* Self: samples whose PC is in it (since the latest clear) */
    uint64_t total;   /* Total: samples with it anywhere on their stack, once each;
                       * up to date after session_totals */
    uint32_t mark;    /* scratch for session_totals */
    bool inlined;     /* only ever inlined: start is SESSION_INLINE_BASE + its index in
                       * lines.inl_funcs, and it has no code of its own */
    bool place_done;  /* file and line were looked for */
    uint32_t file;    /* where it is declared: a file id of session/lines.h (0 unknown) */
    uint32_t line;
    uint32_t line_end; /* the last line of that file its code comes from (0 unknown) */
};

/* Where the starts of functions that are only ever inlined lie: past any file offset. */
#define SESSION_INLINE_BASE (1ull << 62)

/* The samples of one thread at one key: a hit id (the per-thread split of
 * the hit counts) or a stack id (of the stack counts: speedscope's one
 * profile per thread). */
struct tid_count {
    uint32_t tid; /* 0: an empty slot */
    uint32_t key;
    uint64_t count;        /* since the latest clear */
    uint64_t before_clear; /* counted before it */
};

/* Counts per (thread, key), open addressing (session.c). */
struct tid_table {
    struct tid_count *slots;
    size_t n;     /* entries */
    size_t alloc; /* slots: a power of two, or 0 */
};

/* One distinct call stack: its innermost frame, and the stack of its
 * callers (0: none, the frame is the outermost).  Frames are (module, file
 * offset) as hits are; a return address is kept less one, inside its call. */
struct stack_node {
    uint32_t parent;
    uint32_t module;
    uint64_t offset;
    int64_t func;   /* cached index into session.funcs, -1 unresolved */
    uint32_t depth; /* frames from the outermost, 1 for it */
    uint32_t level; /* 0: a frame of the stack; N: the Nth function inlined at that
                     * frame's PC, the parent being level N - 1 at the same PC */
};

/* The timeline: what each period of the run added to the counters. */
#define SESSION_FRAME_NS 100000000ull /* 100 ms */

/* One hit's growth within a frame. */
struct frame_hit {
    uint32_t id;
    uint32_t count;
};

/* One thread's growth at one key within a frame. */
struct frame_tid {
    uint32_t tid;
    uint32_t key;
    uint32_t count;
};
#define FRAME_BLOCKED UINT32_MAX /* the key of a thread's blocked ticks */

struct frame {
    uint64_t program;
    uint64_t dos;
    uint64_t io;
    uint64_t high;
    uint64_t lost;
    uint64_t preempted;
    bool cleared;           /* the screen was cleared before this frame's deltas */
    bool compact;           /* hits sorted by id, one entry per id */
    struct frame_hit *hits; /* owned */
    uint32_t nhits;
    uint32_t hits_alloc;
    struct frame_hit *stacks; /* owned: what each stack id grew by, ids as in session.stacks */
    uint32_t nstacks;
    uint32_t stacks_alloc;
    bool stacks_compact;
    /* The same growth split by thread, in a live session only (never saved:
     * session.frame_threads), so that a thread filter and a time window
     * combine (window.c): keys are hit ids (FRAME_BLOCKED: ticks blocked,
     * without a hit), and stack ids. */
    struct frame_tid *thits; /* owned */
    uint32_t nthits, thits_alloc;
    bool thits_compact;
    struct frame_tid *tstacks; /* owned */
    uint32_t ntstacks, tstacks_alloc;
    bool tstacks_compact;
};

/* A mark: TEXT at T_S seconds into the run. */
struct session_mark {
    double t_s;
    char *text; /* owned */
};

/* How the program ended. */
enum exit_kind { EXIT_NONE = 0, EXIT_TERMINATED = 1, EXIT_ABORTED = 2 };

struct mapping;
struct kallsyms;
struct addrspace;
struct lines;

/* What is worked out from the run and kept until the run changes: the
 * function index, and whether the functions' ranking and the stacks'
 * Totals must be worked out again.  Never saved. */
struct session_cache {
    bool funcs_dirty;        /* session_rank must run again: new hits */
    uint32_t *func_index;    /* open addressing on (module, start): index + 1, 0 empty */
    size_t func_index_alloc; /* a power of two, at least twice nfuncs */
    bool totals_dirty;       /* session_totals must run again */
};

/* What only a live run has, never saved: the processes' address spaces,
 * the JIT perf maps as last read, the unwinder's scratch and its times, and
 * the first sample kept.  A session read from a file leaves it empty. */
struct session_live {
    struct addrspace **spaces; /* one per process seen, while ingesting live events */
    size_t nspaces;
    struct session_jit { /* each process that ran anonymous code: its perf map as last read */
        uint32_t pid;
        int64_t size;
        int64_t mtime;
    } * jit; /* owned: a file's [JIT] names come with it */
    size_t njit;
    uint64_t jit_read_ns;   /* CLOCK_MONOTONIC when the perf maps were last looked at */
    bool jit_ended;         /* ... and whether the program had ended then */
    uint64_t *unwind_pcs;   /* owned: scratch for unwinding */
    uint32_t *unwind_hist;  /* owned: unwinding times, 1 us a bin, the last "more" */
    const char *kallsyms;   /* borrowed: another /proc/kallsyms to read (tests), or NULL */
    struct kallsyms *ksyms; /* owned: the kernel's functions, looked up a PC at a time */
    /* Samples timed before this are dropped (--start-paused: those the
     * clock took between the exec and the pause); 0 keeps them all. */
    uint64_t sample_from_ns;
};

/* What the views show, worked out from the run under a small view state
 * (the thread filter, the time window, the area and bucket size, the latest
 * clear); never saved.  Ingest adds to it as it appends to the run, and the
 * filter, window, area and clear rebuild it from the run (session/view.c);
 * saving reads only the run (session.run, hit.run, the frames). */
struct session_view {
    uint32_t bucket_paragraphs; /* the size shown: z and Z change it */
    /* The area the buckets count, in its module's own addresses: module
     * prog_module's code, the program's (0), or under a filter of one
     * process, that process's own executable (session_filter_set). */
    uint64_t prog_low;
    uint64_t prog_high;
    uint32_t prog_module;
    uint64_t *buckets; /* owned */
    size_t nbuckets;
    uint64_t *buckets_before_clear; /* owned; only a classic session has no hits to rebuild
                                     * its buckets from, so it keeps them here (else NULL) */
    /* The counts since the latest clear ('c'), which are the whole run's
     * when nothing was cleared; what came before the clear is kept beside. */
    struct counters c;
    struct counters before_clear;
    uint64_t *stack_count;         /* by stack id: samples since the latest clear */
    uint64_t *stack_before_clear;  /* by stack id: counted before it */
    struct session_filter *filter; /* owned: the threads the views show, or NULL: all */
    bool window;                   /* the views show frames [win_from, win_to) only (view.c) */
    size_t win_from, win_to;
    bool oncpu; /* on-CPU time only: the wall clock's waits left out (o, --on-cpu) */
};

struct session {
    /* What was asked. */
    char *program; /* owned: the path as resolved */
    char **args;   /* owned: the parameters, without argv[0] */
    size_t nargs;
    char *comment;     /* owned, may be NULL */
    char *interpreter; /* owned: what runs the program when it is a #! script, or NULL */
    uint32_t interval_us;
    uint32_t asked_paragraphs; /* the size asked for, which the file keeps (0: the same) */
    enum clock_kind clock;
    char *driver; /* owned: "perf", "ptrace" */
    /* The periods were drawn within +-jitter_pct % of interval_us (0: exact);
     * unknown in files from before it was recorded. */
    double jitter_pct;
    bool jitter_known;

    /* The recorded run, whatever the views show: every thread, every
     * moment, never cleared, classified by the program's own area (module
     * 0's, or the --range asked), whichever area a filter shows.  What a
     * saved file holds: saving never touches the view (issue 23). */
    struct counters run;
    /* The program's area, in the executable's own addresses: module 0's
     * code, or the --range asked.  What the file keeps; the views may show
     * another module's (session.view.prog_*). */
    uint64_t prog_low, prog_high;
    bool legacy_clear; /* read from a 1.0 file, whose clears threw away what came before
                        * them: its counters start at the last cleared frame */

    /* Frame i covers [start_ns + i * SESSION_FRAME_NS, ...). */
    struct frame *frames;
    size_t nframes;
    size_t frames_alloc;
    size_t clear_frame;       /* the latest frame marked cleared: later events land here or after */
    size_t compact_upto;      /* frames below this are compact */
    struct hit_key *hit_keys; /* by hit id */
    size_t nkeys, hit_keys_alloc;
    bool classic;            /* read from a 1983 PROFIL file: buckets without hits */
    uint16_t classic_dos_pa; /* PROFIL's words kept as they were, for export */
    uint16_t classic_high_pa;

    /* Modules: index 0 is always the program. */
    struct module **modules;
    size_t nmodules;

    /* The exact hit table, open addressing on (module, offset). */
    struct hit *hits;
    size_t nhits;
    size_t hits_alloc; /* a power of two */

    /* Function ranking, by module then start; see session_rank. */
    struct func *funcs;
    size_t nfuncs, funcs_alloc;

    /* Call stacks, each distinct one interned once: node 0 is the empty
     * stack, a sample without one. */
    bool has_stacks;           /* stacks were taken: a live run with them, or a file's STCK */
    struct stack_node *stacks; /* owned */
    size_t nstacks;            /* nodes, the empty one included */
    size_t stacks_alloc;
    uint32_t *stack_index;     /* open addressing on (parent, module, offset): id, 0 empty */
    size_t stack_index_alloc;  /* a power of two */
    uint64_t unwinds;          /* stacks unwound live */
    struct tid_table tstacks;  /* each thread's samples with each stack */
    bool no_inline;            /* --no-inline: inlined functions are not functions of their own */
    bool embed_source;         /* --embed-source: the file keeps the text of the sampled sources */
    struct lines *lines;       /* owned: source places (session/lines.h), or NULL */
    uint32_t unknown_module;   /* [unknown]: where an unwinding gave out, or UINT32_MAX */
    uint32_t truncated_module; /* [truncated]: where a stack was cut, or UINT32_MAX */
    uint32_t blocked_module;   /* [blocked]: the top of a stack taken off CPU (the wall
                                * clock's waits), or UINT32_MAX */

    uint32_t anon_module;
    uint32_t kernel_module;
    uint32_t jit_module; /* [JIT]: anonymous code a JIT's perf map names, or UINT32_MAX */
    bool raw_names;      /* --no-demangle: functions keep their symbols' names */

    /* What happened. */
    uint64_t start_ns; /* CLOCK_MONOTONIC when the clock started, or of the first event */
    uint64_t end_ns;
    int64_t start_time; /* wall clock, seconds since the epoch */
    double duration_s;
    uint32_t pid;
    enum exit_kind exit_kind;
    int exit_code;   /* when terminated */
    int exit_signal; /* when aborted */
    uint32_t max_threads;
    char *meta_json; /* owned: metadata read from a file, or NULL */

    /* Who ran (session/threads.h): each process and thread, each thread's
     * ticks and its samples at each hit, and the filter of the views. */
    struct proc_info *procs;
    size_t nprocs, procs_alloc;
    struct thread_info *threads;
    size_t nthreads, threads_alloc;
    struct id_slot *thread_index; /* open addressing on tid (threads.h) */
    size_t thread_index_alloc;    /* a power of two, or 0 */
    struct id_slot *proc_index;   /* ... on pid: the latest process of each */
    size_t proc_index_alloc;
    struct tid_table thits; /* each thread's samples at each hit */
    bool frame_threads;     /* the frames say which thread took their samples (a live
                             * session's): a filter and a window combine */
    /* Marks put into the run (--control's "mark TEXT", profil_mark()), in
     * the order they came; saved in the metadata (docs/prf-format.md). */
    struct session_mark *marks; /* owned */
    size_t nmarks, marks_alloc;
    /* -p: profil attached to a running process, whose start it did not see.
     * exit_kind stays EXIT_NONE when profil let go of it still running (or
     * it ended unseen: exit_unknown), since the header has no other words. */
    bool attached;
    int64_t attached_at;        /* wall clock, seconds since the epoch */
    bool exit_unknown;          /* it ended, but not as profil's child: how is not known */
    struct session_live live;   /* a live run's own state, never saved */
    struct session_cache cache; /* worked out from the run, never saved */
    struct session_view view;   /* what the views show, never saved */
};

/* Whether sessions made from now on (live or read) keep inlined functions
 * as their own (the default) or not (--no-inline). */
void session_set_no_inline(bool no_inline);

/* Note module I of S if it is one of the pseudo-modules, by its kind and
 * name ([kernel], [anon], [JIT], [unknown], [truncated], [blocked]): a
 * file's and a merge's modules come without their roles. */
void session_note_pseudo_module(struct session *s, uint32_t i);

/* Whether stack ID was taken off CPU: its innermost frame is [blocked]. */
bool session_stack_blocked(const struct session *s, uint32_t id);

/* An empty session whose fields a reader fills in (session_free frees it). */
struct session *session_new_empty(void);

/* Bucket count for a span and a bucket size: ceil(span / (16 * paragraphs)), at least 1. */
size_t session_bucket_count(uint64_t low, uint64_t high, uint32_t paragraphs);

/* The recorded run's counters (session.run): every thread, every moment,
 * what came before the clears and since; what a saved file holds. */
struct counters session_run_counters(const struct session *s);

/* A session read whole (a file, a 1983 file): what the views show is the
 * recorded run; take it as such (session.run and each hit's run).  A
 * stack's samples in the run are its frames' (the timeline). */
void session_run_from_view(struct session *s);

/* The whole run's buckets at PARAGRAPHS per bucket, *N of them (rebuilt
 * from the hit table when that is not the size shown); the caller frees. */
uint64_t *session_run_buckets(const struct session *s, uint32_t paragraphs, size_t *n);

/* Seconds into the run of the clear marks: up to MAX of them into AT;
 * returns how many there are. */
size_t session_clears(const struct session *s, double *at, size_t max);

/* Forget the timeline (a replay rebuilds it as it goes). */
void session_timeline_reset(struct session *s);

/* Sort and merge the hit deltas of every frame (before saving). */
void session_timeline_compact(struct session *s);

/* The frame an event at TIME belongs to: made on first use. */
struct frame *session_frame_at(struct session *s, uint64_t time);

/* Find or add the module for PATH; returns its index. */
uint32_t session_module(struct session *s, const char *path, enum module_kind kind);

/* Count hits at (module, offset); classification has already happened. */
void session_add_hit(struct session *s, uint32_t module, uint64_t offset, uint64_t count);

/* The bucket holding the program's file offset OFF: false when OFF lies
 * outside the program area (a sample there counts as high). */
bool session_bucket_of(const struct session *s, uint64_t off, size_t *bucket);

/* Recompute the bucket array for another bucket size from the hit table,
 * without re-running (the live 'z' key).  A view: asked_paragraphs, which
 * the file keeps, does not change.  0, or -1 when the session has no exact
 * hits to re-bucket (a classic PROFIL file). */
int session_rebucket(struct session *s, uint32_t paragraphs);

/* Samples that fell in a function of some module: PROF's "accounted". */
uint64_t session_accounted(const struct session *s);

/* How many times more a share of this session's ticks varies than a share
 * of as many independent samples: its intervals' design effect
 * (stats_deff_jitter; 1 when the file does not say how it sampled). */
double session_deff(const struct session *s);

/* A + B, or UINT64_MAX when that would not fit: counts saturate, never wrap
 * round to small ones (a file may hold counts near 2^64). */
static inline uint64_t session_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Whether a count stopped at 2^64 - 1: the report says so. */
bool session_saturated(const struct session *s);

/* The function whose code starts in or covers bucket I, or NULL. */
const char *session_bucket_symbol(const struct session *s, size_t i, bool *starts_here);

/* The program's file offsets that bucket I spans, [*OFF_LO, *OFF_HI]; false
 * when its start lies in no segment.  Damaged segments may give an end
 * before the start: callers treat such a bucket as empty. */
bool session_bucket_span(const struct session *s, size_t i, uint64_t *off_lo, uint64_t *off_hi);

/* The label of bucket I when its samples name no function: the function
 * covering its start (COVER, a symbol index, or -1), else one starting in it. */
const char *session_bucket_unsampled(const struct session *s, size_t i, long cover);

/* How a histogram labels a bucket: a function name and how many others share it. */
struct bucket_label {
    const char *name; /* borrowed from the program's symbols, or NULL */
    size_t others;    /* other functions with samples in the bucket: shown "+N" */
};

/* Every bucket's label at once, in one pass over the hit table: an array of
 * nbuckets entries, indexed by bucket; the caller frees it. */
struct bucket_label *session_bucket_labels(const struct session *s);

/* Put a mark TEXT at T_S seconds into the run (session/marks.c): the text
 * is copied, cut at LIMIT_MARK_TEXT bytes, its control bytes made blanks.
 * 0, or -1 when the session holds LIMIT_MARKS marks already. */
int session_mark_add(struct session *s, double t_s, const char *text);

/* Forget every mark. */
void session_marks_free(struct session *s);
/* An attached process ended and its status is not known (EXIT_NONE, with
 * exit_unknown), or profil let go of it running on (ENDED false). */
void session_set_detached_end(struct session *s, bool ended);

/* Name for a signal: "SIGSEGV". */
const char *session_signal_name(int sig);

/*
 * The tables' own operations, for session/ and the file's reader: what
 * recording appends with, and what a reader fills a session with.
 */

/* Which of PROFIL's counters a sample at (MODULE, OFFSET) counts in, and
 * for the program area its bucket. */
enum counter_kind { COUNT_PROGRAM, COUNT_DOS, COUNT_IO, COUNT_HIGH };
enum counter_kind session_counter_of(const struct session *s, uint32_t module, uint64_t offset,
                                     size_t *bucket);
/* Where a sample outside the program area counts, by its module's kind. */
enum counter_kind session_module_counter(const struct session *s, uint32_t module);
/* Add N to C's counter K and to its total, saturating. */
void counters_add(struct counters *c, enum counter_kind k, uint64_t n);

/* The id of the hit at (MODULE, OFFSET), or UINT32_MAX when there is none. */
uint32_t session_hit_id(const struct session *s, uint32_t module, uint64_t offset);

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

/* Frame I of the timeline, made (with every frame before it) on first use. */
struct frame *session_frame(struct session *s, uint64_t i);
void frame_free(struct frame *f);

/* Where the recorded run counts a sample at (MODULE, OFFSET) that the views
 * count as SHOWN: by the program's own area, whichever area they show. */
enum counter_kind session_run_counter(const struct session *s, uint32_t module, uint64_t offset,
                                      enum counter_kind shown);

/* Count COUNT samples at (MODULE, OFFSET) as IN's event (NULL: a reader's).
 * Returns the hit's id. */
uint32_t ingest_hit(struct session *s, struct ingest *in, uint32_t module, uint64_t offset,
                    uint64_t count);
/* Note in IN's frame that thread TID's KEY (a hit id, or FRAME_BLOCKED; a
 * stack id when STACK) grew by COUNT.  Nothing without a frame. */
void frame_tid_note(struct session *s, struct ingest *in, bool stack, uint32_t tid, uint32_t key,
                    uint64_t count);

#endif
