/*
 * --export=folded: collapsed stacks, one line a stack, "frame;frame;... N",
 * as flamegraph.pl, inferno and speedscope read them, from export_walk's
 * samples.
 */
#include "config.h"

#include "export/export.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NAME as a folded frame: no ';' (the separator), no control byte (a
 * newline would forge a line; util/quote.h). */
static void folded_name(FILE *out, const char *name)
{
    for (const char *p = quote(name); *p; p++)
        fputc(*p == ';' ? ':' : *p, out);
}

/* One folded line: the frames' names and the samples of every stack that
 * has them (stacks differ by address, lines by name only). */
struct folded_line {
    char *text;
    uint64_t count;
};

static int folded_cmp(const void *a, const void *b)
{
    return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

/* What export_folded gathers as export_walk hands the samples over. */
struct folded {
    struct session *s;
    struct folded_line *lines;
    size_t n, alloc;
};

static void folded_sample(const struct export_frame *frames, size_t n, uint64_t count, void *arg)
{
    struct folded *w = arg;
    char *text = NULL;
    size_t len = 0;
    FILE *line = open_memstream(&text, &len);
    if (line == NULL)
        return;
    for (size_t k = 0; k < n; k++) {
        if (k > 0)
            fputc(';', line);
        folded_name(line, export_frame_name(w->s, &frames[k]));
        int64_t f = frames[k].func;
        if (f >= 0 && w->s->modules[w->s->funcs[f].module]->kind == MODULE_KERNEL)
            fputs("_[k]", line); /* flamegraph.pl colours kernel frames */
    }
    fclose(line);
    w->lines = xgrowarray(w->lines, &w->alloc, w->n + 1, sizeof *w->lines);
    w->lines[w->n++] = (struct folded_line){text, count};
}

void export_folded(struct session *s, FILE *out)
{
    struct folded w = {s, NULL, 0, 0};
    export_walk(s, folded_sample, &w);
    /* Stacks that differ only by address fold into one line. */
    if (w.n > 1)
        qsort(w.lines, w.n, sizeof *w.lines, folded_cmp);
    for (size_t i = 0; i < w.n; i++) {
        uint64_t c = w.lines[i].count;
        while (i + 1 < w.n && strcmp(w.lines[i].text, w.lines[i + 1].text) == 0) {
            free(w.lines[i].text);
            c += w.lines[++i].count;
        }
        fprintf(out, "%s %" PRIu64 "\n", w.lines[i].text, c);
        free(w.lines[i].text);
    }
    free(w.lines);
}
