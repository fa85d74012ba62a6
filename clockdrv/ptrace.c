/*
 * The ptrace driver: profil traces the program and samples it from a timerfd.
 * A sample counts the CPU time its thread ran, not the ticks that passed.
 *
 * On each tick every thread's /proc/PID/task/TID/schedstat is read without
 * stopping it (ns on a CPU, ns waiting for one, times put on one).  A thread
 * that was put on a CPU since the last look and is runnable ("running" in
 * .../syscall, which is exactly state R) is PTRACE_INTERRUPTed; at its stop
 * its PC and schedstat are read (exact then: the kernel brings a thread's CPU
 * time up to date when it leaves its CPU) and it is continued at once.  The
 * sample counts the CPU time the thread ran since its last sample, in ticks
 * rounded to the nearest, the rest carried to its next sample, so the samples
 * add up to what getrusage says however late the tracer or the stop was.  A
 * thread that did not move is not stopped: waiting for a CPU, or blocked.
 * Time spent runnable but off every CPU (schedstat's second field) is handed
 * over in whole ticks as EVENT_PREEMPTED: neither a sample nor lost.  A
 * blocked thread is an I/O tick (one per timer expiration) in wall-clock mode
 * and nothing in cpu mode.  Lost ticks are CPU time no sample stands for: at
 * a thread's exit stop, whole ticks it ran since its last sample (after
 * which the thread is sampled no more).  While the clock is paused nothing
 * is counted: at the resume every thread's schedstat is read again as its
 * baseline (a running thread's is up to one scheduler tick old), and stops
 * meanwhile only move the baseline.
 *
 * The interrupt stop happens on the way back to user mode, so the PC is
 * always a user PC: a thread busy in the kernel (a long read from the page
 * cache) is seen at the instruction after its system call, which lands in DOS
 * (libc), not in I/O as perf would say.  ptrace gives no mmap records:
 * /proc/PID/maps is read at each exec and whenever a sampled PC lies in no
 * executable mapping known, so dlopen'd libraries and JIT regions appear.
 *
 * Choices:
 * - PTRACE_O_EXITKILL: if profil dies (a crash, SIGKILL) the kernel kills the
 *   program rather than leave a traced process stopped forever or running on
 *   unseen; free() detaches the program's other processes first, so that
 *   only a profil that did not get to clean up takes the program with it.
 * - PTRACE_O_TRACEEXIT: one more stop per thread, to count as lost the CPU
 *   time it ran after its last sample (a thread killed by a signal does not
 *   stop there: its last ticks go unseen).
 * - Signals reach the program unchanged: a signal-delivery-stop is continued
 *   with the same signal; a group-stop (SIGSTOP, SIGTSTP, ...) is left in
 *   place with PTRACE_LISTEN, so job control keeps working.  When one Ctrl-Z
 *   stops profil and the program together and fg continues both, the kernel
 *   itself drops the SIGTSTP still held at its delivery stop.
 * - The tracer must run when its timer fires: among 200 runnable processes
 *   on 2 CPUs a plain process woke for a third to two thirds of its 1 kHz
 *   ticks.  While the program runs, profil takes SCHED_FIFO priority 1 (with
 *   SCHED_FLAG_RESET_ON_FORK) where it may (CAP_SYS_NICE, RLIMIT_RTPRIO) and
 *   the interval is 200 us or more, else a 0.1 ms time slice (on kernels from
 *   6.12, EEVDF lets a waking task with a shorter custom slice preempt; older
 *   ones ignore it).  The old policy comes back once the program has ended,
 *   before the report or the screen that stays, with the reset flag kept
 *   where the kernel will not clear it; and when in a window of 64 ticks 16
 *   took longer than the interval of their own work (a FIFO tracer would
 *   then keep a CPU from everything else), saying so in the note.  A late
 *   tracer costs resolution, not time: a late sample counts the ticks it
 *   stands for.
 * - No CPU pinning: the tracer and the program go where the scheduler puts
 *   them.  Pinning them apart on 2 CPUs put all of a program's threads on
 *   one CPU (64 threads ran 2.4 times slower) and, with other loads, waited
 *   on whichever CPU was busiest.
 * - Each stop is let go as soon as it is read.  A tick polls up to 20 us for
 *   the stops that come at once (waiting awake beats a wake-up from idle on
 *   this kind of virtual CPU); a thread that lost its CPU before the
 *   interrupt reached it stops when it runs again, and drain takes it then,
 *   with the CPU time it ran.  A tick never waits for a preempted thread.
 * - Two files per thread kept open: profil raises its soft RLIMIT_NOFILE to
 *   the hard limit once the program is forked (the program keeps its own)
 *   and leaves 32 descriptors to the rest of profil.  A thread it cannot
 *   watch is read at its exit stop, through a spare descriptor closed for
 *   the moment, and what it ran is lost ticks; the note says so.
 * - SIGCHLD is blocked while the driver runs and read from a signalfd, which
 *   with the timerfd makes up the epoll fd that the event loop polls; drain
 *   reaps with waitpid(-1, __WALL), so profil must have no other children.
 */
#include "config.h"

#include "clockdrv/clockdrv.h"
#include "clockdrv/spawn.h"
#include "clockdrv/ustack.h"
#include "session/xmalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTRACE_OPTIONS                                                                             \
    (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |         \
     PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)
#define PTRACE_SPIN_NS   20000ull      /* how long a tick polls for the stops that come at once */
#define PTRACE_DETACH_NS 2000000000ull /* longest wait at free for the program to let go */
#define PTRACE_FIFO_US        200           /* the shortest interval run at SCHED_FIFO */
#define PTRACE_OVERRUN_WINDOW 64            /* ticks over which overruns are counted */
#define PTRACE_OVERRUN_MAX    16            /* overruns in a window that give SCHED_FIFO up */
#define PTRACE_RESET_ON_FORK  1             /* SCHED_FLAG_RESET_ON_FORK */
#define PTRACE_FD_RESERVE     32            /* descriptors left to the rest of profil */

enum { SLOT_EMPTY, SLOT_USED, SLOT_GONE };

/* The kernel's struct sched_attr (linux/sched/types.h clashes with sched.h). */
struct ptrace_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

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
};

/* Read the maps again this often when stacks are taken, at least: a stack's
 * callers may lie in libraries no sampled PC was in yet.  A process with
 * many mappings is read less often, so that reading costs under 1 %. */
