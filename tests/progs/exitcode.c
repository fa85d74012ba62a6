/* exitcode.c - works for ~100 ms and exits with status 3. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ITERS 77000000L

static volatile uint64_t sink;

/* Burn CPU so there is something to profile before exiting. */
__attribute__((noinline)) static void work(long iters)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

/* Do the work and exit with a distinctive status. */
int main(int argc, char **argv)
{
    long iters = DEFAULT_ITERS;

    if (argc > 1)
        iters = strtol(argv[1], NULL, 10);
    work(iters);
    printf("exitcode: exiting with status 3\n");
    return 3;
}
