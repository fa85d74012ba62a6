/*
 * What the files of the perf driver share and nothing else sees: its state
 * (struct clockdrv_perf), the records and chunks it reads, and the
 * functions one file of it calls in another.  perf.c is the driver (its
 * ops: start, attach, drain, free) and says how it works; each file below
 * calls only those listed before it.
 */
#ifndef PROFIL_CLOCKDRV_PERF_INTERNAL_H
#define PROFIL_CLOCKDRV_PERF_INTERNAL_H

#include "clockdrv/clockdrv.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERF_HUSHES   64 /* requests to profil remembered per thread */
#define PERF_REGS_MAX 32 /* user registers a sample may carry (x86-64 asks 17) */

/* Whole records moved out of one CPU's ring, up to PERF_CHUNK bytes.  A pass
 * of the copier reads every ring's head first, then moves each ring up to
 * it: a cut of all of them at one moment, as a drain reading the rings
 * itself made (records from two CPUs are merged by time, and a fork must
 * not come a drain after its child's samples).  It pushes the pass's chunks
 * on the list at once (newest first), the drain takes the whole list and
 * gives each chunk back, on the spare list, for the copier to fill again.
 * Memory used again needs no page faults: a copier that took them (fresh
 * memory for each pass, 4 ms of CPU at times) ran past its share and the
 * scheduler kept it off for 0.6-0.8 s among 200 busy processes. */
/* 256 KiB: a pass moves what came in up to 10 ms (350 KiB at 250 us with
 * 8 KiB stacks) and starts a chunk of its own on every CPU it reads, so a
 * bigger chunk is mostly empty; any record fits (its size is 16 bits). */
#define PERF_CHUNK (256u << 10)
struct perf_chunk {
    struct perf_chunk *next;
    size_t len;
    int cpu;
    uint8_t data[PERF_CHUNK] __attribute__((aligned(8))); /* records are 8-byte multiples */
};
_Static_assert(PERF_CHUNK > UINT16_MAX, "a chunk holds the largest record");

/* A period a CPU's clock event was given, from TIME on. */
struct perf_period {
    uint64_t time;
    uint64_t period;
};

struct perf_cpu {
    int fd;
    struct perf_period *periods; /* jittered: every period given, oldest first */
    size_t nperiods, periods_alloc;
    size_t last_period; /* the periods entry in force at the latest sample, once sampled */
    bool sampled;
    int cs_fd; /* the context-switch event writing into fd's ring, or -1 */
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    size_t size; /* of the data area, a power of two */
    bool hup;
};

/* Where a blocked thread was, as a scan read it from its syscall file (no
 * switch event: clockdrv_perf_scan): from FIRST to LAST it was seen blocked there,
 * not put on a CPU meanwhile (RUNS, schedstat's count, the same). */
struct perf_snap {
    uint64_t first, last;
    uint64_t runs;
    struct event_stack st; /* st.data is DATA */
    uint8_t *data;         /* owned: cfg.stack_size bytes */
};
/* Kept per thread: the copier scans as the waits happen, and the drain
 * reaches their records up to 16 ms later as an ordinary user, 1-2 s later
 * under the sanitizers on a busy machine (with 4 kept, the copier's scans
 * ran so far ahead that up to 94 % of blockcall's blocked samples lost
 * their stacks).  The drain lets go of those it has passed
 * (perf_blocked_stack); at most 64 stack copies per thread. */
#define PERF_SNAPS 64

/* A request of a thread to profil: when it asked, and when profil answered. */
struct perf_hush {
    uint64_t from, until;
};

/* A thread's place in the wall clock. */
struct perf_thread {
    uint32_t tid;
    uint32_t pid;
    bool blocked;   /* switched out voluntarily and not back yet */
    bool exec_bare; /* it executed a program of which no mapping was seen yet */
    uint64_t since; /* when the blocked stretch not yet credited began */
    uint64_t carry; /* nanoseconds of blocked time short of a tick */
    bool used;
    /* Its last requests to profil (clockdrv_hush), oldest first: a
     * voluntary switch-out from a request's asking to its answer is the
     * wait for it, and that blocked stretch (HUSHED) is not I/O.  Several:
     * the switch records may reach profil after the next requests (10-16
     * ms late as an ordinary user, requests 1.3 ms apart). */
    struct perf_hush *hush; /* owned: PERF_HUSHES of them; NULL until it asks */
    uint8_t nhush;
    bool hushed;
    /* With stacks: where it was when it last left a CPU (the context-switch
     * event's sample), charged with its blocked time. */
    struct event_stack bstack;
    uint8_t *bdata; /* owned: the stack copy bstack.data points into */
    bool bvalid;
    uint64_t bstart;         /* when its blocked stretch began (its switch-out) */
    struct perf_snap *snaps; /* owned: PERF_SNAPS, oldest first; NULL until seen blocked */
    uint8_t nsnaps;          /* the ones in use; the buffers of the others wait to be */
};

