/* qsortcb.c - a callback through libc: main calls sorter(), sorter() calls
 * qsort(3), and qsort's internals call back the comparator cmp_slow(), which
 * burns a little CPU per call.  Nearly all samples land in cmp_slow, and
 * their stacks must climb through libc to sorter and main. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NELEM          4096
#define CMP_ITERS      100
#define DEFAULT_ROUNDS 210

static volatile uint64_t sink;

/* Compare two longs, after burning CMP_ITERS steps of CPU. */
__attribute__((noinline, noipa)) static int cmp_slow(const void *pa, const void *pb)
{
    long a = *(const long *)pa, b = *(const long *)pb;
    uint64_t x = sink | 1;
    int i;

    for (i = 0; i < CMP_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        __asm__ volatile("" : "+r"(x));
    }
    sink = x;
    return (a > b) - (a < b);
}

/* Fill v with a fresh pseudo-random permutation of its indices. */
__attribute__((noinline, noipa)) static void shuffle(long *v, long n, uint64_t *seed)
{
    long i, j, t;

    for (i = 0; i < n; i++)
        v[i] = i;
    for (i = n - 1; i > 0; i--) {
        *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
        j = (long)((*seed >> 33) % (uint64_t)(i + 1));
        t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Sort v with qsort and cmp_slow; the checksum uses the sorted order, so the
 * qsort call is not a tail call. */
__attribute__((noinline, noipa)) static long sorter(long *v, long n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_slow);
    __asm__ volatile("" : : "r"(v) : "memory");
    return v[0] + v[n / 2] * 3 + v[n - 1] * 7;
}

/* Shuffle and sort the same array `rounds` times. */
int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ROUNDS;
    static long v[NELEM];
    uint64_t seed = 42;
    long i, sum = 0;

    printf("qsortcb: %ld rounds of qsort over %d longs\n", rounds, NELEM);
    fflush(stdout);
    for (i = 0; i < rounds; i++) {
        shuffle(v, NELEM, &seed);
        sum += sorter(v, NELEM);
        __asm__ volatile("" : "+r"(sum) : : "memory");
    }
    printf("qsortcb: done, checksum %ld\n", sum);
    return 0;
}
