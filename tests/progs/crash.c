/* crash.c - works for ~300 ms and then dies of SIGSEGV. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_ITERS 230000000L

static volatile uint64_t sink;

/* Burn CPU so the profiler has samples to keep from before the crash. */
__attribute__((noinline)) static void doomed_work(long iters)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

/* Do the work, announce the crash, then dereference NULL. */
int main(int argc, char **argv)
{
    long iters = DEFAULT_ITERS;
    volatile int *volatile null_ptr = NULL;

    if (argc > 1)
        iters = strtol(argv[1], NULL, 10);
    doomed_work(iters);
    printf("about to crash\n");
    fflush(stdout);
    *null_ptr = 42;
    fprintf(stderr, "crash: still alive after NULL store?\n");
    return 1;
}