/* The scan timer's key in the driver's epoll (a CPU's is its index). */
#define PERF_SCAN_KEY (UINT32_MAX - 1)

/* One record copied out of a ring buffer, to be merged by time. */
struct perf_rec {
    uint64_t time;
    uint32_t seq; /* arrival order, to keep the sort stable */
    uint16_t type;
    uint16_t misc;
    uint32_t pid, tid;
    uint64_t a, b, c; /* ip / addr,len,pgoff / ppid / lost */
    uint32_t name;    /* offset of an mmap file name in the string arena */
    uint16_t cpu;     /* the ring it came from */
    /* A sample's stack, in the blob arena: nkernel PCs, nregs registers,
     * then ssize bytes of stack. */
    bool cs; /* a context-switch sample: where a thread left its CPU */
    bool has_stack;
    uint16_t nkernel;
    uint8_t nregs;
    bool sshort; /* the kernel copied less stack than asked: it reached the top */
    uint32_t ssize;
    size_t blob;
};

struct clockdrv_perf {
    struct clockdrv base;
    char exec_path[4096]; /* perf_exec_args: what an exec record's event borrows */
    char exec_args[4096];
    struct clockdrv_config cfg;
    uint64_t period_ns;
    struct clockdrv_jitter jitter; /* the clock events' periods */
    uint64_t jitter_at;            /* when to draw new ones */
    bool jitter_stop;              /* the program made a thread or process: stop */
    bool jitter_done;              /* ... and the periods are exact again */
    uint16_t parsing_cpu;          /* the ring clockdrv_perf_parse reads */
    bool wall;
    int ncpus;
    struct perf_cpu *cpus;
    int pidfd;
    bool child_gone;

    struct perf_thread *threads; /* open addressing by tid */
    size_t threads_alloc;
    size_t threads_live;

    struct perf_rec *recs;
    size_t nrecs, recs_alloc;
    char *names;
    size_t names_len, names_alloc;
    uint64_t throttled_at;
    /* When the clock last resumed: a blocked stretch that began before the
     * pause is I/O only from here (its switch-out may reach the ring after
     * clock_off, and the switch-in come after clock_on). */
    uint64_t resumed_at;
    bool ids;         /* samples and sample_id carry PERF_SAMPLE_IDENTIFIER */
    uint64_t *cs_ids; /* the context-switch events' ids (inherited ones report them too) */
    size_t ncs_ids;
    bool cs;       /* a context-switch event is open */
    uint8_t *blob; /* the stacks of the records read in this drain */
    size_t blob_len, blob_alloc;
    struct event_stack stack; /* the sample being handed over's */
    uint64_t shed;            /* samples handed over without their stacks, to keep up */
    bool lead_gone;           /* attached after its main thread ended: no exit record */
    uint64_t samples;         /* samples handed over */
    char *note0;              /* the note as the start made it, or NULL */
    bool note0_kept;
    bool setuid_said;    /* the note says a setuid program went unseen */
    bool overflow_said;  /* the note says a ring overflowed */
    bool throttle_said;  /* the note says the kernel throttled the clock */
    size_t pages;        /* of each CPU's ring */
    bool exclude_kernel; /* the events take user-mode samples only */
    int *extra;          /* the events of an attached process's other threads */
    size_t nextra, extra_alloc;
    int *side; /* the side-band events (perf_sideband_attr): never disabled */
    size_t nside, side_alloc;
    struct clockdrv_map *maps; /* attached: the mappings there were, for the first drain */
    size_t nmaps;
    uint64_t attach_ns; /* when profil attached */
    /* Without a switch event (user samples only: perf_event_paranoid 2) the
     * blocked threads' stacks come from their syscall files, read every
     * SCAN_NS by SCAN_FD's timer (clockdrv_perf_scan): -1 when not needed. */
    int scan_fd;
    uint64_t scan_ns;
    /* With the copier, the copier scans (its short slice wakes it in time
     * where the drain, busy unwinding, waited its turn): SCAN_LOCK guards
     * the thread table's shape and every thread's snaps, which the scan
     * writes and perf_blocked_stack reads.  The copier only tries it: a
     * scan missed waits for the next tick, a copy never waits. */
    pthread_mutex_t scan_lock;
    bool several; /* attached to a process of several threads */

