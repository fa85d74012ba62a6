/* ctlbench: what profil_on, profil_off and profil_mark cost a program that
 * does not run under profil (make bench): nanoseconds per call, the best
 * of several rounds, beside an empty call through the same kind of pointer
 * for scale.  Run under profil (PROFIL_CONTROL set), it times the round
 * trips instead. */
#include <profil/control.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noinline)) static void empty(void)
{
    __asm__ volatile("" ::: "memory");
}

static void mark(void)
{
    profil_mark("bench");
}

/* The best time per call of FN over ROUNDS rounds of N calls. */
static double per_call(void (*volatile fn)(void), long n, int rounds)
{
    double best = 1e300;
    for (int r = 0; r < rounds; r++) {
        double t0 = ns_now();
        for (long i = 0; i < n; i++)
            fn();
        double t = (ns_now() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    if (n < 1)
        n = 1;
    int under = getenv("PROFIL_CONTROL") != NULL;
    if (under && argc <= 1)
        n = 2000; /* round trips: far slower */
    printf("%-14s %10s\n", "call", "ns/call");
    printf("%-14s %10.2f\n", "(empty call)", per_call(empty, n, 5));
    printf("%-14s %10.2f\n", "profil_on", per_call(profil_on, n, 5));
    printf("%-14s %10.2f\n", "profil_off", per_call(profil_off, n, 5));
    printf("%-14s %10.2f\n", "profil_mark", per_call(mark, under ? n / 10 + 1 : n, 5));
    return 0;
}
