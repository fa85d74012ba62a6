/* deep - the target of tests/bench/unwindbench: recurse DEPTH frames deep,
 * then burn CPU at the bottom through libc (memcpy, and qsort calling back
 * into this program), so that a stack passes through code without frame
 * pointers on both sides.  Built with -O2 -g -fomit-frame-pointer.
 *
 * Usage: deep [DEPTH [SORTS]]   (default 10, and no end)
 * Writes "ready" on stdout once at the bottom, then runs until killed, or
 * until it has sorted SORTS times (a fixed amount of work, for make bench).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEEP_N 200

static volatile unsigned sink;
static volatile size_t deep_n = DEEP_N;
static long long deep_sorts; /* 0: forever */

static int down(int, const unsigned *);
/* Through a volatile pointer, so that the recursion is neither inlined nor
 * turned into a loop. */
static int (*volatile descend)(int, const unsigned *) = down;

static int cmp(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

    return (x > y) - (x < y);
}

/* The bottom: sorting a fresh copy of random numbers, forever or SORTS
 * times; exit, not return, so that the stack stays deep to the end. */
__attribute__((noinline, noreturn)) static void burn(void)
{
    unsigned a[DEEP_N], b[DEEP_N], seed = 1;
    size_t n = deep_n;
    long long done = 0;

    printf("ready\n");
    fflush(stdout);
    for (;;) {
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i] = seed >> 8;
        }
        memcpy(b, a, n * sizeof a[0]);
        qsort(b, n, sizeof b[0], cmp);
        sink += b[n / 2];
        if (++done == deep_sorts)
            exit(0);
    }
}

/* One frame with a little state of its own, used after the call returns so
 * the call is not a tail call. */
__attribute__((noinline)) static int down(int n, const unsigned *up)
{
    unsigned local[8];

    for (int i = 0; i < 8; i++)
        local[i] = up[i] + (unsigned)(n * i);
    if (n <= 1)
        burn();
    return descend(n - 1, local) + (int)local[n & 7];
}

int main(int argc, char **argv)
{
    unsigned seed[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int depth = argc > 1 ? atoi(argv[1]) : 10;

    deep_sorts = argc > 2 ? atoll(argv[2]) : 0;
    if (depth < 1 || depth > 100000 || deep_sorts < 0) {
        fprintf(stderr, "usage: deep [DEPTH [SORTS]]\n");
        return 2;
    }
    return descend(depth, seed) & 1;
}