    /* The copier (see the top).  No lock: it pushes on passes and adds to
     * copied, the drain takes the list whole and subtracts (a drain preempted
     * while holding a lock kept the copier off for 0.9 s).  While it runs,
     * only it reads the rings. */
    pthread_t copier;
    bool copier_on;
    uint64_t read_ns;          /* (atomic) when the last pass that copied every ring began */
    bool copier_quit;          /* set (atomically) to stop it */
    int copier_stop;           /* an eventfd written to wake it for that */
    int copier_ep;             /* its epoll: the rings and copier_stop */
    struct perf_chunk *passes; /* the passes' chunks, newest first, atomically */
    uint64_t *heads;           /* a pass's reading of each ring's head */
    struct perf_chunk *spare;  /* chunks to fill again, atomically */
    uint8_t *pool;             /* chunks mapped and faulted in at the start */
    size_t pool_len;
    size_t copied; /* bytes of records in the chunks on the lists, atomically */
};

/* perf_threads.c: the thread table. */
void clockdrv_perf_snaps_free(struct perf_thread *t);
struct perf_thread *clockdrv_perf_thread(struct clockdrv_perf *d, uint32_t tid, bool create);
void clockdrv_perf_thread_gone(struct clockdrv_perf *d, uint32_t tid);

/* perf_note.c: what the driver says to the user. */
void clockdrv_perf_note_shed(struct clockdrv_perf *d);
void clockdrv_perf_note_add(struct clockdrv_perf *d, const char *msg);
void clockdrv_perf_note_jitter(struct clockdrv_perf *d);
void clockdrv_perf_note_throttle(struct clockdrv_perf *d);
void clockdrv_perf_note_setuid(struct clockdrv_perf *d);

/* perf_jitter.c: jittered periods, and the ticks a sample counts. */
void clockdrv_perf_period_given(struct perf_cpu *pc, uint64_t time, uint64_t period);
uint32_t clockdrv_perf_ticks(struct clockdrv_perf *d, const struct perf_rec *r);
void clockdrv_perf_jitter(struct clockdrv_perf *d, uint64_t now);

/* perf_record.c: records parsed and ordered; a sample's stack. */
void clockdrv_perf_parse(struct clockdrv_perf *d, const struct perf_event_header *h,
                         const uint8_t *body, size_t len);
int clockdrv_perf_rec_cmp(const void *a, const void *b);
void clockdrv_perf_stack(struct clockdrv_perf *d, const struct perf_rec *r, struct event_stack *st);

/* perf_blocked.c: blocked threads in the wall clock, and the scan. */
bool clockdrv_perf_hushed(struct perf_thread *t, uint64_t time);
void clockdrv_perf_credit(struct clockdrv_perf *d, struct perf_thread *t, uint64_t now,
                          clockdrv_emit_fn emit, void *arg);
void clockdrv_perf_keep_stack(struct clockdrv_perf *d, const struct perf_rec *r);
bool clockdrv_perf_scan_due(struct clockdrv_perf *d);
void clockdrv_perf_scan(struct clockdrv_perf *d);
void clockdrv_perf_scan_locked(struct clockdrv_perf *d);
void clockdrv_perf_scan_start(struct clockdrv_perf *d);

/* perf_open.c: the probe and the events. */
int clockdrv_perf_probe(const struct clockdrv_config *cfg, char **cause);
void clockdrv_perf_setup_cpus(struct clockdrv_perf *d);
int clockdrv_perf_open_task(struct clockdrv_perf *d, pid_t pid, char **cause);
int clockdrv_perf_open_all(struct clockdrv_perf *d, pid_t pid, char **cause);

/* perf_copier.c: the copier thread and its chunks. */
void clockdrv_perf_pool(struct clockdrv_perf *d);
void clockdrv_perf_copier_start(struct clockdrv_perf *d);
void clockdrv_perf_copier_stop(struct clockdrv_perf *d);
size_t clockdrv_perf_read_all(struct clockdrv_perf *d);

/* perf_dispatch.c: a record as events. */
void clockdrv_perf_dispatch(struct clockdrv_perf *d, const struct perf_rec *r,
                            clockdrv_emit_fn emit, void *arg);

#endif
