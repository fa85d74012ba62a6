/*
 * Blocked threads in the perf driver's wall clock: a blocked stretch turned
 * into I/O ticks (clockdrv_perf_credit), but not a wait for profil's own
 * answer (clockdrv_perf_hushed), with the stack where the thread blocked:
 * the context-switch sample's (clockdrv_perf_keep_stack) or, without a
 * switch event, what a scan of its syscall file saw (clockdrv_perf_scan).
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "clockdrv/ustack.h"
#include "util/xmalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static void perf_blocked_stack(struct clockdrv_perf *d, struct perf_thread *t, uint64_t now);

/* Whether T's switch-out at TIME is a wait for profil's answer; requests
 * answered before TIME are forgotten (the records come in order of time). */
bool clockdrv_perf_hushed(struct perf_thread *t, uint64_t time)
{
    if (t->nhush == 0)
        return false;
    uint8_t gone = 0;
    while (gone < t->nhush && t->hush[gone].until < time)
        gone++;
    memmove(t->hush, t->hush + gone, (t->nhush - gone) * sizeof t->hush[0]);
    t->nhush -= gone;
    return t->nhush > 0 && time >= t->hush[0].from;
}

/* Turn blocked time up to NOW into I/O ticks for thread T. */
void clockdrv_perf_credit(struct clockdrv_perf *d, struct perf_thread *t, uint64_t now,
                          clockdrv_emit_fn emit, void *arg)
{
    if (t->blocked && t->since < d->resumed_at) {
        t->since = d->resumed_at;
        t->carry = 0;
    }
    if (!t->blocked || now <= t->since)
        return;
    if (t->hushed) { /* waiting for profil's answer */
        t->since = now;
        return;
    }
    uint64_t ns = now - t->since + t->carry;
    t->since = now;
    t->carry = ns % d->period_ns;
    uint64_t ticks = ns / d->period_ns;
    if (ticks == 0)
        return;
    struct event ev = {.type = EVENT_SAMPLE, .pid = t->pid, .tid = t->tid, .time_ns = now};
    ev.sample.mode = SAMPLE_BLOCKED;
    if (d->scan_fd >= 0 && !t->bvalid)
        perf_blocked_stack(d, t, now);
    if (t->bvalid)
        ev.sample.stack = &t->bstack;
    while (ticks > 0) {
        ev.sample.count = ticks > UINT32_MAX ? UINT32_MAX : (uint32_t)ticks;
        ticks -= ev.sample.count;
        emit(arg, &ev);
    }
}

/* A context-switch sample: keep where T was, to charge its blocked time to. */
void clockdrv_perf_keep_stack(struct clockdrv_perf *d, const struct perf_rec *r)
{
    struct perf_thread *t = clockdrv_perf_thread(d, r->tid, false);
    if (t == NULL || !r->has_stack)
        return;
    struct event_stack st;
    clockdrv_perf_stack(d, r, &st);
    if (t->bdata == NULL)
        t->bdata = xmalloc(d->cfg.stack_size > 0 ? d->cfg.stack_size : 1);
    uint32_t n = st.size < d->cfg.stack_size ? st.size : d->cfg.stack_size;
    memcpy(t->bdata, st.data, n);
    t->bstack = st;
    t->bstack.kernel = NULL; /* the scheduler's own frames say nothing of the wait */
    t->bstack.nkernel = 0;
    t->bstack.data = t->bdata;
    t->bstack.size = n;
    t->bvalid = st.user;
}

/* Without a switch event (kernel.perf_event_paranoid 2): T's stack in its
 * blocked stretch up to NOW, as a scan saw it (clockdrv_perf_scan), if one did: a
 * wait shorter than a scan's period may go without. */
static void perf_blocked_stack(struct clockdrv_perf *d, struct perf_thread *t, uint64_t now)
{
    pthread_mutex_lock(&d->scan_lock);
    /* A wait seen before this stretch began is of no later one either: its
     * snap goes, its buffer to the end of the ring to be used again. */
    uint8_t gone = 0;
    while (gone < t->nsnaps && t->snaps[gone].last < t->bstart)
        gone++;
    if (gone > 0) {
        struct perf_snap old[PERF_SNAPS];
        memcpy(old, t->snaps, gone * sizeof *old);
        memmove(t->snaps, t->snaps + gone, (PERF_SNAPS - gone) * sizeof *t->snaps);
        memcpy(t->snaps + PERF_SNAPS - gone, old, gone * sizeof *old);
        t->nsnaps -= gone;
    }
    for (uint8_t i = 0; i < t->nsnaps; i++) {
        const struct perf_snap *sn = &t->snaps[i];
        if (sn->first > now)
            break;
        if (t->bdata == NULL)
            t->bdata = xmalloc(d->cfg.stack_size > 0 ? d->cfg.stack_size : 1);
        t->bstack = sn->st;
        memcpy(t->bdata, sn->data, sn->st.size);
        t->bstack.data = t->bdata;
        t->bvalid = true;
        break;
    }
    pthread_mutex_unlock(&d->scan_lock);
}

