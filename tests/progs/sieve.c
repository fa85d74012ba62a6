/* sieve.c - port of the Dr. Dobb's TESTPROF.C sieve benchmark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALEN 8192
#define NBITS (ALEN * 8L)
#define DEFAULT_ROUNDS 2150

static unsigned char bits[ALEN];
static volatile long sink;

/* Set bit i so composites are remembered. */
__attribute__((noinline)) static void markbit(long i)
{
    bits[i >> 3] |= (unsigned char)(1u << (i & 7));
}

/* Report whether bit i is set, kept separate so it shows up in profiles. */
__attribute__((noinline)) static int testbit(long i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* Mark every multiple of p as composite. */
__attribute__((noinline)) static void markall(long p)
{
    long i;

    for (i = p + p; i < NBITS; i += p)
        markbit(i);
}

/* Find the next unmarked number after p, or NBITS if none is left. */
__attribute__((noinline)) static long findnext(long p)
{
    long i;

    for (i = p + 1; i < NBITS; i++) {
        if (!testbit(i))
            return i;
    }
    return NBITS;
}

/* Run the requested number of sieve rounds and print the prime count. */
int main(int argc, char **argv)
{
    long rounds = DEFAULT_ROUNDS;
    long r, p, count = 0;

    if (argc > 1)
        rounds = strtol(argv[1], NULL, 10);
    printf("sieve: %ld rounds of %ld bits\n", rounds, NBITS);
    fflush(stdout);
    for (r = 0; r < rounds; r++) {
        memset(bits, 0, sizeof bits);
        markbit(0);
        markbit(1);
        for (p = 2; p < NBITS; p = findnext(p))
            markall(p);
    }
    for (p = 0; p < NBITS; p++)
        count += !testbit(p);
    sink = count;
    printf("sieve: %ld primes below %ld\n", count, NBITS);
    return 0;
}
