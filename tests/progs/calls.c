/* calls.c - a known call structure for the call-stack views: main calls
 * path_a and path_b, and each calls leaf; path_a's leaf works four times as
 * long as path_b's (a margin no sampling noise closes), and each path also
 * works a little itself.  noipa keeps every
 * function its own (gcc -O2 would merge identical bodies). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT_ITERS     200000
#define DEFAULT_ROUNDS 1000

static volatile uint64_t sink;

static uint64_t jitter = 88172645463325252ull;

/* Up to a quarter of a unit, by a pseudo-random draw: each path works that
 * much more itself, so that a round has no fixed length for a fixed-rate
 * clock to beat against (rounds of about 1 ms once put every sample of a
 * 1 ms clock on path_b). */
static long extra(void)
{
    jitter ^= jitter << 13;
    jitter ^= jitter >> 7;
    jitter ^= jitter << 17;
    return (long)(jitter % (UNIT_ITERS / 4));
}

/* N units of work: the hot function every path ends in. */
__attribute__((noinline, noipa)) static void leaf(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    sink = x;
}

__attribute__((noinline, noipa)) static void path_a(long n)
{
    uint64_t x = sink + 3;
    for (long i = 0, m = n * UNIT_ITERS / 2 + extra(); i < m; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    leaf(4 * n);
    sink += x; /* after the call: no tail call, path_a stays on leaf's stack */
}

__attribute__((noinline, noipa)) static void path_b(long n)
{
    uint64_t x = sink + 5;
    for (long i = 0, m = n * UNIT_ITERS / 2 + extra(); i < m; i++)
        x = (x >> 1) ^ (-(x & 1) & 0xd800000000000000ull);
    leaf(n);
    sink += x;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ROUNDS;
    for (long r = 0; r < rounds; r++) {
        path_a(1);
        path_b(1);
    }
    printf("calls: %ld rounds\n", rounds);
    return 0;
}
