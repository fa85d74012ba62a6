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
 * (libc), not in I/O as perf would say.  Where an interrupt between CPUs
 * arrives late (55 us on average on the Firecracker machine this was measured
 * on, against perf's local timer), a thread that calls the kernel more often
 * than that stops at its next system call, not where the tick found it: the
 * driver counts the samples taken on the way back from one and says at the
 * end when they far outnumber the kernel's share of the CPU time.  ptrace
 * gives no mmap records:
 * /proc/PID/maps is read at each exec and whenever a sampled PC lies in no
 * executable mapping known, so dlopen'd libraries and JIT regions appear.
 *
 * Choices:
 * - Attached (-p): each thread is PTRACE_SEIZEd, which stops nothing and
 *   sends nothing (PTRACE_ATTACH's SIGSTOP would change what the program
 *   does), without PTRACE_O_EXITKILL: if profil dies the kernel detaches the
 *   process, which runs on; free() detaches every thread (see there).
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
 *   ones ignore it) and a timer slack of 1 ns (see clockdrv_prioritize).  A
 *   tick that still waits for a CPU comes at the scheduler's moment, in step
 *   with the wall clock: a program in step with it too is sampled in step
 *   (docs/performance.md).  The old policy comes back once the program has ended,
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

#include "clockdrv/ptrace.h"
#include "clockdrv/ptrace_proc.h"
#include "clockdrv/spawn.h"
#include "clockdrv/ustack.h"
#include "util/xmalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTRACE_OPTIONS                                                                             \
    (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |         \
     PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)
/* A process profil attached to must outlive profil: no EXITKILL. */
#define PTRACE_ATTACH_OPTIONS (PTRACE_OPTIONS & ~PTRACE_O_EXITKILL)
#define PTRACE_DETACH_NS      2000000000ull /* longest wait at free for the program to let go */

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

/* Reap every stop and end waiting, then run the tick if the timer expired. */
static int clockdrv_ptrace_drain(struct clockdrv *base, clockdrv_emit_fn emit, void *arg)
{
    struct clockdrv_ptrace *d = (struct clockdrv_ptrace *)base;
    d->emit = emit;
    d->arg = arg;
    if (d->attach_maps) {
        /* The mappings an attached process had before profil came. */
        d->attach_maps = false;
        d->now = clockdrv_now_ns();
        for (size_t i = 0; i < d->nprocs; i++) {
            d->procs[i]->nmaps = 0;
            ptrace_maps(d, d->procs[i]);
        }
        clockdrv_attach_threads(d->base.pid, d->now, emit, arg);
    }
    struct signalfd_siginfo si;
    while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        ;
    ptrace_reap(d);
    uint64_t n;
    if (!d->base.ended && read(d->timerfd, &n, sizeof n) == (ssize_t)sizeof n && n > 0 &&
        !d->base.paused) {
        if (d->jitter.frac > 0)
            n = ptrace_rearm(d);
        ptrace_tick(d, n);
        ptrace_overrun(d);
        while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
            ;
        ptrace_reap(d);
    }
    /* Attached after its main thread ended: a thread's exit is not the
     * only sign of the end (once profil went on waiting after the process
     * had gone, which exit went unseen not found): look every 100 ms. */
    if (!d->base.ended && d->base.attached) {
        uint64_t now = clockdrv_now_ns();
        if (now >= d->leaderless_at) {
            d->leaderless_at = now + 100000000ull;
            ptrace_leaderless_check(d);
        }
    }
    d->emit = NULL;
    d->arg = NULL;
    return d->base.ended ? 1 : 0;
}

