/*
 * What the files of the ptrace driver share and nothing else sees: its
 * state, and the thread and process tables, /proc readers and scheduling
 * policy that ptrace_proc.c keeps for the tick and event loop of ptrace.c.
 */
#ifndef PROFIL_CLOCKDRV_PTRACE_PROC_H
#define PROFIL_CLOCKDRV_PTRACE_PROC_H

#include "clockdrv/clockdrv.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

enum { SLOT_EMPTY, SLOT_USED, SLOT_GONE };

/* One executable mapping, as /proc/PID/maps shows it. */
struct ptrace_map {
    uint64_t start, end, pgoff, ino;
    uint32_t dev;
};

/* The executable mappings handed to the session for one process. */
struct ptrace_proc {
    pid_t pid;
    struct ptrace_map *maps; /* sorted by start */
    size_t nmaps, alloc;
    uint64_t reread_tick; /* the tick that last re-read the maps for an unknown PC */
    uint64_t maps_ns;     /* when the maps were last read */
    uint64_t maps_cost;   /* ns that reading took */
    bool sampled;         /* a sample was taken since the exec */
    uint64_t exec_ns;     /* when it last exec'd */
};

/* What a thread was last seen doing, by its syscall file. */
enum { SEEN_NOTHING, SEEN_RUNNABLE, SEEN_BLOCKED };

struct ptrace_thread {
    pid_t tid;
    pid_t pid;
    int sysfd;   /* /proc/PID/task/TID/syscall, kept open */
    int schedfd; /* /proc/PID/task/TID/schedstat, kept open */
    uint8_t slot;
    uint8_t seen;
    bool unkept;        /* its files could not be kept open: read at its end only */
    bool live;          /* sampled: not the held child before its exec, nor past its exit stop */
    bool held;          /* the child profil forked, not yet the program (before its exec) */
    bool want;          /* interrupted, its stop not seen yet */
    uint64_t want_tick; /* the tick that interrupted it */
    bool detach;        /* free() lets it go at its next stop */
    /* schedstat as last read: ns on a CPU, ns waiting for one, times put on one */
    uint64_t exec, delay, runs;
    int64_t ran;     /* ns on a CPU not yet handed over as samples (less than
                      * none when a sample was rounded up) */
    uint64_t waited; /* ns runnable off every CPU not yet handed over as preempted ticks */
    /* Blocked waiting for profil's answer (clockdrv_hush) when it was asked,
     * and not put on a CPU since (schedstat's count HUSH_RUNS): no I/O. */
    bool hush;
    uint64_t hush_runs;
    char comm[16]; /* its name as last handed over */
};

/* How often the threads' names are read again, to follow a rename. */
#define PTRACE_COMM_NS 100000000ull

struct clockdrv_ptrace {
    struct clockdrv base;
    struct clockdrv_config cfg;
    struct event_stack stack; /* the sample being handed over's, with stacks */
    uint8_t *stack_buf;       /* cfg.stack_size bytes: its copy of the stack */
    char sysline[256];        /* a syscall file as last read */
    char exec_path[4096];     /* what an exec or comm event borrows */
    char exec_args[4096];
    uint64_t comm_at; /* when to read the threads' names again */
    bool wall;
    int timerfd;
    int sigfd;
    sigset_t chld;
    bool unblock_chld; /* SIGCHLD was not blocked before us */
    int spare;         /* /dev/null, closed to make room to read an unkept thread's file */
    rlim_t nofile;     /* our limit on open files */
    bool out_of_fds;
    uint64_t overrun_window; /* the first tick of the window overruns are counted in */
    unsigned overruns;       /* ticks in it whose own work took longer than the interval */

    struct ptrace_thread *threads; /* open addressing by tid */
    size_t threads_alloc, threads_used, threads_gone;

    struct ptrace_proc **procs;
    size_t nprocs;

