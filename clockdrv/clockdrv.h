/*
 * The interval clock.  A driver starts the program, samples its threads at
 * the interval, and turns what it sees into session events.  It knows nothing
 * of buckets, symbols or the screen.  Adding a driver is adding one file and
 * one entry in clockdrv_table.
 */
#ifndef PROFIL_CLOCKDRV_H
#define PROFIL_CLOCKDRV_H

#include "clockdrv/event.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How to start the program. */
struct launch {
    const char *path;       /* the executable */
    char *const *argv;      /* argv[0] included, NULL-terminated */
    char *const *envp;      /* its environment, NULL-terminated; NULL: profil's */
    const char *stdin_path; /* redirections from the parameters, or NULL */
    const char *stdout_path;
    bool stdout_append;
    const char *stderr_path;
    int tty_fd; /* a pty for the program to own, or -1 to inherit ours */
    /* Without a pty: a session of its own all the same, not sharing our
     * terminal (its input is not one).  Its own autogroup then: the
     * scheduler shares the CPUs between profil and the program as between
     * two users' jobs, where profil would otherwise have one share among
     * the program's threads (a 200th of a CPU beside 200 busy processes,
     * and the ptrace driver, which stops each, fell behind). */
    bool own_session;
};

struct clockdrv_config {
    uint32_t interval_us;
    enum clock_kind clock;
    bool stacks;         /* take each sample's call stack */
    uint32_t stack_size; /* bytes of user stack to copy for it */
    /* The periods are drawn at random within +-jitter of the interval (0.5:
     * +-50 %), so that no program running in step with a clock is seen at
     * the same phase every time; 0 keeps exact periods.  docs/statistics.md
     * has why +-50 % and not +-10 %. */
    double jitter;
};

#define CLOCKDRV_JITTER 0.5

/* Periods drawn around a mean, from an xorshift64* state seeded by getrandom. */
struct clockdrv_jitter {
    uint64_t state;
    uint64_t mean_ns;
    double frac;
};

void clockdrv_jitter_init(struct clockdrv_jitter *j, uint64_t mean_ns, double frac);
/* The next period: mean_ns when frac is 0, else uniform in
 * [mean (1 - frac), mean (1 + frac)].  Its mean is mean_ns but the mean
 * rate is not 1 / mean_ns (ln 3 times that at +-50 %): a driver counts each
 * sample as the time that passed, in whole intervals with the rest carried,
 * not as one interval. */
uint64_t clockdrv_jitter_next(struct clockdrv_jitter *j);
/* A number drawn uniformly in [0, 1) from the same state. */
double clockdrv_jitter_u01(struct clockdrv_jitter *j);

typedef void (*clockdrv_emit_fn)(void *arg, const struct event *ev);

struct clockdrv;

struct clockdrv_ops {
    const char *name;
    /* Whether the driver can run here for this user: 0, or -errno and *cause. */
    int (*probe)(const struct clockdrv_config *cfg, char **cause);
    /* Start the program under the clock, enabled from its exec.  The
     * program dies with profil (clockdrv/spawn.c). */
    struct clockdrv *(*start)(const struct clockdrv_config *cfg, const struct launch *l,
                              char **cause);
    /* Put the clock on the running process PID and every thread it has
     * (-p), enabled at once; its new threads and children are followed.
     * The result has attached set: the process is never signalled nor
     * killed (no PTRACE_O_EXITKILL, clockdrv_stop sends nothing), and
     * free() lets go of it, leaving it as it was.  The mappings it had are
     * handed over by the first drain, as EVENT_MMAP.  NULL and *cause, one
     * line naming what refused (clockdrv_attach_refusal). */
    struct clockdrv *(*attach)(const struct clockdrv_config *cfg, pid_t pid, char **cause);
    /* Hand every event gathered so far to EMIT.  Returns 1 once the program
     * has ended and the last event was handed over, 0 while it runs. */
    int (*drain)(struct clockdrv *d, clockdrv_emit_fn emit, void *arg);
    void (*clock_on)(struct clockdrv *d);
    void (*clock_off)(struct clockdrv *d);
    /* Thread TID of the program asked profil something at SINCE (on the
     * events' clock) and waits for the answer, which profil gives as soon as
     * this returns: the blocked time of that wait is profil's, not the
     * program's I/O (clockdrv_hush). */
    void (*hush)(struct clockdrv *d, pid_t tid, uint64_t since);
    /* An attached process: let go of it now, as free() would, leaving it
     * as it was; the driver is kept for what it knows, and drain is not
     * called again (clockdrv_release). */
    void (*release)(struct clockdrv *d);
    /* Kill the program if it still runs, reap it, release everything; an
     * attached process is let go of instead, running on as before. */
    void (*free)(struct clockdrv *d);
};