#define PTRACE_STACK_MAPS_NS 10000000ull

/* What a thread was last seen doing, by its syscall file. */
enum { SEEN_NOTHING, SEEN_RUNNABLE, SEEN_BLOCKED };

struct ptrace_thread {
    pid_t tid;
    pid_t pid;
    int sysfd;   /* /proc/PID/task/TID/syscall, kept open */
    int schedfd; /* /proc/PID/task/TID/schedstat, kept open */
    uint8_t slot;
    uint8_t seen;
    bool unkept; /* its files could not be kept open: read at its end only */
    bool live;   /* sampled: not the held child before its exec, nor past its exit stop */
    bool held;   /* the child profil forked, not yet the program (before its exec) */
    bool want;   /* interrupted, its stop not seen yet */
    uint64_t want_tick; /* the tick that interrupted it */
    bool detach; /* free() lets it go at its next stop */
    /* schedstat as last read: ns on a CPU, ns waiting for one, times put on one */
    uint64_t exec, delay, runs;
    int64_t ran;     /* ns on a CPU not yet handed over as samples (less than
                      * none when a sample was rounded up) */
    uint64_t waited; /* ns runnable off every CPU not yet handed over as preempted ticks */
};

struct clockdrv_ptrace {
    struct clockdrv base;
    struct clockdrv_config cfg;
    struct event_stack stack; /* the sample being handed over's, with stacks */
    uint8_t *stack_buf;       /* cfg.stack_size bytes: its copy of the stack */
    char sysline[256];        /* a syscall file as last read */
    bool wall;
    int timerfd;
    int sigfd;
    sigset_t chld;
    bool unblock_chld; /* SIGCHLD was not blocked before us */
    bool prioritized;  /* our scheduling policy was changed: saved_attr is the old one */
    bool fifo;         /* ... to SCHED_FIFO */
    struct ptrace_sched_attr saved_attr;
    int spare;     /* /dev/null, closed to make room to read an unkept thread's file */
    rlim_t nofile; /* our limit on open files */
    bool out_of_fds;
    uint64_t overrun_window; /* the first tick of the window overruns are counted in */
    unsigned overruns;       /* ticks in it whose own work took longer than the interval */

    struct ptrace_thread *threads; /* open addressing by tid */
    size_t threads_alloc, threads_used, threads_gone;

    struct ptrace_proc **procs;
    size_t nprocs;

    uint64_t interval_ns;
    size_t pending; /* threads this tick interrupted whose stop has not come */
    bool freeing;   /* letting go of everything */
    uint64_t tick;
    uint64_t now; /* the current tick's time */

    char *buf; /* /proc/PID/maps */
    size_t buf_alloc;
    struct ptrace_map *scratch;
    size_t scratch_alloc;

    clockdrv_emit_fn emit; /* set during drain only */
    void *arg;
};

/* Hand EV to the session, when a drain is under way to take it. */
static void ptrace_emit(struct clockdrv_ptrace *d, const struct event *ev)
{
    if (d->emit != NULL)
        d->emit(d->arg, ev);
}

/* Add MSG to the remark for the user. */
static void ptrace_note(struct clockdrv_ptrace *d, const char *msg)
{
    char *n = d->base.note == NULL ? xstrdup(msg) : xasprintf("%s; %s", d->base.note, msg);
    free(d->base.note);
    d->base.note = n;
}

/* Give the scheduling policy we found back.  Without CAP_SYS_NICE the kernel
 * refuses to clear SCHED_FLAG_RESET_ON_FORK once set: then keep it, which
 * matters only to children profil does not have. */
