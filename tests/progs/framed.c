/* framed.c - shares.c's 50/30/20 split, but each work function keeps a
 * local array on its stack: the stack pointer moves in its prologue and
 * epilogue, so its call-frame information has several rows.  Stripped, each
 * function must still be one function (its FDE), not one per row. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT_ITERS     20000
#define SLICES         100
#define DEFAULT_ROUNDS 40

static volatile uint64_t sink;

/* n units of work in a function with a stack frame (noipa keeps three
 * copies; aligned(64) gives each loop the same placement). */
#define WORK(name)                                                                                 \
    __attribute__((noinline, noipa, aligned(64))) static void name(long n)                         \
    {                                                                                              \
        volatile uint64_t pad[512];                                                                \
        uint64_t x = sink | 1;                                                                     \
        for (long i = 0; i < n * UNIT_ITERS; i++) {                                                \
            x ^= x << 13;                                                                          \
            x ^= x >> 7;                                                                           \
            x ^= x << 17;                                                                          \
            pad[i & 511] = x;                                                                      \
        }                                                                                          \
        sink = x + pad[n & 511];                                                                   \
    }

WORK(work_a)
WORK(work_b)
WORK(work_c)

/* Interleave small slices so machine noise hits all three functions alike. */
int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ROUNDS;
    printf("framed: %ld rounds of %d slices (a:b:c = 5:3:2)\n", rounds, SLICES);
    fflush(stdout);
    for (long r = 0; r < rounds; r++) {
        for (long s = 0; s < SLICES; s++) {
            work_a(5);
            work_b(3);
            work_c(2);
        }
    }
    printf("framed: done, sink=%016llx\n", (unsigned long long)sink);
    return 0;
}
