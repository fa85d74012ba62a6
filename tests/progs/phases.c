/* phases.c - work_alpha for the first SECONDS_A of the run, then work_beta
 * for SECONDS_B (wall clock, from the process's start, not main's: on a
 * loaded machine the dynamic loader took over 0.1 s, and a window "after
 * the switch" still held work_alpha): a time window on either half must
 * rank that half's routine alone.  Usage: phases [SECONDS_A [SECONDS_B]]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* When this process started, on now()'s clock: its start time in
 * /proc/self/stat (clock ticks since boot), against CLOCK_BOOTTIME; main's
 * time where that cannot be read. */
static double started(void)
{
    double t = now();
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    size_t n = f != NULL ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the name may hold blanks */
    unsigned long long ticks = 0;
    if (p == NULL)
        return t;
    /* After the name (field 2): the state, fields 4 to 21, starttime (22). */
    int field = 2;
    for (char *q = p + 1; *q != '\0' && field < 22; q++) {
        if (*q == ' ' && q[1] != ' ')
            field++;
        if (field == 22) {
            ticks = strtoull(q + 1, NULL, 10);
            break;
        }
    }
    struct timespec b;
    long hz = sysconf(_SC_CLK_TCK);
    if (ticks == 0 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &b) != 0)
        return t;
    double age = (double)b.tv_sec + (double)b.tv_nsec / 1e9 - (double)ticks / (double)hz;
    return age >= 0 && age < 10 ? t - age : t;
}

/* Two copies of one loop, each for a while. */
#define WORK(fn)                                                                       \
    __attribute__((noinline, noipa)) static void fn(double until)                      \
    {                                                                                  \
        uint64_t x = sink | 1;                                                         \
        while (now() < until) {                                                        \
            for (int i = 0; i < 20000; i++)                                            \
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;               \
            sink = x;                                                                  \
        }                                                                              \
    }
WORK(work_alpha)
WORK(work_beta)

int main(int argc, char **argv)
{
    double a = argc > 1 ? strtod(argv[1], NULL) : 1.0, b = argc > 2 ? strtod(argv[2], NULL) : 1.0;
    double t0 = started();
    printf("phases: alpha %.1f s, then beta %.1f s\n", a, b);
    fflush(stdout);
    work_alpha(t0 + a);
    printf("phases: beta\n"); /* a script may mark the moment (windows.sh) */
    fflush(stdout);
    work_beta(t0 + a + b);
    printf("phases: done\n");
    return 0;
}