/* The kernel's struct sched_attr (linux/sched/types.h clashes with sched.h). */
struct clockdrv_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

/* What every driver shares; drivers embed it first. */
struct clockdrv {
    const struct clockdrv_ops *ops;
    pid_t pid;        /* the program */
    int fd;           /* readable when drain has work: poll it */
    bool ended;       /* the program has ended and was reaped, or was released */
    int wstatus;      /* its wait status, once ended */
    uint32_t threads; /* threads alive now */
    uint32_t max_threads;
    bool paused;
    uint64_t stop_at;  /* when clockdrv_stop last asked the program to end, or 0 */
    char *note;        /* owned: a remark for the user (e.g. kernel excluded), or NULL */
    bool attached;     /* started by attach: a process profil did not start */
    bool exit_unknown; /* ended, but not our child: wstatus is not known */
    bool released;     /* attached, and let go of before it ended: it runs on */
};

/* The shortest interval at which profil runs at SCHED_FIFO. */
#define CLOCKDRV_FIFO_US 200

/* Let profil's thread run as soon as its clock or a stop wakes it, even
 * among many runnable threads of the program: SCHED_FIFO at the lowest
 * priority when FIFO and we may have it (SCHED_RESET_ON_FORK: nothing
 * profil starts inherits it), else a short time slice (kernels from 6.12;
 * older ones ignore it) and a timer slack of 1 ns.  Nothing when the policy was not SCHED_OTHER;
 * once done, again with FIFO false leaves SCHED_FIFO for the slice.  The state is the process's
 * (its one thread's): the launcher may do it before the driver, which then finds it done. */
void clockdrv_prioritize(bool fifo);
/* Give the old policy back: 0, or -errno (then profil keeps the new one). */
int clockdrv_unprioritize(void);
/* Whether profil runs at SCHED_FIFO (clockdrv_prioritize). */
bool clockdrv_fifo(void);
/* At SCHED_FIFO, whether profil took more than SHARE (0..1) of a CPU over
 * the second before NOW (CLOCK_MONOTONIC); checked once a second. */
bool clockdrv_over_budget(uint64_t now, double share);

/* How soon a second request to stop must follow the first to kill the program. */
#define CLOCKDRV_ESCALATE_NS 5000000000ull

/* Ask the program to end with SIG (SIGTERM or SIGHUP, sent to profil, or
 * profil's own request), then SIGCONT, so that a stopped program ends too.
 * A second request within CLOCKDRV_ESCALATE_NS of the first sends SIGKILL
 * instead, and returns true: the program ignored or caught the first. */
bool clockdrv_stop(struct clockdrv *d, int sig);
/* An attached process (d->attached) is never sent anything: clockdrv_stop
 * returns false at once, and its caller ends the session instead. */

/* Let go of an attached process that still runs (--duration on the screen:
 * the session ends, the screen stays): no clock, no tracing, the process
 * as it was.  The driver then counts as ended (d->ended) and released;
 * drain is not called again.  Nothing for a process profil started. */
void clockdrv_release(struct clockdrv *d);

