/* sleeper.c - mostly blocked: 10 ms of spinning per 90 ms of sleep. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SPIN_ITERS 7700000L
#define SLEEP_NS 90000000L
#define DEFAULT_SLICES 10

static volatile uint64_t sink;

/* Burn about 10 ms of CPU with a fixed iteration count (no clock reads). */
__attribute__((noinline)) static void spin(void)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < SPIN_ITERS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

/* Sleep for 90 ms, restarting after signal interruptions. */
__attribute__((noinline)) static void nap(void)
{
    struct timespec ts = { 0, SLEEP_NS };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Alternate spin and sleep slices so about 90 % of wall time is blocked. */
int main(int argc, char **argv)
{
    long slices = DEFAULT_SLICES;
    long s;

    if (argc > 1)
        slices = strtol(argv[1], NULL, 10);
    printf("sleeper: %ld slices of ~10 ms spin + 90 ms sleep\n", slices);
    fflush(stdout);
    for (s = 0; s < slices; s++) {
        spin();
        nap();
    }
    printf("sleeper: done, sink=%016llx\n", (unsigned long long)sink);
    return 0;
}
