/* The histogram's redraw cost during a live run: a session with about a
 * million distinct PCs in PROGRAM's code, zoomed out, every bucket's count
 * moving between redraws.  Prints the time of 100 redraws and of 10
 * searches that match nothing (every bucket's label read).
 * Usage: histbench PROGRAM [PARAGRAPHS] */
#include "config.h"

#include "session/session.h"
#include "views/view.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double histbench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A sample at the program's file offset OFF, as the classifier counts it. */
static void histbench_hit(struct session *s, uint64_t off)
{
    size_t b;
    session_add_hit(s, 0, off, 1);
    if (session_bucket_of(s, off, &b))
        s->view.buckets[b]++;
    s->view.c.program++;
    s->view.c.total++;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: histbench PROGRAM [PARAGRAPHS]\n");
        return 2;
    }
    uint32_t paragraphs = argc > 2 ? (uint32_t)atoi(argv[2]) : 65535;
    char *cause = NULL;
    struct session *s = session_new(argv[1], paragraphs, 1000, &cause);
    if (s == NULL) {
        fprintf(stderr, "histbench: %s\n", cause);
        return 1;
    }
    const struct module *m = s->modules[0];
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < m->nsegs; i++) {
        if (m->segs[i].flags & PF_X) {
            lo = m->segs[i].offset < lo ? m->segs[i].offset : lo;
            hi = m->segs[i].offset + m->segs[i].filesz > hi ? m->segs[i].offset + m->segs[i].filesz
                                                            : hi;
        }
    }
    uint64_t step = (hi - lo) / 1000000 ? (hi - lo) / 1000000 : 1;
    for (uint64_t off = lo; off < hi; off += step)
        histbench_hit(s, off);
    printf("%zu hits in a table of %zu slots, %zu buckets of %u paragraphs\n", s->nhits,
           s->hits_alloc, s->view.nbuckets, s->view.bucket_paragraphs);

    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm("xterm", out, in);
    WINDOW *win = newwin(40, 100, 0, 0);
    struct view_ctx ctx = {.s = s, .focused = true};
    void *h = view_histogram_ops.create();
    view_histogram_ops.draw(h, win, &ctx);
    double drawn = 0;
    for (int r = 0; r < 100; r++) {
        for (uint64_t off = lo; off < hi; off += 16 * (uint64_t)paragraphs) /* every bucket moves */
            histbench_hit(s, off);
        double t0 = histbench_now();
        werase(win);
        view_histogram_ops.draw(h, win, &ctx);
        drawn += histbench_now() - t0;
    }
    printf("100 redraws: %.3f s (%.2f ms each)\n", drawn, drawn * 10);
    double t0 = histbench_now();
    for (int r = 0; r < 10; r++)
        view_histogram_ops.search(h, "no such function", 0, &ctx);
    double searched = histbench_now() - t0;
    printf("10 searches: %.3f s (%.2f ms each)\n", searched, searched * 100);
    view_histogram_ops.destroy(h);
    delwin(win);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    session_free(s);
    return 0;
}