/* Start the timer at the interval, or stop it. */
static void ptrace_arm(struct clockdrv_ptrace *d, bool on)
{
    struct itimerspec its = {0};
    if (on && d->jitter.frac > 0) {
        d->deadline = clockdrv_now_ns();
        ptrace_rearm(d);
        return;
    }
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

/* Only a thread blocked now is waiting for the answer: one still running
 * will find it there, or wait for it a moment. */
static void clockdrv_ptrace_hush(struct clockdrv *base, pid_t tid, uint64_t since)
{
    (void)since;
    struct clockdrv_ptrace *d = (struct clockdrv_ptrace *)base;
    struct ptrace_thread *t = ptrace_thread(d, tid);
    uint64_t exec, delay, runs;
    bool runnable;
    if (!d->wall || t == NULL || !t->live || !ptrace_runnable(d, t, &runnable) || runnable ||
        !ptrace_schedstat(d, t, &exec, &delay, &runs))
        return;
    t->hush = true;
    t->hush_runs = runs;
}

/* Kill the program if it runs, let go of any other process it started (so
 * that EXITKILL does not take them down with profil), reap, release.  An
 * attached process is let go of whole: each thread is interrupted (a
 * detach needs a stopped tracee) and detached at its stop with the signal
 * it was stopped for, if any, so that none is swallowed; a thread in a
 * group-stop stays stopped, as the kernel re-establishes it. */
static void ptrace_let_go(struct clockdrv_ptrace *d)
{
    if (d->let_go)
        return;
    d->let_go = true;
    d->emit = NULL;
    if (d->timerfd >= 0)
        ptrace_arm(d, false);
    if (d->base.pid > 0 && !d->base.ended && !d->base.attached)
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
    while (d->threads_used > 0 || (d->base.pid > 0 && !d->base.ended && !d->base.attached)) {
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
}

static void clockdrv_ptrace_release(struct clockdrv *base)
{
    ptrace_let_go((struct clockdrv_ptrace *)base);
}

static void clockdrv_ptrace_free(struct clockdrv *base)
{
    struct clockdrv_ptrace *d = (struct clockdrv_ptrace *)base;
    ptrace_let_go(d);
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

/* The driver's state with its clock set up but nothing traced; NULL and
 * *cause when the clock cannot be made. */
static struct clockdrv_ptrace *ptrace_new(const struct clockdrv_config *cfg, char **cause)
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
    clockdrv_jitter_init(&d->jitter, d->interval_ns, cfg->jitter);

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
    return d;
}

/* Two files per thread: as many as we may (once a program we start has
 * its own limit). */
static void ptrace_raise_nofile(struct clockdrv_ptrace *d)
{
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
}

/* Fork the program, seize it, then let it exec. */
static struct clockdrv *clockdrv_ptrace_start(const struct clockdrv_config *cfg,
                                              const struct launch *l, char **cause)
{
    struct clockdrv_ptrace *d = ptrace_new(cfg, cause);
    if (d == NULL)
        return NULL;
    struct spawn sp;
    if (spawn_prepare(&sp, l, cause) < 0) {
        clockdrv_ptrace_free(&d->base);
        return NULL;
    }
    ptrace_raise_nofile(d);
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
    clockdrv_prioritize(d->cfg.interval_us >= CLOCKDRV_FIFO_US);
    ptrace_arm(d, true);
    return &d->base;
}

/* Seize every thread of PID, scanning its task list again until a scan finds
 * none new: a thread made meanwhile by one already seized is ours through
 * PTRACE_O_TRACECLONE (a second seize says EPERM), one made by a thread not
 * yet seized is seized on the next scan.  PTRACE_SEIZE stops nothing and
 * sends nothing, unlike PTRACE_ATTACH's SIGSTOP; no PTRACE_O_EXITKILL: if
 * profil dies the kernel lets go of the process, which runs on. */
static struct clockdrv *clockdrv_ptrace_attach(const struct clockdrv_config *cfg, pid_t pid,
                                               char **cause)
{
    struct clockdrv_ptrace *d = ptrace_new(cfg, cause);
    if (d == NULL)
        return NULL;
    d->base.attached = true;
    d->base.pid = pid;
    ptrace_raise_nofile(d);
    /* Before the seizing: a process of many busy threads would starve it. */
    clockdrv_prioritize(d->cfg.interval_us >= CLOCKDRV_FIFO_US);
    for (int pass = 0;; pass++) {
        pid_t *tids;
        size_t n, added = 0;
        int r = clockdrv_tasks(pid, &tids, &n);
        if (r < 0) {
            *cause = clockdrv_attach_refusal("ptrace", pid, -r);
            clockdrv_ptrace_free(&d->base);
            return NULL;
        }
        for (size_t i = 0; i < n && r == 0; i++) {
            if (ptrace_thread(d, tids[i]) != NULL)
                continue;
            if (ptrace(PTRACE_SEIZE, tids[i], 0, PTRACE_ATTACH_OPTIONS) < 0) {
                int err = errno;
                if (err == ESRCH)
                    continue; /* it ended meanwhile */
                if (err != EPERM || clockdrv_tracer(tids[i]) != getpid()) {
                    r = -err;
                    break;
                }
            }
            struct ptrace_thread *t = ptrace_adopt(d, tids[i], 0);
            /* What it ran before profil came is no sample's; one asleep
             * since then is blocked from now (the ticks' look at it says
             * so only once it has moved). */
            if (ptrace_schedstat(d, t, &t->exec, &t->delay, &t->runs))
                t->seen = clockdrv_task_blocked(pid, tids[i]) ? SEEN_BLOCKED : SEEN_RUNNABLE;
            added++;
        }
        free(tids);
        if (r < 0 || (pass == 0 && added == 0)) {
            *cause = clockdrv_attach_refusal("ptrace", pid, r < 0 ? -r : ESRCH);
            clockdrv_ptrace_free(&d->base);
            return NULL;
        }
        if (added == 0)
            break;
    }
    d->attach_maps = true; /* handed over by the first drain */
    ptrace_arm(d, true);
    return &d->base;
}

const struct clockdrv_ops clockdrv_ptrace_ops = {
    .name = "ptrace",
    .probe = clockdrv_ptrace_probe,
    .start = clockdrv_ptrace_start,
    .attach = clockdrv_ptrace_attach,
    .drain = clockdrv_ptrace_drain,
    .clock_on = clockdrv_ptrace_clock_on,
    .clock_off = clockdrv_ptrace_clock_off,
    .hush = clockdrv_ptrace_hush,
    .release = clockdrv_ptrace_release,
    .free = clockdrv_ptrace_free,
};
