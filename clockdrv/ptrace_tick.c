/*
 * The ptrace driver's tick (ptrace.c has the rest, and how the driver works in
 * its opening comment): on each expiration of the timer, which threads ran
 * since the last look; those that did are stopped (PTRACE_INTERRUPT), sampled
 * at their stop and let go at once; each stop and end is reaped and handed
 * over as events.
 */
#include "config.h"

#include "clockdrv/ptrace_proc.h"
#include "clockdrv/ustack.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTRACE_SPIN_NS        20000ull /* how long a tick polls for the stops that come at once */
#define PTRACE_OVERRUN_WINDOW 64       /* ticks over which overruns are counted */
#define PTRACE_OVERRUN_MAX    16       /* overruns in a window that give SCHED_FIFO up */

/* The PC of the stopped thread TID, and in *SYSNO the system call it stopped
 * on the way back from, or -1 (see ustack_regs_ptrace). */
static bool ptrace_pc(pid_t tid, uint64_t *pc, long *sysno)
{
    *sysno = -1;
#if defined(__x86_64__)
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
        return false;
    *pc = regs.rip;
    *sysno = (long)regs.orig_rax;
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
bool ptrace_look(struct clockdrv_ptrace *d, struct ptrace_thread *t, uint64_t time, bool *moved)
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
void ptrace_event(struct clockdrv_ptrace *d, pid_t tid, int st)
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
        if (t->live && !t->detach)
            ptrace_cputimes(d, t);
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
    long sysno;
    bool sampled;
    if (d->cfg.stacks) {
        stack = &d->stack;
        sampled = ustack_regs_ptrace(tid, stack, &sysno);
        pc = stack->regs[EVENT_REG_PC];
        ustack_copy(t->pid, stack, d->stack_buf, d->cfg.stack_size);
    } else {
        sampled = ptrace_pc(tid, &pc, &sysno);
    }
    bool looked = ptrace_look(d, t, now, &moved);
    ptrace(req, tid, 0, (long)inject);
    t->seen = req == PTRACE_LISTEN ? SEEN_BLOCKED : SEEN_RUNNABLE;
    if (looked && sampled && !d->base.paused) {
        uint64_t n = ptrace_take(d, t, false);
        d->ticks_sampled += n;
        if (sysno >= 0)
            d->ticks_at_syscall += n;
        ptrace_sample(d, t->pid, tid, pc, now, n, stack);
    }
}

/* Handle every report waiting. */
void ptrace_reap(struct clockdrv_ptrace *d)
{
    int st;
    pid_t r;
    while ((r = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
        ptrace_event(d, r, st);
}

/* Wait up to NS for a SIGCHLD. */
void ptrace_wait_chld(struct clockdrv_ptrace *d, uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    sigtimedwait(&d->chld, NULL, &ts);
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
void ptrace_tick(struct clockdrv_ptrace *d, uint64_t expirations)
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
            if (d->wall && !t->hush && ptrace_runnable(d, t, &runnable) && !runnable)
                ptrace_blocked(d, t, &blocked);
            continue;
        }
        if (!ptrace_look(d, t, d->now, &moved))
            continue;
        if (t->hush && t->runs != t->hush_runs)
            t->hush = false; /* profil's answer woke it */
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
        } else if (d->wall && !t->hush) {
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
    if (d->now >= d->comm_at) { /* a thread renamed itself (perf hears of it) */
        d->comm_at = d->now + PTRACE_COMM_NS;
        ptrace_comms(d);
    }
}

/* At SCHED_FIFO a tick whose own work outlasts the interval keeps a CPU from
 * everything else: when that happens in a quarter of the ticks, give it up. */
void ptrace_overrun(struct clockdrv_ptrace *d)
{
    if (!clockdrv_fifo())
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

/* The jittered timer is one-shot, each period drawn anew: the periods that
 * have ended by now (a late tracer may find several), with the timer set
 * for the end of the next. */
uint64_t ptrace_rearm(struct clockdrv_ptrace *d)
{
    uint64_t now = clockdrv_now_ns(), n = 0;
    while (d->deadline <= now) {
        d->deadline += clockdrv_jitter_next(&d->jitter);
        n++;
    }
    struct itimerspec its = {0};
    its.it_value.tv_sec = (time_t)(d->deadline / 1000000000u);
    its.it_value.tv_nsec = (long)(d->deadline % 1000000000u);
    timerfd_settime(d->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    return n > 0 ? n : 1;
}
