/* catcher.c - works until SIGINT arrives (or ~3 s of work is done). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_ITERS 7700000L
#define DEFAULT_CHUNKS 310

static volatile sig_atomic_t got_sigint;
static volatile uint64_t sink;

/* Only set a flag: the main loop does the reporting outside the handler. */
static void on_sigint(int sig)
{
    (void)sig;
    got_sigint = 1;
}

/* Burn about 10 ms of CPU with a fixed iteration count. */
__attribute__((noinline)) static void busy(void)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < CHUNK_ITERS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

/* Install the handler, work in chunks, and report whether SIGINT came. */
int main(int argc, char **argv)
{
    long chunks = DEFAULT_CHUNKS;
    struct sigaction sa;
    long c;

    if (argc > 1)
        chunks = strtol(argv[1], NULL, 10);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) != 0) {
        perror("sigaction");
        return 1;
    }
    printf("catcher: waiting for SIGINT\n");
    fflush(stdout);
    for (c = 0; c < chunks && !got_sigint; c++)
        busy();
    if (got_sigint)
        printf("caught SIGINT\n");
    else
        printf("catcher: no SIGINT\n");
    return 0;
}
