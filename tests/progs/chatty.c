/* chatty.c - a program that calls the kernel every few microseconds: work()
 * computes for about 10 us, then asks for the time of its thread's CPU clock
 * (a system call: a CPU-time clock has no vDSO), for about a second of CPU
 * time (or SECONDS), in each of two threads (or THREADS) at once.  At its
 * end it says what share of its CPU time the kernel had, by getrusage:
 *   chatty: user 0.84 s, system 0.17 s, kernel 16.8%
 * An unbiased sampler finds about that share of its samples at the system
 * call (in libc); one whose interrupt reaches a running thread only at its
 * next system call finds far more.
 * usage: chatty [SECONDS [THREADS]] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline, noipa)) static void work(void)
{
    uint64_t x = sink | 1;
    for (int i = 0; i < 10000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double seconds = 1.0;

static void *chat(void *arg)
{
    (void)arg;
    do
        work();
    while (cpu_s() < seconds);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t threads[64];
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 2;
    if (argc > 1)
        seconds = atof(argv[1]);
    if (!(seconds > 0) || n < 1 || n > 64) {
        fprintf(stderr, "usage: chatty [SECONDS [THREADS (1 to 64)]]\n");
        return 2;
    }
    for (long i = 1; i < n; i++) {
        if (pthread_create(&threads[i], NULL, chat, NULL) != 0) {
            fprintf(stderr, "chatty: cannot create a thread\n");
            return 1;
        }
    }
    chat(NULL);
    for (long i = 1; i < n; i++)
        pthread_join(threads[i], NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    printf("chatty: user %.2f s, system %.2f s, kernel %.1f%%\n", user, sys,
           user + sys > 0 ? 100 * sys / (user + sys) : 0.0);
    return 0;
}