static void ptrace_unprioritize(struct clockdrv_ptrace *d)
{
    if (!d->prioritized)
        return;
    d->prioritized = false;
    struct ptrace_sched_attr a = d->saved_attr;
    if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        return;
    a.sched_flags |= PTRACE_RESET_ON_FORK;
    if (errno == EPERM && syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        return;
    char *msg = xasprintf("ptrace: cannot give back the scheduling policy (%s)", strerror(errno));
    ptrace_note(d, msg);
    free(msg);
}

/* Whether profil itself runs under a tracer, which takes its children too. */
static bool ptrace_traced(void)
{
    char buf[2048];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[r > 0 ? r : 0] = '\0';
    const char *s = strstr(buf, "\nTracerPid:");
    return s != NULL && strtol(s + 11, NULL, 10) != 0;
}

/* Whether this kernel and this user may trace a child at all. */
static int clockdrv_ptrace_probe(const struct clockdrv_config *cfg, char **cause)
{
    (void)cfg;
    int scope = clockdrv_read_int("/proc/sys/kernel/yama/ptrace_scope", 0);
    if (scope >= 3) {
        *cause = xstrdup("ptrace: forbidden on this system (kernel.yama.ptrace_scope is 3)");
        return -EPERM;
    }
    if (access("/proc/self/syscall", R_OK) != 0) {
        int err = errno;
        *cause = xasprintf("ptrace: cannot read /proc/PID/syscall (%s)", strerror(err));
        return -err;
    }
    /* The CPU time a sample stands for comes from schedstat; a kernel
     * without scheduler statistics shows "0 0 0" there, or no file. */
    unsigned long long exec, delay, runs = 0;
    FILE *f = fopen("/proc/self/schedstat", "re");
    if (f == NULL || fscanf(f, "%llu %llu %llu", &exec, &delay, &runs) != 3 || runs == 0) {
        if (f != NULL)
            fclose(f);
        *cause = xstrdup("ptrace: the kernel keeps no scheduler statistics "
                         "(/proc/PID/schedstat, CONFIG_SCHED_INFO)");
        return -ENOTSUP;
    }
    fclose(f);
    /* Seccomp filters and LSMs can forbid it too: try on a child that waits. */
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        int err = errno;
        *cause = xasprintf("ptrace: pipe: %s", strerror(err));
        return -err;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(p[1]);
        while (read(p[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    int err = pid < 0 ? errno : 0;
    if (pid > 0 && ptrace(PTRACE_SEIZE, pid, 0, 0) < 0)
        err = errno;
    close(p[0]);
    close(p[1]);
    if (pid > 0) {
        while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
            ;
    }
    if (err == EPERM && ptrace_traced())
        *cause = xstrdup("ptrace: profil is itself being traced (by a debugger or strace -f), "
                         "which takes its children too");
    else if (err == EPERM && scope == 2)
        *cause = xstrdup("ptrace: not permitted (kernel.yama.ptrace_scope is 2: only "
                         "CAP_SYS_PTRACE may trace)");
    else if (err == EPERM)
        *cause = xstrdup("ptrace: not permitted to trace a child here (seccomp or a security "
                         "module forbids it)");
    else if (err != 0)
        *cause = xasprintf("ptrace: cannot trace a child here (%s)", strerror(err));
    return -err;
}

/* Spread consecutive tids over the table. */
static uint32_t ptrace_hash(pid_t tid)
{
    return (uint32_t)tid * 2654435761u;
}

/* The live thread TID, or NULL. */
static struct ptrace_thread *ptrace_thread(struct clockdrv_ptrace *d, pid_t tid)
{
    size_t mask = d->threads_alloc - 1;
    for (size_t i = ptrace_hash(tid) & mask;; i = (i + 1) & mask) {
        struct ptrace_thread *t = &d->threads[i];
        if (t->slot == SLOT_EMPTY)
            return NULL;
        if (t->slot == SLOT_USED && t->tid == tid)
            return t;
    }
}

/* Rebuild the table without tombstones, a quarter full at most. */
static void ptrace_rehash(struct clockdrv_ptrace *d)
{
    struct ptrace_thread *old = d->threads;
    size_t n = d->threads_alloc, alloc = 64;
    while (alloc < 4 * (d->threads_used + 1))
        alloc *= 2;
    d->threads = xcalloc(alloc, sizeof *d->threads);
    d->threads_alloc = alloc;
    d->threads_gone = 0;
    for (size_t k = 0; k < n; k++) {
        if (old[k].slot != SLOT_USED)
            continue;
        for (size_t i = ptrace_hash(old[k].tid) & (alloc - 1);; i = (i + 1) & (alloc - 1)) {
            if (d->threads[i].slot == SLOT_EMPTY) {
                d->threads[i] = old[k];
                break;
            }
        }
    }
    free(old);
}

/* Add TID of process PID, not yet in the table. */
static struct ptrace_thread *ptrace_thread_add(struct clockdrv_ptrace *d, pid_t tid, pid_t pid)
{
    if (2 * (d->threads_used + d->threads_gone + 1) > d->threads_alloc)
        ptrace_rehash(d);
    size_t mask = d->threads_alloc - 1;
    struct ptrace_thread *t;
    for (size_t i = ptrace_hash(tid) & mask;; i = (i + 1) & mask) {
        t = &d->threads[i];
        if (t->slot != SLOT_USED)
            break;
    }
    if (t->slot == SLOT_GONE)
        d->threads_gone--;
    *t = (struct ptrace_thread){.tid = tid,
                                .pid = pid,
                                .sysfd = -1,
                                .schedfd = -1,
                                .slot = SLOT_USED,
                                .live = true,
                                .detach = d->freeing};
    d->threads_used++;
    d->base.threads++;
    if (d->base.threads > d->base.max_threads)
        d->base.max_threads = d->base.threads;
    return t;
}

/* Close the files kept open for T. */
static void ptrace_thread_close(struct ptrace_thread *t)
{
    if (t->sysfd >= 0)
        close(t->sysfd);
    if (t->schedfd >= 0)
        close(t->schedfd);
    t->sysfd = t->schedfd = -1;
}

/* Open T's FILE (syscall, schedstat) under /proc; -1 when it would leave the
 * rest of profil fewer than PTRACE_FD_RESERVE descriptors. */
static int ptrace_thread_file(struct clockdrv_ptrace *d, const struct ptrace_thread *t,
                              const char *file)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)t->pid, (int)t->tid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && d->nofile != RLIM_INFINITY && (rlim_t)fd + PTRACE_FD_RESERVE >= d->nofile) {
        close(fd);
        fd = -1;
        errno = EMFILE;
    }
    return fd;
}

/* Open the files that tell whether T runs and how long it ran, without
 * stopping it.  Out of descriptors, T is unkept: what it ran is read at its
 * exit stop and counted as lost, and the user is told. */
static void ptrace_thread_open(struct clockdrv_ptrace *d, struct ptrace_thread *t)
{
    ptrace_thread_close(t);
    t->sysfd = ptrace_thread_file(d, t, "syscall");
    t->schedfd = ptrace_thread_file(d, t, "schedstat");
    t->unkept = false;
    if (t->sysfd >= 0 && t->schedfd >= 0)
        return;
    int err = errno;
    ptrace_thread_close(t);
    if (err != EMFILE && err != ENFILE)
        return; /* gone already */
    t->unkept = true;
    if (!d->out_of_fds) {
        d->out_of_fds = true;
        char *msg = xasprintf("ptrace: out of file descriptors (limit %llu): the CPU time of "
                              "the threads profil cannot watch is counted as lost, at their end",
                              (unsigned long long)d->nofile);
        ptrace_note(d, msg);
        free(msg);
    }
}

/* Read T's schedstat: ns on a CPU, ns waiting for one, times put on one.  The
 * first is exact only while T is off its CPU (the kernel brings it up to date
 * at a context switch and at its scheduler tick), as it is at a ptrace stop. */
static bool ptrace_schedstat(struct clockdrv_ptrace *d, const struct ptrace_thread *t,
                             uint64_t *exec, uint64_t *delay, uint64_t *runs)
{
    char buf[96];
    ssize_t r = -1;
    if (t->schedfd >= 0) {
        r = pread(t->schedfd, buf, sizeof buf - 1, 0);
    } else if (t->unkept && d->spare >= 0) {
        /* Make room with the spare descriptor, read, and take it back. */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)t->pid, (int)t->tid);
        close(d->spare);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            r = pread(fd, buf, sizeof buf - 1, 0);
            close(fd);
        }
        d->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    if (r <= 0)
        return false;
    buf[r] = '\0';
    char *p = buf, *e;
    uint64_t *field[3] = {exec, delay, runs};
    for (int i = 0; i < 3; i++, p = e) {
        *field[i] = strtoull(p, &e, 10);
        if (e == p)
            return false;
    }
    return true;
}

/* T's stop has come, or will not: the tick waits for it no longer. */
static void ptrace_unwant(struct clockdrv_ptrace *d, struct ptrace_thread *t)
{
    if (t->want && t->want_tick == d->tick && d->pending > 0)
        d->pending--; /* only this tick's stops are counted */
    t->want = false;
}

