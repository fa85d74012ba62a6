/* callpaths.c - one leaf reached by two call paths: path_a calls leaf() for
 * 70 % of the work and path_b for 30 %, interleaved in small slices, so a
 * profile with stacks must split leaf's time 70:30 between its callers.
 * Each slice of ten units runs seven through path_a and three through
 * path_b in a shuffled order: a fixed order beats against the sampling
 * clock (perf at 1 kHz saw path_a anywhere from 65.9 to 72.5 %), a shuffled
 * one leaves only the binomial spread of the sample count.
 * Built twice: callpaths (-O2, no frame pointers: only CFI unwinds it) and
 * callpaths-fp (-fno-omit-frame-pointer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT_ITERS     20000
#define SLICES         100
#define DEFAULT_ROUNDS 48

static volatile uint64_t sink;

/*
 * noipa keeps each function a function of its own (no inlining, cloning or
 * folding), and the empty asm after each call uses its result, so no call
 * becomes a tail call and every caller keeps its frame on the stack.
 */

/* Burn n units of CPU: all of the program's time is spent here. */
__attribute__((noinline, noipa)) static uint64_t leaf(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
    return x;
}

/* The 70 % path: n units, one leaf call per unit. */
__attribute__((noinline, noipa)) static uint64_t path_a(long n)
{
    uint64_t r = 0;
    long i;

    for (i = 0; i < n; i++) {
        r += leaf(1);
        __asm__ volatile("" : "+r"(r) : : "memory");
    }
    return r;
}

/* The 30 % path: the same leaf, the same way. */
__attribute__((noinline, noipa)) static uint64_t path_b(long n)
{
    uint64_t r = 0;
    long i;

    for (i = 0; i < n; i++) {
        r += leaf(1);
        __asm__ volatile("" : "+r"(r) : : "memory");
    }
    return r;
}

/* Run the two paths 7:3 in slices of ten units, each slice shuffled. */
int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ROUNDS;
    char order[10] = {1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
    uint64_t seed = 42, r = 0;
    long i, s;
    int k, j;
    char t;

    printf("callpaths: %ld rounds of %d slices (path_a:path_b = 7:3)\n", rounds, SLICES);
    fflush(stdout);
    for (i = 0; i < rounds; i++) {
        for (s = 0; s < SLICES; s++) {
            for (k = 9; k > 0; k--) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                j = (int)((seed >> 33) % (uint64_t)(k + 1));
                t = order[k];
                order[k] = order[j];
                order[j] = t;
            }
            for (k = 0; k < 10; k++) {
                r += order[k] ? path_a(1) : path_b(1);
                __asm__ volatile("" : "+r"(r) : : "memory");
            }
        }
    }
    printf("callpaths: done, %016llx\n", (unsigned long long)r);
    return 0;
}
