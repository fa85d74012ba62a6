/* replaybench - what loading and replaying a session costs, step by step,
 * through the same calls `profil --replay` makes.
 *
 * Usage: replaybench FILE.PRF
 *
 * Prints one line:
 *     read_ms read2_ms new_ms seek_ms rank_ms report_ms maxrss_kb frames samples same
 * read_ms: prf_read_file; read2_ms: the second reading --replay makes;
 * new_ms: replay_new; seek_ms: replay_seek to the last frame (what End does);
 * rank_ms: session_rank of the replayed session (what the first screen after
 * the seek does); report_ms: report_text of the file's session to /dev/null
 * (what --report does after reading); maxrss_kb: this process's peak;
 * same: 1 when the replay's end state has the file's counters. */
#include "config.h"

#include "prf/prf.h"
#include "prf/replay.h"
#include "report/report.h"
#include "session/names.h"
#include "session/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct session *load(const char *path)
{
    char *cause = NULL;
    struct session *s = prf_read_file(path, &cause);
    if (s == NULL) {
        fprintf(stderr, "replaybench: %s\n", cause);
        free(cause);
        exit(1);
    }
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replaybench FILE.PRF\n");
        return 2;
    }
    double t0 = now_ms();
    struct session *file = load(argv[1]);
    double t1 = now_ms();
    struct session *copy = load(argv[1]);
    double t2 = now_ms();
    struct replay *r = replay_new(file, copy);
    double t3 = now_ms();
    replay_seek(r, r->nframes);
    double t4 = now_ms();
    session_rank(r->now);
    double t5 = now_ms();
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull == NULL) {
        perror("/dev/null");
        return 1;
    }
    report_text(r->file, argv[1], devnull, 0);
    fclose(devnull);
    double t6 = now_ms();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const struct counters *a = &r->file->view.c, *b = &r->now->view.c;
    int same = a->program == b->program && a->dos == b->dos && a->io == b->io &&
               a->high == b->high && a->total == b->total && a->lost == b->lost;
    printf("%.3f %.3f %.3f %.3f %.3f %.3f %ld %zu %llu %d\n", t1 - t0, t2 - t1, t3 - t2, t4 - t3,
           t5 - t4, t6 - t5, ru.ru_maxrss, r->nframes, (unsigned long long)a->total, same);
    replay_free(r);
    return same ? 0 : 1;
}
