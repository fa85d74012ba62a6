/* recurse.c - deep stacks: recurse(n) calls itself until it is n frames
 * deep (300 unless told), burns CPU in bottom() there, returns all the way
 * up and starts again.  Nearly every sample's stack holds exactly n recurse
 * frames; a profile must neither cut them nor count recurse more than once
 * per sample. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BOTTOM_ITERS   200000
#define DEFAULT_DEPTH  300
#define DEFAULT_ROUNDS 4600

static volatile uint64_t sink;

/* Burn CPU at the bottom of the recursion. */
__attribute__((noinline, noipa)) static uint64_t bottom(void)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < BOTTOM_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
    return x;
}

/* Go n frames deep, bottom() at the last.  The asm uses the result after
 * each call, so gcc can turn neither call into a jump or a loop; the frame
 * stays small (16 bytes), so 300 of them fit in an 8 KB stack copy. */
__attribute__((noinline, noipa)) static uint64_t recurse(long n)
{
    uint64_t r;

    if (n <= 1)
        r = bottom();
    else
        r = recurse(n - 1);
    __asm__ volatile("" : "+r"(r) : : "memory");
    return r + 1;
}

/* Recurse `rounds` times to the given depth: recurse [DEPTH [ROUNDS]]. */
int main(int argc, char **argv)
{
    long depth = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_DEPTH;
    long rounds = argc > 2 ? strtol(argv[2], NULL, 10) : DEFAULT_ROUNDS;
    uint64_t r = 0;
    long i;

    printf("recurse: %ld rounds %ld frames deep\n", rounds, depth);
    fflush(stdout);
    for (i = 0; i < rounds; i++) {
        r += recurse(depth);
        __asm__ volatile("" : "+r"(r) : : "memory");
    }
    printf("recurse: done, %016llx\n", (unsigned long long)r);
    return 0;
}
