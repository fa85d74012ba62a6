/*
 * A hot function inlined into two callers (built with -O2): caller_a asks it
 * for three times the work caller_b does, so mix has all the time, caller_a
 * 75 % of it and caller_b 25 %.  Usage: inl [ROUNDS] (10 million steps a round
 * on average; rounds of random lengths, so that no sampling period falls in
 * step with them).
 */
#include <stdlib.h>

static volatile unsigned long sink;
static volatile long steps;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, long n)
{
    for (long i = 0; i < n; i++) x = x * 2862933555777941757ul + 3037000493ul; /* MIXLINE */
    return x;
}

__attribute__((noinline)) static unsigned long caller_a(long n)
{
    return mix(1, 3 * n); /* CALLA */
}

__attribute__((noinline)) static unsigned long caller_b(long n)
{
    return mix(2, n); /* CALLB */
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 30;
    srand(1);
    for (long r = 0; r < rounds; r++) {
        steps = 5000000 + rand() % 10000000;
        sink = caller_a(steps) + caller_b(steps);
    }
    return 0;
}