/* Whether the scan timer has fired since it was last asked. */
bool clockdrv_perf_scan_due(struct clockdrv_perf *d)
{
    uint64_t ticks;
    return d->scan_fd >= 0 && read(d->scan_fd, &ticks, sizeof ticks) == (ssize_t)sizeof ticks;
}

/* Set the scan timer to fire every SCAN_NS. */
static void perf_scan_arm(struct clockdrv_perf *d)
{
    struct timespec every = {(time_t)(d->scan_ns / 1000000000u), (long)(d->scan_ns % 1000000000u)};
    struct itimerspec its = {every, every};
    timerfd_settime(d->scan_fd, 0, &its, NULL);
}

/* The times thread T was put on a CPU (schedstat's third number), or 0. */
static uint64_t perf_runs(const struct perf_thread *t)
{
    char path[64], line[128];
    uint64_t exec, delay, runs;
    snprintf(path, sizeof path, "/proc/%u/task/%u/schedstat", t->pid, t->tid);
    if (clockdrv_proc_read(path, line, sizeof line) <= 0 ||
        !clockdrv_schedstat_parse(line, &exec, &delay, &runs))
        return 0;
    return runs;
}

/* Read where each blocked thread is, from its syscall file, as the ptrace
 * driver does at its ticks; a thread still in the wait it was seen in last
 * time (not put on a CPU since) is not read again: a new wait is, even at
 * the same stack pointer and PC (another caller may have the same depth).
 * A scan whose own CPU time is over a quarter of its period doubles the
 * period, up to 64 ticks; one under a sixteenth halves it, down to one.
 * CPU time, not the wall clock: profil preempted mid-scan on a busy machine
 * (the suite's two tests at a time, under the sanitizers, as a user) once
 * doubled the period for good, and 7 % of blockcall's samples went by
 * without their stacks.  With the scan lock held: by the copier where there
 * is one, else by the drain. */
void clockdrv_perf_scan(struct clockdrv_perf *d)
{
    uint64_t t0 = clockdrv_cpu_ns();
    for (size_t i = 0; i < d->threads_alloc; i++) {
        struct perf_thread *t = &d->threads[i];
        char path[64], line[256];
        struct event_stack st = {0};
        if (!t->used || t->pid == 0)
            continue;
        snprintf(path, sizeof path, "/proc/%u/task/%u/syscall", t->pid, t->tid);
        if (clockdrv_proc_read(path, line, sizeof line) <= 0 || strncmp(line, "running", 7) == 0 ||
            !ustack_regs_syscall(line, &st))
            continue;
        uint64_t now = clockdrv_now_ns(), runs = perf_runs(t);
        struct perf_snap *sn = t->nsnaps > 0 ? &t->snaps[t->nsnaps - 1] : NULL;
        if (sn != NULL && runs != 0 && sn->runs == runs &&
            sn->st.regs[EVENT_REG_SP] == st.regs[EVENT_REG_SP] &&
            sn->st.regs[EVENT_REG_PC] == st.regs[EVENT_REG_PC]) {
            sn->last = now;
            continue;
        }
        if (t->snaps == NULL)
            t->snaps = xcalloc(PERF_SNAPS, sizeof *t->snaps);
        if (t->nsnaps == PERF_SNAPS) { /* the oldest goes, its buffer used again */
            struct perf_snap old = t->snaps[0];
            memmove(t->snaps, t->snaps + 1, (PERF_SNAPS - 1) * sizeof *t->snaps);
            t->snaps[PERF_SNAPS - 1] = old;
            t->nsnaps--;
        }
        sn = &t->snaps[t->nsnaps++];
        if (sn->data == NULL)
            sn->data = xmalloc(d->cfg.stack_size > 0 ? d->cfg.stack_size : 1);
        sn->st = st;
        ustack_copy((pid_t)t->pid, &sn->st, sn->data, d->cfg.stack_size);
        sn->st.kernel = NULL;
        sn->st.nkernel = 0;
        sn->first = sn->last = now;
        sn->runs = runs;
    }
    uint64_t took = clockdrv_cpu_ns() - t0;
    if (took > d->scan_ns / 4 && d->scan_ns < 64 * d->period_ns) {
        d->scan_ns *= 2;
        perf_scan_arm(d);
    } else if (took < d->scan_ns / 16 && d->scan_ns > d->period_ns) {
        d->scan_ns /= 2;
        perf_scan_arm(d);
    }
}

/* clockdrv_perf_scan from the drain, where there is no copier to scan. */
void clockdrv_perf_scan_locked(struct clockdrv_perf *d)
{
    pthread_mutex_lock(&d->scan_lock);
    clockdrv_perf_scan(d);
    pthread_mutex_unlock(&d->scan_lock);
}

/* Scan the blocked threads every tick when no switch event can say where
 * they block. */
void clockdrv_perf_scan_start(struct clockdrv_perf *d)
{
    if (d->scan_fd >= 0 || !d->cfg.stacks || !d->wall || !d->exclude_kernel)
        return;
    d->scan_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->scan_fd < 0)
        return;
    d->scan_ns = d->period_ns;
    perf_scan_arm(d);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = PERF_SCAN_KEY};
    epoll_ctl(d->base.fd, EPOLL_CTL_ADD, d->scan_fd, &ev);
}
