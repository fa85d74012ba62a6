#include "config.h"

#include "clockdrv/clockdrv.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void clockdrv_pause(struct clockdrv *d, bool paused)
{
    if (paused == d->paused)
        return;
    if (paused)
        d->ops->clock_off(d);
    else
        d->ops->clock_on(d);
    d->paused = paused;
}

void clockdrv_hush(struct clockdrv *d, pid_t tid, uint64_t since)
{
    uint64_t now = clockdrv_now_ns();
    if (d->ended || tid <= 0 || d->ops->hush == NULL)
        return;
    d->ops->hush(d, tid, since == 0 || since > now ? now : since);
}

void clockdrv_release(struct clockdrv *d)
{
    if (!d->attached || d->ended)
        return;
    d->ops->release(d);
    d->ended = d->released = true;
    d->threads = 0;
    clockdrv_unprioritize();
}

bool clockdrv_stop(struct clockdrv *d, int sig)
{
    if (d->pid <= 0 || d->ended || d->attached)
        return false;
    uint64_t now = clockdrv_now_ns();
    if (d->stop_at != 0 && now - d->stop_at < CLOCKDRV_ESCALATE_NS) {
        kill(d->pid, SIGKILL);
        return true;
    }
    kill(d->pid, sig);
    /* A stopped program (SIGSTOP, Ctrl-Z) would hold SIG until someone
     * continued it, and profil would wait with it. */
    kill(d->pid, SIGCONT);
    d->stop_at = now;
    return false;
}

void clockdrv_jitter_init(struct clockdrv_jitter *j, uint64_t mean_ns, double frac)
{
    j->mean_ns = mean_ns;
    j->frac = frac > 0 && frac < 1 ? frac : 0;
    if (getrandom(&j->state, sizeof j->state, GRND_NONBLOCK) != (ssize_t)sizeof j->state)
        j->state = clockdrv_now_ns() ^ ((uint64_t)getpid() << 32);
    j->state |= 1;
}

double clockdrv_jitter_u01(struct clockdrv_jitter *j)
{
    /* xorshift64*: plenty for spreading phases, and no lock as random() has. */
    j->state ^= j->state >> 12;
    j->state ^= j->state << 25;
    j->state ^= j->state >> 27;
    uint64_t r = j->state * 0x2545f4914f6cdd1dull;
    return (double)(r >> 11) / 9007199254740992.0;
}

uint64_t clockdrv_jitter_next(struct clockdrv_jitter *j)
{
    if (j->frac == 0)
        return j->mean_ns;
    double u = clockdrv_jitter_u01(j);
    double p = (double)j->mean_ns * (1 - j->frac + 2 * j->frac * u);
    return p < 1000 ? 1000 : (uint64_t)p;
}

uint64_t clockdrv_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t clockdrv_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int clockdrv_read_int(const char *path, int fallback)
{
    FILE *f = fopen(path, "re");
    int v = fallback;
    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = fallback;
        fclose(f);
    }
    return v;
}

#define CLOCKDRV_RESET_ON_FORK 1 /* SCHED_FLAG_RESET_ON_FORK */

/* What clockdrv_prioritize did: the policy was changed (to SCHED_FIFO when
 * fifo), saved is the old one; profil's CPU time at budget_at. */
static struct {
    bool prioritized, fifo;
    struct clockdrv_sched_attr saved;
    int slack; /* the timer slack before it was made 1 ns, or 0 */
    uint64_t budget_at, budget_cpu;
} sched;

void clockdrv_prioritize(bool fifo)
{
    if (sched.prioritized && (sched.fifo == fifo || !sched.fifo))
        return;
    if (sched.prioritized && clockdrv_unprioritize() < 0)
        return; /* SCHED_FIFO it stays: better than nothing */
    struct clockdrv_sched_attr a = {.size = sizeof a};
    if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) < 0 || a.sched_policy != SCHED_OTHER)
        return;
    sched.saved = a;
    struct clockdrv_sched_attr rt = {.size = sizeof rt,
                                     .sched_policy = SCHED_FIFO,
                                     .sched_flags = CLOCKDRV_RESET_ON_FORK,
                                     .sched_priority = 1};
    if (fifo && syscall(SYS_sched_setattr, 0, &rt, 0) == 0) {
        sched.prioritized = sched.fifo = true;
        sched.budget_at = clockdrv_now_ns();
        sched.budget_cpu = clockdrv_cpu_ns();
        return;
    }
    a.sched_runtime = 100000;
    a.sched_flags = 0;
    if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        sched.prioritized = true;
    /* Without SCHED_FIFO the kernel may fire profil's timer up to the slack
     * (50 us) late, to fire it with another: often the scheduler's tick, in
     * step with the wall clock.  Measured on a program in step with it
     * (tests/progs/lockstep): ptrace's shares spread 1.6-1.9 times as much as
     * binomial ones at the default slack, 1.0-1.5 times at 1 ns (root at FIFO: 0.9). */
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (sched.prioritized && slack > 1 && prctl(PR_SET_TIMERSLACK, 1ul, 0, 0, 0) == 0)
        sched.slack = slack;
}

int clockdrv_unprioritize(void)
{
    if (!sched.prioritized)
        return 0;
    sched.prioritized = sched.fifo = false;
    if (sched.slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)sched.slack, 0, 0, 0);
    sched.slack = 0;
    struct clockdrv_sched_attr a = sched.saved;
    if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        return 0;
    a.sched_flags |= CLOCKDRV_RESET_ON_FORK;
    if (errno == EPERM && syscall(SYS_sched_setattr, 0, &a, 0) == 0)
        return 0;
    return -errno;
}

bool clockdrv_fifo(void)
{
    return sched.fifo;
}

bool clockdrv_over_budget(uint64_t now, double share)
{
    if (!sched.fifo || now < sched.budget_at + 1000000000ull)
        return false;
    uint64_t cpu = clockdrv_cpu_ns();
    bool over = (double)(cpu - sched.budget_cpu) > share * (double)(now - sched.budget_at);
    sched.budget_at = now;
    sched.budget_cpu = cpu;
    return over;
}
