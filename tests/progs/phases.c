/* phases.c - work_alpha for the first SECONDS_A of the run, then work_beta
 * for SECONDS_B (wall clock): a time window on either half must rank that
 * half's routine alone.  Usage: phases [SECONDS_A [SECONDS_B]]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Two copies of one loop, each for a while. */
#define WORK(fn)                                                                       \
    __attribute__((noinline, noipa)) static void fn(double until)                      \
    {                                                                                  \
        uint64_t x = sink | 1;                                                         \
        while (now() < until) {                                                        \
            for (int i = 0; i < 20000; i++)                                            \
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;               \
            sink = x;                                                                  \
        }                                                                              \
    }
WORK(work_alpha)
WORK(work_beta)

int main(int argc, char **argv)
{
    double a = argc > 1 ? strtod(argv[1], NULL) : 1.0, b = argc > 2 ? strtod(argv[2], NULL) : 1.0;
    double t0 = now();
    printf("phases: alpha %.1f s, then beta %.1f s\n", a, b);
    fflush(stdout);
    work_alpha(t0 + a);
    printf("phases: beta\n"); /* a script may mark the moment (windows.sh) */
    fflush(stdout);
    work_beta(t0 + a + b);
    printf("phases: done\n");
    return 0;
}