/* Forget a thread that has ended; a tombstone keeps the probe chains intact. */
static void ptrace_thread_gone(struct clockdrv_ptrace *d, struct ptrace_thread *t)
{
    ptrace_thread_close(t);
    ptrace_unwant(d, t);
    t->slot = SLOT_GONE;
    d->threads_used--;
    d->threads_gone++;
    d->base.threads = d->base.threads > 0 ? d->base.threads - 1 : 0;
}

/* The traced process PID, or NULL; a program has few, so a list will do. */
static struct ptrace_proc *ptrace_proc(struct clockdrv_ptrace *d, pid_t pid)
{
    for (size_t i = 0; i < d->nprocs; i++) {
        if (d->procs[i]->pid == pid)
            return d->procs[i];
    }
    return NULL;
}

/* A new process, with no mappings known yet. */
static struct ptrace_proc *ptrace_proc_add(struct clockdrv_ptrace *d, pid_t pid)
{
    struct ptrace_proc *p = xcalloc(1, sizeof *p);
    p->pid = pid;
    d->procs = xreallocarray(d->procs, d->nprocs + 1, sizeof *d->procs);
    d->procs[d->nprocs++] = p;
    return p;
}

/* Forget a process that has ended. */
static void ptrace_proc_gone(struct clockdrv_ptrace *d, pid_t pid)
{
    for (size_t i = 0; i < d->nprocs; i++) {
        if (d->procs[i]->pid == pid) {
            free(d->procs[i]->maps);
            free(d->procs[i]);
            d->procs[i] = d->procs[--d->nprocs];
            return;
        }
    }
}