/* clockdrv/attach.c: what both drivers need to attach to a running process. */

/* The live threads of process PID now, in *TIDS (owned, *N of them, in
 * order), a main thread that ended before the others (a zombie) left out:
 * 0, or -errno (-ESRCH: no such process, or no thread of it alive). */
int clockdrv_tasks(pid_t pid, pid_t **tids, size_t *n);

/* A live thread of PID whose /proc files hold the process's executable,
 * maps and command line: PID itself, or another when its main thread has
 * ended before the others (those files are empty then). */
pid_t clockdrv_live_task(pid_t pid);

/* The tracer of thread TID (TracerPid), 0 when none, -1 when unknown. */
pid_t clockdrv_tracer(pid_t tid);

/* One line saying why DRIVER ("ptrace", "perf") could not watch PID after
 * the kernel said ERR: no such process, another tracer, Yama's
 * ptrace_scope, another user's process, perf_event_paranoid.  Owned. */
char *clockdrv_attach_refusal(const char *driver, pid_t pid, int err);

/* An executable mapping as /proc/PID/maps shows it. */
struct clockdrv_map {
    uint64_t start, len, pgoff;
    char *path; /* owned: as perf's mmap records name it ("//anon", "[vdso]") */
};

/* The executable mappings of PID: 0 and *MAPS (free with clockdrv_maps_free),
 * or -errno. */
int clockdrv_exec_maps(pid_t pid, struct clockdrv_map **maps, size_t *n);
void clockdrv_maps_free(struct clockdrv_map *maps, size_t n);

/* Read the /proc file PATH into BUF (SIZE bytes, NUL-terminated): its
 * length, or -1. */
ssize_t clockdrv_proc_read(const char *path, char *buf, size_t size);

/* Thread TID of PID's name (comm), into BUF; false when it cannot be read. */
bool clockdrv_task_comm(pid_t pid, pid_t tid, char *buf, size_t size);

/* What process PID runs now, for an exec event EV: its executable (into
 * PATH) and its NUL-separated command line (into ARGS), where /proc has them. */
void clockdrv_exec_info(pid_t pid, char *path, size_t path_size, char *args, size_t args_size,
                        struct event *ev);

/* Whether thread TID of PID is asleep (state S or D) now. */
bool clockdrv_task_blocked(pid_t pid, pid_t tid);

/* A schedstat file's text BUF: ns on a CPU, ns waiting for one, times put
 * on one.  False when BUF does not hold the three numbers. */
bool clockdrv_schedstat_parse(const char *buf, uint64_t *exec, uint64_t *delay, uint64_t *runs);

/* The threads an attached process PID had before profil came, handed to
 * EMIT at TIME: each one's start (EVENT_THREAD, not for the first) and its
 * name (EVENT_COMM), as a process profil started reports them; a main
 * thread that ended before the others, its end (EVENT_THREAD_EXIT). */
void clockdrv_attach_threads(pid_t pid, uint64_t time, clockdrv_emit_fn emit, void *arg);

/* Pause and resume the clock: OS/2's PRF_CM_STOP and PRF_CM_START. */
void clockdrv_pause(struct clockdrv *d, bool paused);

/* Thread TID asked at SINCE (CLOCK_MONOTONIC; 0 or a time to come: now)
 * and waits for profil's answer, to be given once this returns: the time
 * it is blocked for it is not counted as I/O.  A program that turns the
 * clock off and on (libprofilctl) waits so, and under load or while profil
 * starts the wait was tens of ticks of I/O that the program never did. */
void clockdrv_hush(struct clockdrv *d, pid_t tid, uint64_t since);

/* The number in a /proc/sys file such as perf_event_paranoid, or FALLBACK. */
int clockdrv_read_int(const char *path, int fallback);

/* Now, on the clock the events use. */
uint64_t clockdrv_now_ns(void);
/* The CPU time the calling thread has used, in ns. */
uint64_t clockdrv_cpu_ns(void);

#endif
