/*
 * The perf driver's jittered periods: the period each CPU's clock event had
 * from when (clockdrv_perf_period_given), the ticks a sample counts by it
 * (clockdrv_perf_ticks), and new periods every PERF_JITTER_PERIODS
 * (clockdrv_perf_jitter).
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "util/xmalloc.h"

#include <linux/perf_event.h>
#include <math.h>
#include <sys/ioctl.h>

/* How often the clock events get new periods, in periods (see clockdrv_perf_jitter).
 * A period held for long can fall in step with a program for all of it:
 * at 128, 3 of 40 runs of tests/progs/lockstep were 4 points off (sd 1.71
 * against a binomial 1.41); at 32, none (sd 1.06).  The change comes at the
 * first drain after that, every 50 ms on a quiet ring; a timer for every
 * 8 ms made no difference in 100 runs (docs/statistics.md). */
#define PERF_JITTER_PERIODS 32

/* Remember that PC's clock event has PERIOD from TIME on (a failed open
 * is tried again with the same CPU: the later entry wins). */
void clockdrv_perf_period_given(struct perf_cpu *pc, uint64_t time, uint64_t period)
{
    if (pc->nperiods > 0 && pc->periods[pc->nperiods - 1].time >= time) {
        pc->periods[pc->nperiods - 1] = (struct perf_period){time, period};
        return;
    }
    pc->periods =
        xgrowarray(pc->periods, &pc->periods_alloc, pc->nperiods + 1, sizeof *pc->periods);
    pc->periods[pc->nperiods++] = (struct perf_period){time, period};
}

/* The periods entry of CPU's clock event in force at TIME (PC has some). */
static size_t perf_period_at(const struct perf_cpu *pc, uint64_t time)
{
    size_t lo = 0, hi = pc->nperiods; /* the last one given at or before TIME */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pc->periods[mid].time <= time)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The ticks a sample counts.  With exact periods, one.  Jittered, each
 * sample stands for the period that ended in it, w intervals: it counts
 * floor(w), and one more with the probability of w's fraction, so that the
 * ticks add up to the CPU time on average (0.1 % off in 1,000 samples).
 * Not rounded with the rest carried, as the ptrace driver counts: within a
 * stretch of equal periods a carry drops or doubles every k-th sample, and
 * a period near half the interval made the kept ones a lattice in step
 * with the program again.  The period is the one its CPU's events had at
 * the time (see clockdrv_perf_jitter); the sample's own PERF_SAMPLE_PERIOD cannot
 * say: for cpu-clock it stays the first period the event had.
 * A change of period starts the event's period anew, and the part of the
 * old one that had passed is never sampled: the first sample after a
 * change stands for that part too, half the old period on average (the
 * change comes at a time unrelated to the program's phase), or the run's
 * CPU time would come out 1/64th short. */
uint32_t clockdrv_perf_ticks(struct clockdrv_perf *d, const struct perf_rec *r)
{
    if (d->jitter.frac == 0)
        return 1;
    struct perf_cpu *pc = r->cpu < d->ncpus ? &d->cpus[r->cpu] : NULL;
    double w = 1;
    if (pc != NULL && pc->nperiods > 0) {
        size_t k = perf_period_at(pc, r->time);
        w = (double)pc->periods[k].period / (double)d->period_ns;
        if (pc->sampled && k > pc->last_period)
            w += (double)pc->periods[pc->last_period].period / (2.0 * (double)d->period_ns);
        pc->last_period = k;
        pc->sampled = true;
    }
    double n = floor(w);
    if (clockdrv_jitter_u01(&d->jitter) < w - n)
        n += 1;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* New periods for the clock events, every PERF_JITTER_PERIODS periods or so
 * (not per sample: an ioctl per CPU each time), from PERF_JITTER_WAIT_NS
 * after the start.  The kernel starts an event that is running anew from
 * the change, so the part of a period that had passed goes unsampled, half
 * a period in PERF_JITTER_PERIODS on average: clockdrv_perf_ticks counts it in the
 * next sample.
 * Only a program of one thread is jittered.  The events profil opened are
 * the program's first thread's; a thread or process the program creates is
 * given copies with the period they have at that moment, for good, and the
 * kernel swaps the copies between the threads of a process when it switches
 * from one to another, so no sample could say which period it ended.  At
 * the first fork record the periods stop changing: every event on a CPU,
 * the first thread's and the copies alike, then has that CPU's period of
 * the moment, a random one, for the rest of the run. */
void clockdrv_perf_jitter(struct clockdrv_perf *d, uint64_t now)
{
    if (d->jitter.frac == 0 || d->jitter_done || d->base.ended)
        return;
    if (d->jitter_stop) {
        d->jitter_done = true;
        clockdrv_perf_note_jitter(d);
        return;
    }
    if (d->jitter_at == 0)
        d->jitter_at = now + PERF_JITTER_PERIODS * d->period_ns;
    if (now < d->jitter_at)
        return;
    for (int i = 0; i < d->ncpus; i++) {
        uint64_t period = clockdrv_jitter_next(&d->jitter);
        uint64_t at = clockdrv_now_ns(); /* before: a sample after it has the new period */
        if (d->cpus[i].fd >= 0 && ioctl(d->cpus[i].fd, PERF_EVENT_IOC_PERIOD, &period) == 0)
            clockdrv_perf_period_given(&d->cpus[i], at, period);
    }
    d->jitter_at = now + PERF_JITTER_PERIODS * d->period_ns;
}