/* The known executable mapping holding PC, or NULL. */
static const struct ptrace_map *ptrace_map_find(const struct ptrace_map *maps, size_t n,
                                                uint64_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (maps[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || pc >= maps[lo - 1].end)
        return NULL;
    return &maps[lo - 1];
}

/* Parse one line of /proc/PID/maps; true for an executable mapping. */
static bool ptrace_map_parse(char *line, struct ptrace_map *m, const char **path)
{
    char *e;
    m->start = strtoull(line, &e, 16);
    if (*e != '-')
        return false;
    m->end = strtoull(e + 1, &e, 16);
    if (*e != ' ' || strnlen(e + 1, 5) < 5 || e[5] != ' ')
        return false;
    bool exec = e[3] == 'x';
    m->pgoff = strtoull(e + 6, &e, 16);
    if (*e != ' ')
        return false;
    unsigned long major = strtoul(e + 1, &e, 16);
    if (*e != ':')
        return false;
    unsigned long minor = strtoul(e + 1, &e, 16);
    m->dev = (uint32_t)(major << 20 | minor);
    m->ino = strtoull(e, &e, 10);
    while (*e == ' ')
        e++;
    /* perf names what it saw mapped, not what became of the file since. */
    size_t len = strlen(e);
    static const char deleted[] = " (deleted)";
    if (len >= sizeof deleted - 1 && strcmp(e + len - (sizeof deleted - 1), deleted) == 0)
        e[len - (sizeof deleted - 1)] = '\0';
    if (*e == '\0' || strncmp(e, "[anon:", 6) == 0)
        *path = "//anon"; /* what perf says, and what the session expects */
    else
        *path = e;
    return exec && m->end > m->start;
}

/* Read P's executable mappings and hand the session those it has not seen. */
static void ptrace_maps(struct clockdrv_ptrace *d, struct ptrace_proc *p)
{
    uint64_t began = clockdrv_now_ns();
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)p->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t len = 0;
    for (;;) {
        if (d->buf_alloc - len < 4096) {
            d->buf_alloc = d->buf_alloc ? 2 * d->buf_alloc : 65536;
            d->buf = xreallocarray(d->buf, d->buf_alloc, 1);
        }
        ssize_t r = read(fd, d->buf + len, d->buf_alloc - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    d->buf[len] = '\0';
    size_t n = 0;
    struct event ev = {
        .type = EVENT_MMAP, .pid = (uint32_t)p->pid, .tid = (uint32_t)p->pid, .time_ns = d->now};
    for (char *line = d->buf, *next; line < d->buf + len; line = next) {
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : d->buf + len;
        if (nl != NULL)
            *nl = '\0';
        struct ptrace_map m;
        const char *name;
        if (!ptrace_map_parse(line, &m, &name))
            continue;
        if (n == d->scratch_alloc) {
            d->scratch_alloc = d->scratch_alloc ? 2 * d->scratch_alloc : 64;
            d->scratch = xreallocarray(d->scratch, d->scratch_alloc, sizeof *d->scratch);
        }
        d->scratch[n++] = m;
        const struct ptrace_map *old = ptrace_map_find(p->maps, p->nmaps, m.start);
        if (old != NULL && old->start == m.start && old->end == m.end && old->pgoff == m.pgoff &&
            old->ino == m.ino && old->dev == m.dev)
            continue;
        ev.mmap.start = m.start;
        ev.mmap.len = m.end - m.start;
        ev.mmap.pgoff = m.pgoff;
        ev.mmap.path = name;
        ptrace_emit(d, &ev);
    }
    if (p->alloc < n) {
        p->alloc = d->scratch_alloc;
        p->maps = xreallocarray(p->maps, p->alloc, sizeof *p->maps);
    }
    memcpy(p->maps, d->scratch, n * sizeof *p->maps);
    p->nmaps = n;
    p->maps_ns = clockdrv_now_ns();
    p->maps_cost = p->maps_ns - began;
}

/* With stacks, P's maps as of now or nearly: read them at the first sample
 * after an exec (the dynamic loader has mapped the libraries since) and
 * every PTRACE_STACK_MAPS_NS after. */
static void ptrace_stack_maps(struct clockdrv_ptrace *d, struct ptrace_proc *p)
{
    if (p == NULL || !d->cfg.stacks)
        return;
    uint64_t every = 100 * p->maps_cost;
    if (every < PTRACE_STACK_MAPS_NS)
        every = PTRACE_STACK_MAPS_NS;
    if (!p->sampled || d->now - p->maps_ns >= every)
        ptrace_maps(d, p);
    p->sampled = true;
}

/* First sight of TID, a thread or a process the program just made.  PARENT is
 * the process that made it when its event came first, else 0. */
static struct ptrace_thread *ptrace_adopt(struct clockdrv_ptrace *d, pid_t tid, pid_t parent)
{
    struct ptrace_thread *t = ptrace_thread(d, tid);
    if (t != NULL)
        return t;
    char path[64], buf[1024];
    pid_t tgid = tid, ppid = parent;
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[r > 0 ? r : 0] = '\0';
        const char *s = strstr(buf, "\nTgid:");
        if (s != NULL)
            tgid = (pid_t)strtol(s + 6, NULL, 10);
        s = strstr(buf, "\nPPid:");
        if (s != NULL && ppid == 0)
            ppid = (pid_t)strtol(s + 6, NULL, 10);
    }
    if (tgid <= 0)
        tgid = tid;
    t = ptrace_thread_add(d, tid, tgid);
    ptrace_thread_open(d, t);
    if (tgid == tid && ptrace_proc(d, tid) == NULL) {
        /* A new process starts with its parent's mappings, here as in the session. */
        struct ptrace_proc *p = ptrace_proc_add(d, tid), *pp = ptrace_proc(d, ppid);
        if (pp != NULL && pp->nmaps > 0) {
            p->maps = xcalloc(pp->nmaps, sizeof *p->maps);
            memcpy(p->maps, pp->maps, pp->nmaps * sizeof *p->maps);
            p->nmaps = p->alloc = pp->nmaps;
        }
        struct event ev = {.type = EVENT_FORK,
                           .pid = (uint32_t)tid,
                           .tid = (uint32_t)tid,
                           .time_ns = clockdrv_now_ns()};
        ev.fork.ppid = (uint32_t)ppid;
        ptrace_emit(d, &ev);
    } else if (ptrace_proc(d, tgid) == NULL) {
        ptrace_proc_add(d, tgid);
    }
    return t;
}

/* Process PID has exec'd: its old image and all its other threads are gone. */
static void ptrace_exec(struct clockdrv_ptrace *d, pid_t pid)
{
    unsigned long former = 0;
    ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
    struct ptrace_thread *t = ptrace_thread(d, pid);
    if (t == NULL)
        t = ptrace_adopt(d, pid, 0);
    struct ptrace_thread *f = (pid_t)former != pid ? ptrace_thread(d, (pid_t)former) : NULL;
    if (f != NULL) {
        /* It took over the leader's tid, silently: its readings go on there,
         * not the ended leader's. */
        t->exec = f->exec;
        t->delay = f->delay;
        t->runs = f->runs;
        t->ran = f->ran;
        t->waited = f->waited;
        t->seen = f->seen;
        t->live = f->live;
        ptrace_thread_gone(d, f);
        ptrace_thread_open(d, t);
    }
    ptrace_unwant(d, t);
    struct ptrace_proc *p = ptrace_proc(d, pid);
    if (p == NULL)
        p = ptrace_proc_add(d, pid);
    p->sampled = false; /* a new image: its libraries are still to come */
    uint64_t now = clockdrv_now_ns();
    if (!t->held) {
        struct event ev = {
            .type = EVENT_EXEC, .pid = (uint32_t)pid, .tid = (uint32_t)pid, .time_ns = now};
        ptrace_emit(d, &ev);
    } else {
        t->held = false;
        t->live = true; /* the held child's own exec: the program starts here */
        ptrace_thread_open(d, t);
        if (ptrace_schedstat(d, t, &t->exec, &t->delay, &t->runs))
            t->seen = SEEN_RUNNABLE;
    }
    p->nmaps = 0;
    uint64_t keep = d->now;
    d->now = now;
    ptrace_maps(d, p);
    d->now = keep;
}

/* Thread TID has ended with wait status ST. */
static void ptrace_exited(struct clockdrv_ptrace *d, pid_t tid, int st)
{
    struct ptrace_thread *t = ptrace_thread(d, tid);
    pid_t pid = t != NULL ? t->pid : tid;
    if (t != NULL)
        ptrace_thread_gone(d, t);
    if (tid == pid) {
        struct event ev = {.type = EVENT_EXIT,
                           .pid = (uint32_t)pid,
                           .tid = (uint32_t)tid,
                           .time_ns = clockdrv_now_ns()};
        if (ptrace_proc(d, pid) != NULL)
            ptrace_emit(d, &ev);
        ptrace_proc_gone(d, pid);
    }
    if (tid == d->base.pid) {
        d->base.ended = true;
        d->base.wstatus = st;
        ptrace_unprioritize(d); /* the report and the screen are no real-time work */
    }
}

/* The PC of the stopped thread TID. */
static bool ptrace_pc(pid_t tid, uint64_t *pc)
{
#if defined(__x86_64__)
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
        return false;
    *pc = regs.rip;
#else
    struct user_regs_struct regs;
    struct iovec iov = {&regs, sizeof regs};
    if (ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) < 0)
        return false;
#if defined(__aarch64__)
    *pc = regs.pc;
#elif defined(__i386__)
    *pc = (uint32_t)regs.eip;
#else
#error "ptrace driver: no PC for this architecture"
#endif
#endif
    return true;
}

/* Hand over one sample of COUNT ticks, first reading the maps again if PC is
 * in none known. */
static void ptrace_sample(struct clockdrv_ptrace *d, pid_t pid, pid_t tid, uint64_t pc,
                          uint64_t time, uint64_t count, const struct event_stack *stack)
{
    struct ptrace_proc *p = ptrace_proc(d, pid);
    if (p != NULL && ptrace_map_find(p->maps, p->nmaps, pc) == NULL && p->reread_tick != d->tick) {
        p->reread_tick = d->tick; /* dlopen, a JIT: look again, once per tick */
        ptrace_maps(d, p);
    }
    if (stack != NULL)
        ptrace_stack_maps(d, p);
    struct event ev = {
        .type = EVENT_SAMPLE, .pid = (uint32_t)pid, .tid = (uint32_t)tid, .time_ns = time};
    ev.sample.pc = pc;
    ev.sample.mode = SAMPLE_USER;
    ev.sample.stack = stack;
    while (count > 0) {
        ev.sample.count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
        count -= ev.sample.count;
        ptrace_emit(d, &ev);
    }
}

/* Hand over COUNT ticks of type TYPE (lost, preempted) of thread T. */
static void ptrace_ticks(struct clockdrv_ptrace *d, const struct ptrace_thread *t,
                         enum event_type type, uint64_t time, uint64_t count)
{
    struct event ev = {
        .type = type, .pid = (uint32_t)t->pid, .tid = (uint32_t)t->tid, .time_ns = time};
    ev.lost.count = count;
    if (count > 0)
        ptrace_emit(d, &ev);
}

