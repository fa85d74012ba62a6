/* spinners.c - N processes or N threads at once, each spinning MS ms of its
 * own CPU time; prints the CPU time getrusage gives for all of them.  With
 * "leader", the main thread ends at once (pthread_exit) and nothing is printed;
 * with "exec", one thread spins MS ms, then execs "spinners threads 1 MS" from
 * that thread (so the kernel gives it the main thread's id). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 4096

static volatile uint64_t sink;
static long spin_ms = 35;
static char *prog;

/* Nanoseconds of CPU time on CLOCK. */
static uint64_t cpu_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Burn CPU until CLOCK has advanced by spin_ms, reading the clock (a system
 * call: a CPU-time clock has no vDSO) about every half millisecond: a thread
 * that calls the kernel every few microseconds is another program, where a
 * slow interrupt (ptrace's, on some virtual machines) overstates the calls. */
__attribute__((noinline)) static void spin(clockid_t clock)
{
    uint64_t end = cpu_ns(clock) + (uint64_t)spin_ms * 1000000u;
    uint64_t x = sink | 1;

    do {
        for (int i = 0; i < 500000; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            sink = x;
        }
    } while (cpu_ns(clock) < end);
}

/* One thread's work. */
static void *spin_thread(void *arg)
{
    (void)arg;
    spin(CLOCK_THREAD_CPUTIME_ID);
    return NULL;
}

/* Spin, then become "spinners threads 1 MS" from this thread, not the main one. */
static void *exec_thread(void *arg)
{
    char ms[32];
    (void)arg;
    spin(CLOCK_THREAD_CPUTIME_ID);
    snprintf(ms, sizeof ms, "%ld", spin_ms);
    execl("/proc/self/exe", prog, "threads", "1", ms, (char *)NULL);
    perror("spinners: exec");
    exit(1);
}

/* Seconds of user and system time in RU. */
static double ru_seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* spinners procs|threads|leader|exec N MS */
int main(int argc, char **argv)
{
    static pthread_t threads[MAX_WORKERS];
    struct rusage self, children;
    long n = 200, i;
    int procs, leader;

    prog = argv[0];
    if (argc < 2 || (strcmp(argv[1], "procs") != 0 && strcmp(argv[1], "threads") != 0 &&
                     strcmp(argv[1], "leader") != 0 && strcmp(argv[1], "exec") != 0)) {
        fprintf(stderr, "usage: spinners procs|threads|leader|exec [N [MS]]\n");
        return 2;
    }
    procs = strcmp(argv[1], "procs") == 0;
    leader = strcmp(argv[1], "leader") == 0;
    if (argc > 2)
        n = strtol(argv[2], NULL, 10);
    if (argc > 3)
        spin_ms = strtol(argv[3], NULL, 10);
    if (n < 1 || n > MAX_WORKERS || spin_ms < 0) {
        fprintf(stderr, "spinners: N must be 1..%d and MS >= 0\n", MAX_WORKERS);
        return 2;
    }
    printf("spinners: %ld %s spinning %ld ms each\n", n, procs ? "processes" : "threads", spin_ms);
    fflush(stdout);
    if (strcmp(argv[1], "exec") == 0) {
        if (pthread_create(&threads[0], NULL, exec_thread, NULL) != 0)
            return 1;
        pthread_join(threads[0], NULL);
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (procs) {
            pid_t pid = fork();
            if (pid < 0) {
                perror("spinners: fork");
                return 1;
            }
            if (pid == 0) {
                spin(CLOCK_PROCESS_CPUTIME_ID);
                _exit(0);
            }
        } else if (pthread_create(&threads[i], NULL, spin_thread, NULL) != 0) {
            fprintf(stderr, "spinners: cannot create thread %ld\n", i);
            return 1;
        }
    }
    if (leader)
        pthread_exit(NULL);
    for (i = 0; i < n; i++) {
        if (procs)
            wait(NULL);
        else
            pthread_join(threads[i], NULL);
    }
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    printf("spinners: cpu %.6f s\n", ru_seconds(&self) + ru_seconds(&children));
    /* In user mode only: what a profiler that may not see the kernel sees. */
    printf("spinners: user cpu %.6f s\n",
           (double)self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6 +
               (double)children.ru_utime.tv_sec + children.ru_utime.tv_usec / 1e6);
    return 0;
}