    uint64_t interval_ns;
    struct clockdrv_jitter jitter; /* the timer's periods */
    uint64_t deadline;             /* the jittered timer's next expiry */
    size_t pending;                /* threads this tick interrupted whose stop has not come */
    bool freeing;                  /* letting go of everything */
    bool let_go;                   /* ptrace_let_go has run: nothing traced */
    bool attach_maps;       /* attached: the first drain hands over the mappings there were */
    uint64_t leaderless_at; /* attached: when to look again whether it has ended */
    uint64_t tick;
    uint64_t now; /* the current tick's time */
    /* Ticks of samples, and those of the samples taken on the way back from a
     * system call; the user and system CPU time (in clock ticks) of the
     * threads that ended, read at their exit stops: ptrace_bias_note. */
    uint64_t ticks_sampled, ticks_at_syscall;
    uint64_t cpu_user, cpu_system;

    char *buf; /* /proc/PID/maps */
    size_t buf_alloc;
    struct ptrace_map *scratch;
    size_t scratch_alloc;

    clockdrv_emit_fn emit; /* set during drain only */
    void *arg;
};

/* ptrace_proc.c: what the tick and the event loop ask of the tables. */
void ptrace_emit(struct clockdrv_ptrace *d, const struct event *ev);
void ptrace_note(struct clockdrv_ptrace *d, const char *msg);
void ptrace_unprioritize(struct clockdrv_ptrace *d);
struct ptrace_thread *ptrace_thread(struct clockdrv_ptrace *d, pid_t tid);
struct ptrace_thread *ptrace_thread_add(struct clockdrv_ptrace *d, pid_t tid, pid_t pid);
void ptrace_thread_close(struct ptrace_thread *t);
bool ptrace_schedstat(struct clockdrv_ptrace *d, const struct ptrace_thread *t, uint64_t *exec,
                      uint64_t *delay, uint64_t *runs);
void ptrace_unwant(struct clockdrv_ptrace *d, struct ptrace_thread *t);
void ptrace_thread_gone(struct clockdrv_ptrace *d, struct ptrace_thread *t);
struct ptrace_proc *ptrace_proc(struct clockdrv_ptrace *d, pid_t pid);
struct ptrace_proc *ptrace_proc_add(struct clockdrv_ptrace *d, pid_t pid);
const struct ptrace_map *ptrace_map_find(const struct ptrace_map *maps, size_t n, uint64_t pc);
void ptrace_maps(struct clockdrv_ptrace *d, struct ptrace_proc *p);
void ptrace_stack_maps(struct clockdrv_ptrace *d, struct ptrace_proc *p);
struct ptrace_thread *ptrace_adopt(struct clockdrv_ptrace *d, pid_t tid, pid_t parent);
void ptrace_exec(struct clockdrv_ptrace *d, pid_t pid);
/* Read the names of the live threads; hand over the ones that changed. */
void ptrace_comms(struct clockdrv_ptrace *d);
void ptrace_exited(struct clockdrv_ptrace *d, pid_t tid, int st);
/* Attached to a process whose main thread has ended: whether its last
 * thread has too (then the run has ended, its status unknown to profil). */
void ptrace_leaderless_check(struct clockdrv_ptrace *d);
bool ptrace_runnable(struct clockdrv_ptrace *d, struct ptrace_thread *t, bool *runnable);
/* Add the user and system CPU time of T, stopped at its exit, to the tally. */
void ptrace_cputimes(struct clockdrv_ptrace *d, const struct ptrace_thread *t);

/* ptrace_tick.c: the tick, and the stops and ends it reaps. */
void ptrace_event(struct clockdrv_ptrace *d, pid_t tid, int st);
bool ptrace_look(struct clockdrv_ptrace *d, struct ptrace_thread *t, uint64_t time, bool *moved);
void ptrace_overrun(struct clockdrv_ptrace *d);
void ptrace_reap(struct clockdrv_ptrace *d);
uint64_t ptrace_rearm(struct clockdrv_ptrace *d);
void ptrace_tick(struct clockdrv_ptrace *d, uint64_t expirations);
void ptrace_wait_chld(struct clockdrv_ptrace *d, uint64_t ns);

#endif