/* Read T's schedstat and add what it ran and waited since the last reading;
 * whole ticks of waiting become preempted ticks.  While the clock is paused
 * the reading only moves the baseline: nothing of the pause is counted.
 * *MOVED tells whether T was put on a CPU or ran since then; false if the
 * file cannot be read. */
static bool ptrace_look(struct clockdrv_ptrace *d, struct ptrace_thread *t, uint64_t time,
                        bool *moved)
{
    uint64_t exec, delay, runs;
    if (!ptrace_schedstat(d, t, &exec, &delay, &runs))
        return false;
    *moved = exec != t->exec || runs != t->runs;
    if (d->base.paused) {
        t->exec = exec;
        t->delay = delay;
        t->runs = runs;
        t->ran = 0;
        t->waited = 0;
        return true;
    }
    if (exec > t->exec)
        t->ran += (int64_t)(exec - t->exec);
    if (delay > t->delay)
        t->waited += delay - t->delay;
    t->exec = exec;
    t->delay = delay;
    t->runs = runs;
    uint64_t n = t->waited / d->interval_ns;
    t->waited -= n * d->interval_ns;
    ptrace_ticks(d, t, EVENT_PREEMPTED, time, n);
    return true;
}

/* Take the ticks T has run since its last sample off its account, rounded to
 * the nearest (a sample's share of a period cut by two ticks is carried to
 * the next); at its end, only whole ticks. */
static uint64_t ptrace_take(struct clockdrv_ptrace *d, struct ptrace_thread *t, bool end)
{
    int64_t iv = (int64_t)d->interval_ns;
    int64_t ran = t->ran + (end ? 0 : iv / 2);
    uint64_t n = ran > 0 ? (uint64_t)(ran / iv) : 0;
    t->ran -= (int64_t)n * iv;
    return n;
}

/* One waitpid report. */
static void ptrace_event(struct clockdrv_ptrace *d, pid_t tid, int st)
{
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
        ptrace_exited(d, tid, st);
        return;
    }
    if (!WIFSTOPPED(st))
        return;
    struct ptrace_thread *t = ptrace_adopt(d, tid, 0);
    int sig = WSTOPSIG(st), event = (st >> 16) & 0xff;
    int req = PTRACE_CONT, inject = 0;
    unsigned long msg = 0;
    bool moved;
    switch (event) {
    case 0:
        inject = sig; /* a signal for the program: deliver it unchanged */
        break;
    case PTRACE_EVENT_STOP:
        /* An interrupt, a new thread's first stop, or (with a stop signal) a
         * group-stop, which must stay stopped until SIGCONT. */
        if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
            req = PTRACE_LISTEN;
        break;
    case PTRACE_EVENT_CLONE:
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
        if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg != 0)
            ptrace_adopt(d, (pid_t)msg, t->pid);
        break;
    case PTRACE_EVENT_EXEC: ptrace_exec(d, tid); break;
    case PTRACE_EVENT_EXIT:
        /* What it ran since its last sample, whole ticks of it, was seen by
         * no sample: lost.  Less than a tick is a period never completed. */
        ptrace_unwant(d, t);
        /* A ptrace request returns once the thread is off its CPU, and its
         * schedstat exact. */
        ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
        if (t->live && !t->detach && ptrace_look(d, t, clockdrv_now_ns(), &moved) &&
            !d->base.paused)
            ptrace_ticks(d, t, EVENT_LOST, clockdrv_now_ns(), ptrace_take(d, t, true));
        /* Sampled no more: a leader that ended before its threads stays a
         * zombie, blocked as far as its syscall file says. */
        t->live = false;
        ptrace_thread_close(t);
        break;
    }
    t = ptrace_thread(d, tid);
    if (t == NULL)
        return;
    if (t->detach) {
        ptrace(PTRACE_DETACH, tid, 0, (long)inject);
        ptrace_thread_gone(d, t);
        return;
    }
    if (!t->want) {
        ptrace(req, tid, 0, (long)inject);
        return;
    }
    /* Our interrupt: the PC, and how much CPU time it stands for, read while
     * the thread is stopped (so that its schedstat is exact), then let it go
     * at once. */
    ptrace_unwant(d, t);
    uint64_t pc = 0, now = clockdrv_now_ns();
    struct event_stack *stack = NULL;
    bool sampled;
    if (d->cfg.stacks) {
        stack = &d->stack;
        sampled = ustack_regs_ptrace(tid, stack);
        pc = stack->regs[EVENT_REG_PC];
        ustack_copy(t->pid, stack, d->stack_buf, d->cfg.stack_size);
    } else {
        sampled = ptrace_pc(tid, &pc);
    }
    bool looked = ptrace_look(d, t, now, &moved);
    ptrace(req, tid, 0, (long)inject);
    t->seen = req == PTRACE_LISTEN ? SEEN_BLOCKED : SEEN_RUNNABLE;
    if (looked && sampled && !d->base.paused)
        ptrace_sample(d, t->pid, tid, pc, now, ptrace_take(d, t, false), stack);
}

