/* shares.c - three identical loops run for 50/30/20 percent of the work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT_ITERS 20000
#define SLICES 100
#define DEFAULT_ROUNDS 53

static volatile uint64_t sink;

/*
 * work_a, work_b and work_c are exact copies; noipa stops gcc from folding
 * them into one symbol (-fipa-icf) and aligned(64) gives each loop the same
 * placement relative to cache lines, so per-iteration cost is identical.
 */

/* Mix the accumulator for n units of work. */
__attribute__((noinline, noipa, aligned(64))) static void work_a(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

/* Same body as work_a so per-iteration cost is identical. */
__attribute__((noinline, noipa, aligned(64))) static void work_b(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

/* Same body as work_a so per-iteration cost is identical. */
__attribute__((noinline, noipa, aligned(64))) static void work_c(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

/* Interleave small slices so machine noise hits all three functions alike. */
int main(int argc, char **argv)
{
    long rounds = DEFAULT_ROUNDS;
    long r, s;

    if (argc > 1)
        rounds = strtol(argv[1], NULL, 10);
    printf("shares: %ld rounds of %d slices (a:b:c = 5:3:2)\n", rounds, SLICES);
    fflush(stdout);
    for (r = 0; r < rounds; r++) {
        for (s = 0; s < SLICES; s++) {
            work_a(5);
            work_b(3);
            work_c(2);
        }
    }
    printf("shares: done, sink=%016llx\n", (unsigned long long)sink);
    return 0;
}
