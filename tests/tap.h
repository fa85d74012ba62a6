/* A few TAP helpers for the unit tests: plan(), ok(), is_u64(), is_str(),
 * tap_done().  The plan is said first, so that a test that stops early, or a
 * block that silently does not run, is an error of the TAP driver. */
#ifndef PROFIL_TAP_H
#define PROFIL_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed, tap_plan = -1;

/* Say how many checks every path through the test makes, before the first. */
static void plan(int n)
{
    tap_plan = n;
    printf("1..%d\n", n);
    fflush(stdout);
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_u64(got, want, ...)                                                                     \
    do {                                                                                           \
        uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                                      \
        if (!tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__))                                    \
            printf("#   got %" PRIu64 ", want %" PRIu64 "\n", g_, w_);                             \
    } while (0)
#define is_str(got, want, ...)                                                                     \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!tap_ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, __FILE__, __LINE__,           \
                    __VA_ARGS__))                                                                  \
            printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)");           \
    } while (0)

static int __attribute__((format(printf, 4, 5)))
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    printf("%sok %d - ", pass ? "" : "not ", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!pass) {
        tap_failed++;
        printf("#   at %s:%d\n", file, line);
    }
    fflush(stdout);
    return pass;
}

/* The end of the test: its exit status. */
static int tap_done(void)
{
    if (tap_plan < 0) {
        printf("Bail out! %d checks made without a plan said first\n", tap_n);
        return 1;
    }
    if (tap_n != tap_plan) {
        printf("# planned %d checks, made %d\n", tap_plan, tap_n);
        return 1;
    }
    return tap_failed ? 1 : 0;
}

#endif