/* Handle every report waiting. */
static void ptrace_reap(struct clockdrv_ptrace *d)
{
    int st;
    pid_t r;
    while ((r = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
        ptrace_event(d, r, st);
}

/* Wait up to NS for a SIGCHLD. */
static void ptrace_wait_chld(struct clockdrv_ptrace *d, uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    sigtimedwait(&d->chld, NULL, &ts);
}

/* Whether T is runnable (on a CPU or waiting for one), by its syscall file:
 * "running" there is exactly state R. */
static bool ptrace_runnable(struct clockdrv_ptrace *d, struct ptrace_thread *t, bool *runnable)
{
    char *buf = d->sysline;
    if (t->sysfd < 0)
        return false;
    ssize_t r = pread(t->sysfd, buf, sizeof d->sysline - 1, 0);
    if (r <= 0)
        return false;
    buf[r] = '\0';
    *runnable = r >= 7 && memcmp(buf, "running", 7) == 0;
    t->seen = *runnable ? SEEN_RUNNABLE : SEEN_BLOCKED;
    return true;
}

/* Hand over BLOCKED for thread T, blocked in the system call d->sysline
 * names: with its stack, read where the call was made, when stacks are on. */
static void ptrace_blocked(struct clockdrv_ptrace *d, const struct ptrace_thread *t,
                           struct event *blocked)
{
    blocked->pid = (uint32_t)t->pid;
    blocked->tid = (uint32_t)t->tid;
    blocked->sample.stack = NULL;
    if (d->cfg.stacks && ustack_regs_syscall(d->sysline, &d->stack)) {
        ptrace_stack_maps(d, ptrace_proc(d, t->pid));
        ustack_copy(t->pid, &d->stack, d->stack_buf, d->cfg.stack_size);
        blocked->sample.stack = &d->stack;
    }
    ptrace_emit(d, blocked);
}

/* One clock tick, EXPIRATIONS timer periods after the last.  Each thread that
 * was put on a CPU since the last look and is runnable is interrupted and
 * sampled at its stop, its sample counting the CPU time it ran since its last
 * one; a thread that did not move is not stopped; a blocked one is an I/O
 * tick per period in wall-clock mode. */
static void ptrace_tick(struct clockdrv_ptrace *d, uint64_t expirations)
{
    d->tick++;
    d->now = clockdrv_now_ns();
    d->pending = 0;
    struct event blocked = {.type = EVENT_SAMPLE, .time_ns = d->now};
    blocked.sample.mode = SAMPLE_BLOCKED;
    blocked.sample.count = expirations > UINT32_MAX ? UINT32_MAX : (uint32_t)expirations;
    for (size_t i = 0; i < d->threads_alloc; i++) {
        struct ptrace_thread *t = &d->threads[i];
        bool moved = true, runnable;
        if (t->slot != SLOT_USED || !t->live || t->unkept)
            continue;
        if (t->want) {
            /* Its stop is still to come: it waits for a CPU, or is in the
             * kernel, perhaps blocked there in wall-clock mode. */
            if (d->wall && ptrace_runnable(d, t, &runnable) && !runnable)
                ptrace_blocked(d, t, &blocked);
            continue;
        }
        if (!ptrace_look(d, t, d->now, &moved))
            continue;
        /* Not put on a CPU since the last look, it is as it was: still waiting
         * for a CPU (its wait is counted when it gets one), or still blocked. */
        if (!moved && (t->seen == SEEN_RUNNABLE || (t->seen == SEEN_BLOCKED && !d->wall)))
            continue;
        if (!ptrace_runnable(d, t, &runnable))
            continue;
        if (runnable) {
            if (moved && ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0) {
                t->want = true;
                t->want_tick = d->tick;
                d->pending++;
            }
        } else if (d->wall) {
            ptrace_blocked(d, t, &blocked);
        }
    }
    /* Collect the stops that come at once, each let go as soon as it is read;
     * waiting awake beats a wake-up from idle.  The others come when their
     * threads run again (they lost their CPU before the interrupt reached
     * them, perhaps to us), and drain takes them then. */
    uint64_t asked = clockdrv_now_ns();
    for (;;) {
        ptrace_reap(d);
        if (d->pending == 0 || clockdrv_now_ns() - asked >= PTRACE_SPIN_NS)
            break;
    }
}

/* At SCHED_FIFO a tick whose own work outlasts the interval keeps a CPU from
 * everything else: when that happens in a quarter of the ticks, give it up. */
static void ptrace_overrun(struct clockdrv_ptrace *d)
{
    if (!d->fifo || !d->prioritized)
        return;
    if (d->tick - d->overrun_window >= PTRACE_OVERRUN_WINDOW) {
        d->overrun_window = d->tick;
        d->overruns = 0;
    }
    if (clockdrv_now_ns() - d->now <= d->interval_ns || ++d->overruns < PTRACE_OVERRUN_MAX)
        return;
    ptrace_unprioritize(d);
    ptrace_note(d, "ptrace: the ticks took longer than the interval, so profil left "
                   "SCHED_FIFO: the sample time may be too short for this many threads");
}

/* Reap every stop and end waiting, then run the tick if the timer expired. */
static int clockdrv_ptrace_drain(struct clockdrv *base, clockdrv_emit_fn emit, void *arg)
{
    struct clockdrv_ptrace *d = (struct clockdrv_ptrace *)base;
    d->emit = emit;
    d->arg = arg;
    struct signalfd_siginfo si;
    while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        ;
    ptrace_reap(d);
    uint64_t n;
    if (!d->base.ended && read(d->timerfd, &n, sizeof n) == (ssize_t)sizeof n && n > 0 &&
        !d->base.paused) {
        ptrace_tick(d, n);
        ptrace_overrun(d);
        while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
            ;
        ptrace_reap(d);
    }
    d->emit = NULL;
    d->arg = NULL;
    return d->base.ended ? 1 : 0;
}

/* Start the timer at the interval, or stop it. */
static void ptrace_arm(struct clockdrv_ptrace *d, bool on)
{
    struct itimerspec its = {0};
    if (on) {
        its.it_interval.tv_sec = d->cfg.interval_us / 1000000;
        its.it_interval.tv_nsec = (long)(d->cfg.interval_us % 1000000) * 1000;
        its.it_value = its.it_interval;
    }
    timerfd_settime(d->timerfd, 0, &its, NULL);
}

/* Resume the clock: what every thread ran and waited during the pause is
 * taken into its baseline, so that no sample stands for any of it. */
static void clockdrv_ptrace_clock_on(struct clockdrv *base)
{
    struct clockdrv_ptrace *d = (struct clockdrv_ptrace *)base;
    bool paused = d->base.paused, moved;
    d->base.paused = true;
    for (size_t i = 0; i < d->threads_alloc; i++) {
        struct ptrace_thread *t = &d->threads[i];
        if (t->slot == SLOT_USED && t->live)
            ptrace_look(d, t, 0, &moved);
    }
    d->base.paused = paused;
    ptrace_arm(d, true);
}

static void clockdrv_ptrace_clock_off(struct clockdrv *base)
{
    ptrace_arm((struct clockdrv_ptrace *)base, false);
}

/* Kill the program if it runs, let go of any other process it started (so
 * that EXITKILL does not take them down with profil), reap, release. */
static void clockdrv_ptrace_free(struct clockdrv *base)
{
    struct clockdrv_ptrace *d = (struct clockdrv_ptrace *)base;
    d->emit = NULL;
    if (d->timerfd >= 0)
        ptrace_arm(d, false);
    if (d->base.pid > 0 && !d->base.ended)
        kill(d->base.pid, SIGKILL);
    d->freeing = true;
    for (size_t i = 0; i < d->threads_alloc; i++) {
        struct ptrace_thread *t = &d->threads[i];
        if (t->slot == SLOT_USED) {
            t->detach = true;
            t->want = false;
            ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
        }
    }
    d->pending = 0;
    uint64_t deadline = clockdrv_now_ns() + PTRACE_DETACH_NS;
    while (d->threads_used > 0 || (d->base.pid > 0 && !d->base.ended)) {
        int st;
        pid_t r = waitpid(-1, &st, __WALL | WNOHANG);
        if (r > 0) {
            ptrace_event(d, r, st);
            continue;
        }
        if (r < 0 && errno != EINTR)
            break; /* ECHILD: nothing left */
        uint64_t now = clockdrv_now_ns();
        if (now >= deadline)
            break;
        ptrace_wait_chld(d, deadline - now);
    }
    for (size_t i = 0; i < d->threads_alloc; i++) {
        if (d->threads[i].slot == SLOT_USED)
            ptrace_thread_close(&d->threads[i]);
    }
    for (size_t i = 0; i < d->nprocs; i++) {
        free(d->procs[i]->maps);
        free(d->procs[i]);
    }
    free(d->procs);
    free(d->threads);
    free(d->stack_buf);
    free(d->buf);
    free(d->scratch);
    if (d->base.fd >= 0)
        close(d->base.fd);
    if (d->timerfd >= 0)
        close(d->timerfd);
    if (d->sigfd >= 0)
        close(d->sigfd);
    if (d->spare >= 0)
        close(d->spare);
    if (d->unblock_chld)
        sigprocmask(SIG_UNBLOCK, &d->chld, NULL);
    ptrace_unprioritize(d);
    free(d->base.note);
    free(d);
}

/* Let the tracer run as soon as its timer or a stop wakes it, even among
 * many runnable threads: the lowest real-time priority where we may have it
 * and the interval leaves the rest of the machine room, else a short time
 * slice (kernels from 6.12; older ones ignore it). */
static void ptrace_prioritize(struct clockdrv_ptrace *d)
{
    struct ptrace_sched_attr a = {.size = sizeof a};
    if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) < 0 || a.sched_policy != SCHED_OTHER)
        return;
    d->saved_attr = a;
    struct ptrace_sched_attr rt = {.size = sizeof rt,
                                   .sched_policy = SCHED_FIFO,
                                   .sched_flags = PTRACE_RESET_ON_FORK,
                                   .sched_priority = 1};
    if (d->cfg.interval_us >= PTRACE_FIFO_US && syscall(SYS_sched_setattr, 0, &rt, 0) == 0) {
        d->prioritized = d->fifo = true;
        return;
    }
    a.sched_runtime = 100000;
    a.sched_flags = 0;
    if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        d->prioritized = true;
}

