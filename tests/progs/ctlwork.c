/* ctlwork.c - work that turns profil's clock off and on (tests/e2e/control.sh).
 *
 *   ctlwork lib          included_work 0.25 s, profil_off, excluded_work
 *                        0.5 s, profil_on, included_work 0.25 s; marks
 *                        "start" and "after" (profil/control.h)
 *   ctlwork spin SECS    phase1_work for SECS seconds
 *   ctlwork pings N      N times: included_work for a millisecond, then
 *                        profil_on() (the clock runs: it only asks); then
 *                        nap: asleep for 0.2 s
 *   ctlwork wait F...    phase1_work until the file F1 exists, phase2_work
 *                        until F2 does, phase3_work until F3 does (up to
 *                        three), then phase4_work 0.2 s: the test says when
 *                        each phase ends
 *
 * The output is the same whether profil runs it or not. */
#include <profil/control.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each kind of work is its own function, so that the profile tells them
 * apart: a millisecond or so of arithmetic between looks at the time, a
 * little different in each, or the compiler folds them into one. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOCLONE __attribute__((noclone)) /* no included_work.constprop.0 */
#else
#define NOCLONE
#endif
#define WORK(name, k)                                                                               \
    __attribute__((noinline)) NOCLONE static void name(double secs, const char *until)                     \
    {                                                                                              \
        double end = now() + secs;                                                                 \
        for (unsigned n = 0;; n++) {                                                               \
            for (unsigned long i = 0; i < 200000; i++)                                             \
                sink += i * i ^ (sink >> k);                                                       \
            if (until != NULL ? access(until, F_OK) == 0 : now() >= end)           \
                return;                                                                            \
        }                                                                                          \
    }
WORK(included_work, 2)
WORK(excluded_work, 3)
WORK(phase1_work, 4)
WORK(phase2_work, 5)
WORK(phase3_work, 6)
WORK(phase4_work, 7)

/* Asleep (blocked) for SECS seconds. */
__attribute__((noinline)) NOCLONE static void nap(double secs)
{
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "lib";
    if (strcmp(mode, "lib") == 0) {
        profil_mark("start");
        included_work(0.25, NULL);
        profil_off();
        excluded_work(0.5, NULL);
        profil_on();
        profil_mark("after");
        included_work(0.25, NULL);
        printf("ctlwork: included 0.5 s, excluded 0.5 s\n");
        return 0;
    }
    if (strcmp(mode, "spin") == 0) {
        phase1_work(argc > 2 ? atof(argv[2]) : 0.5, NULL);
        printf("ctlwork: spun\n");
        return 0;
    }
    if (strcmp(mode, "pings") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 100;
        for (int i = 0; i < n; i++) {
            included_work(0.001, NULL);
            profil_on();
        }
        nap(0.2);
        printf("ctlwork: %d pings\n", n);
        return 0;
    }
    if (strcmp(mode, "wait") == 0) {
        void (*phase[3])(double, const char *) = {phase1_work, phase2_work, phase3_work};
        for (int i = 2; i < argc && i < 5; i++)
            phase[i - 2](0, argv[i]);
        phase4_work(0.2, NULL);
        printf("ctlwork: %d phases\n", argc > 5 ? 4 : argc - 1);
        return 0;
    }
    fprintf(stderr, "usage: ctlwork [lib | spin SECS | pings N | wait FILE...]\n");
    return 2;
}
