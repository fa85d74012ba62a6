/* The seed of tests/fuzz/corpus-elf: a little of everything profil reads
 * from a program (tests/fuzz/elf-seeds.sh builds it). */
#include <stdio.h>
#include <stdlib.h>

static inline unsigned step(unsigned x)
{
    return x * 1103515245u + 12345u;
}

static unsigned __attribute__((noinline)) spin(unsigned n)
{
    unsigned x = n;
    for (unsigned i = 0; i < n; i++)
        x = step(x) ^ (x >> 7);
    return x;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    printf("%u\n", spin(n));
    return 0;
}