/* Fork the program, seize it, then let it exec. */
static struct clockdrv *clockdrv_ptrace_start(const struct clockdrv_config *cfg,
                                              const struct launch *l, char **cause)
{
    struct clockdrv_ptrace *d = xcalloc(1, sizeof *d);
    d->base.ops = &clockdrv_ptrace_ops;
    d->base.fd = d->timerfd = d->sigfd = d->spare = -1;
    d->cfg = *cfg;
    if (d->cfg.stack_size == 0 || d->cfg.stack_size > USTACK_MAX)
        d->cfg.stack_size = USTACK_DEFAULT;
    if (d->cfg.stacks)
        d->stack_buf = xmalloc(d->cfg.stack_size);
    d->wall = cfg->clock == CLOCK_KIND_WALL;
    d->threads_alloc = 64;
    d->threads = xcalloc(d->threads_alloc, sizeof *d->threads);
    d->interval_ns = (uint64_t)cfg->interval_us * 1000;

    sigset_t old;
    sigemptyset(&d->chld);
    sigaddset(&d->chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &d->chld, &old);
    d->unblock_chld = !sigismember(&old, SIGCHLD);
    d->base.fd = epoll_create1(EPOLL_CLOEXEC);
    d->sigfd = signalfd(-1, &d->chld, SFD_NONBLOCK | SFD_CLOEXEC);
    d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->base.fd < 0 || d->sigfd < 0 || d->timerfd < 0) {
        *cause = xasprintf("ptrace: cannot set up the clock: %s", strerror(errno));
        clockdrv_ptrace_free(&d->base);
        return NULL;
    }
    struct epoll_event ev = {.events = EPOLLIN};
    epoll_ctl(d->base.fd, EPOLL_CTL_ADD, d->sigfd, &ev);
    epoll_ctl(d->base.fd, EPOLL_CTL_ADD, d->timerfd, &ev);

    struct spawn sp;
    if (spawn_prepare(&sp, l, cause) < 0) {
        clockdrv_ptrace_free(&d->base);
        return NULL;
    }
    /* Two files per thread: as many as we may, now that the program has
     * its own limit. */
    struct rlimit rl;
    d->nofile = RLIM_INFINITY;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
            getrlimit(RLIMIT_NOFILE, &rl);
        }
        d->nofile = rl.rlim_cur;
    }
    d->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (ptrace(PTRACE_SEIZE, sp.pid, 0, PTRACE_OPTIONS) < 0) {
        *cause = xasprintf("ptrace: cannot trace the program: %s", strerror(errno));
        spawn_abort(&sp);
        clockdrv_ptrace_free(&d->base);
        return NULL;
    }
    /* Not sampled until its exec: nothing of the waiting child is the program. */
    struct ptrace_thread *t = ptrace_thread_add(d, sp.pid, sp.pid);
    t->live = false;
    t->held = true;
    ptrace_proc_add(d, sp.pid);
    if (spawn_go(&sp, l, cause) < 0) {
        d->base.ended = true; /* spawn_go reaped it */
        t->slot = SLOT_GONE;
        d->threads_used = 0;
        clockdrv_ptrace_free(&d->base);
        return NULL;
    }
    d->base.pid = sp.pid;
    ptrace_prioritize(d);
    ptrace_arm(d, true);
    return &d->base;
}

const struct clockdrv_ops clockdrv_ptrace_ops = {
    .name = "ptrace",
    .probe = clockdrv_ptrace_probe,
    .start = clockdrv_ptrace_start,
    .drain = clockdrv_ptrace_drain,
    .clock_on = clockdrv_ptrace_clock_on,
    .clock_off = clockdrv_ptrace_clock_off,
    .free = clockdrv_ptrace_free,
};
