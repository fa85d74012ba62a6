/* twice.c - two builds of one program for profil --diff: work_a, work_b and
 * work_c take 40, 40 and 20 % of the work; built with -DFAST (twice-fast),
 * work_b does its work in half the time, as if someone made it twice as
 * fast, and the others are as they were.
 * usage: twice [ROUNDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT_ITERS 20000
#ifdef FAST
#define B_UNITS 2
#else
#define B_UNITS 4
#endif

static volatile uint64_t sink;

#define WORK(name)                                                                                 \
    __attribute__((noinline, noipa, aligned(64))) static void name(long n)                        \
    {                                                                                              \
        uint64_t x = sink | 1;                                                                     \
        for (long i = 0; i < n * UNIT_ITERS; i++) {                                                \
            x ^= x << 13;                                                                          \
            x ^= x >> 7;                                                                           \
            x ^= x << 17;                                                                          \
            sink = x;                                                                              \
        }                                                                                          \
    }

WORK(work_a)
WORK(work_b)
WORK(work_c)

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 30;
    for (long r = 0; r < rounds; r++) {
        for (int s = 0; s < 100; s++) {
            work_a(4);
            work_b(B_UNITS);
            work_c(2);
        }
    }
    printf("twice: %ld rounds, work_b %d units\n", rounds, B_UNITS);
    return 0;
}
