/* lockstep.c - a program in step with a clock: of every 1,000 us period of
 * CLOCK_MONOTONIC it spends the first 200 us in in_step and the other 800 us
 * in out_of_step, busy the whole time.  A sampling clock that ticks every
 * 1,000 us sees the same phase again and again; one that is jittered sees
 * every phase.  It runs for SECONDS (default 1) and says at its end what
 * share of its CPU time in_step really had (by its thread's CPU clock, so
 * that time it spent preempted on a busy machine does not count):
 *   lockstep: in_step 19.87%
 * Each phase ends by reading that clock, a real system call, and the
 * program counts the call's time in the phase it ends; so each phase reads
 * it from a function of its own, in_step_done and out_of_step_done, and a
 * profile can count those samples where the program does.  (A driver whose
 * samples arrive late lands some of them at that system call's return: at
 * the end of the phase they were taken in.)
 * usage: lockstep [SECONDS] [PERIOD_US] [IN_STEP_US] */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* Spin until the clock reaches END; returns the time it stopped at. */
__attribute__((noinline, noipa)) static uint64_t in_step(uint64_t end)
{
    uint64_t t;
    while ((t = now_ns()) < end)
        sink++;
    return t;
}

/* The same spin, as another function. */
__attribute__((noinline, noipa)) static uint64_t out_of_step(uint64_t end)
{
    uint64_t t;
    while ((t = now_ns()) < end)
        sink += 2;
    return t;
}

static uint64_t cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The CPU clock read at the end of in_step's phase. */
__attribute__((noinline, noipa)) static uint64_t in_step_done(void)
{
    return cpu_ns();
}

/* The same, at the end of out_of_step's phase. */
__attribute__((noinline, noipa)) static uint64_t out_of_step_done(void)
{
    return cpu_ns();
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    uint64_t period = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1000) * 1000;
    uint64_t first = (argc > 3 ? strtoull(argv[3], NULL, 10) : 200) * 1000;
    if (!(seconds > 0) || period == 0 || first >= period) {
        fprintf(stderr, "usage: lockstep [SECONDS] [PERIOD_US] [IN_STEP_US]\n");
        return 2;
    }
    uint64_t t = now_ns(), end = t + (uint64_t)(seconds * 1e9), in = 0, all = 0;
    uint64_t c = cpu_ns();
    while (t < end) {
        uint64_t base = t - t % period, c0 = c;
        bool step = t < base + first;
        t = step ? in_step(base + first) : out_of_step(base + period);
        c = step ? in_step_done() : out_of_step_done();
        in += step ? c - c0 : 0;
        all += c - c0;
    }
    printf("lockstep: in_step %.2f%%\n", all ? 100.0 * (double)in / (double)all : 0.0);
    return 0;
}
