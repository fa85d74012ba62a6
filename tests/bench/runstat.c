/* runstat - run a command and say what it cost, for the benchmarks.
 *
 * Usage: runstat -r RESULT [-l PATTERN] -- COMMAND [ARG]...
 *
 * Runs COMMAND (its standard streams are runstat's), waits for it and
 * appends one line to RESULT:
 *
 *     wall_s user_s sys_s maxrss_kb status first_s start_s
 *
 * wall_s is measured here, from just before fork to the end of wait4; user_s,
 * sys_s and maxrss_kb are wait4's rusage of COMMAND, which counts the
 * children COMMAND waited for (maxrss is the largest of them, not a sum);
 * status is the exit status, or 128+N for a signal.  With -l, COMMAND's
 * standard error goes through a pipe that runstat copies to its own, and
 * first_s is when the first line containing PATTERN arrived (-1 if none, or
 * without -l).  start_s is the moment of the fork on CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
    fprintf(stderr, "usage: runstat -r RESULT [-l PATTERN] -- COMMAND [ARG]...\n");
    exit(2);
}

/* Copy the child's stderr to ours; note when a line holding PATTERN shows. */
static double watch(int fd, const char *pattern, double t0)
{
    char line[4096];
    size_t len = 0;
    double first = -1;
    for (;;) {
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        double t = now_s();
        ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
        (void)w;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n' && len + 1 < sizeof line) {
                line[len++] = buf[i];
                continue;
            }
            line[len] = '\0';
            if (first < 0 && strstr(line, pattern) != NULL)
                first = t - t0;
            len = 0;
        }
    }
    return first;
}

int main(int argc, char **argv)
{
    const char *result = NULL, *pattern = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "+r:l:")) != -1) {
        switch (opt) {
        case 'r': result = optarg; break;
        case 'l': pattern = optarg; break;
        default: usage();
        }
    }
    if (result == NULL || optind >= argc)
        usage();
    int p[2] = {-1, -1};
    if (pattern != NULL && pipe(p) < 0) {
        perror("runstat: pipe");
        return 1;
    }
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("runstat: fork");
        return 1;
    }
    if (pid == 0) {
        if (pattern != NULL) {
            dup2(p[1], STDERR_FILENO);
            close(p[0]);
            close(p[1]);
        }
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "runstat: %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }
    double first = -1;
    if (pattern != NULL) {
        close(p[1]);
        first = watch(p[0], pattern, t0);
        close(p[0]);
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("runstat: wait4");
            return 1;
        }
    }
    double wall = now_s() - t0;
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    FILE *f = fopen(result, "a");
    if (f == NULL) {
        perror(result);
        return 1;
    }
    fprintf(f, "%.6f %.6f %.6f %ld %d", wall,
            (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss, status);
    fprintf(f, " %.6f %.6f\n", first, t0);
    return fclose(f) == 0 ? status : 1;
}
