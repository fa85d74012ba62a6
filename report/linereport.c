/*
 * Reports by line: the hottest lines below the ranking (--report --lines),
 * as JSON, and the Multics profile listing of one source file (--list).
 */
#include "config.h"

#include "elf/source.h"
#include "report/linereport.h"
#include "session/linecounts.h"
#include "session/lines.h"
#include "util/pct.h"
#include "util/quote.h"
#include "util/ticks.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Past the source text, more lines than this without samples are listed as
 * one row that says how many. */
#define LINEREPORT_GAP 100

static int linereport_self_cmp(const void *a, const void *b)
{
    const struct line_count *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Every line with samples of its own, hottest first; *N of them. */
static struct line_count *linereport_hot(struct session *s, size_t *n)
{
    size_t all;
    struct line_count *l = line_counts(s, -1, &all);
    size_t k = 0;
    for (size_t i = 0; i < all; i++) {
        if (l[i].self > 0)
            l[k++] = l[i];
    }
    if (k > 1)
        qsort(l, k, sizeof *l, linereport_self_cmp);
    *n = k;
    return l;
}

/* The last component of PATH, escaped (util/quote.h). */
static const char *linereport_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return quote(slash != NULL && slash[1] != '\0' ? slash + 1 : path);
}

static void linereport_missing(struct session *s, FILE *out);

void report_lines(struct session *s, FILE *out, size_t limit)
{
    size_t n;
    struct line_count *l = linereport_hot(s, &n);
    uint64_t total = s->view.c.total;
    fprintf(out, "\nHottest lines");
    if (n == 0) {
        const char *why = s->nmodules > 0 ? lines_module_why(s, 0) : NULL;
        fprintf(out, ": none known (%s)\n",
                why ? quote(why) : "no sample fell on a line with debug information");
        free(l);
        linereport_missing(s, out);
        return;
    }
    fprintf(out, " (Samples: on the line itself%s)\n",
            s->has_stacks ? "; With calls: with the line anywhere on the stack" : "");
    char t[32];
    int placew = 24;
    for (size_t i = 0; i < n && (limit == 0 || i < limit); i++) {
        int w = snprintf(NULL, 0, "%s:%u", linereport_base(lines_file(s, l[i].file)), l[i].line);
        if (w > placew)
            placew = w > 60 ? 60 : w;
    }
    fprintf(out, "%-11s %-*s %-24s %10s %9s %10s\n", "Time", placew, "Line", "Function",
            "% of Total", "Samples", "With calls");
    for (size_t i = 0; i < n; i++) {
        if (limit != 0 && i == limit) {
            fprintf(out, "%-11s (%zu more line%s: profil --report --json --lines has them all)\n",
                    "...", n - i, n - i == 1 ? "" : "s");
            break;
        }
        char place[64];
        snprintf(place, sizeof place, "%s:%u", linereport_base(lines_file(s, l[i].file)),
                 l[i].line);
        const char *fn = l[i].func >= 0 ? quote(s->funcs[l[i].func].name) : "?";
        fprintf(out, "%-11s %-*s %-24.24s %9.2f%% %9" PRIu64 " %9.2f%%\n",
                ticks_time(t, sizeof t, l[i].self, s->interval_us), placew, place, fn,
                pct_of(l[i].self, total), l[i].self, pct_of(l[i].total, total));
    }
    free(l);
    linereport_missing(s, out);
}

/* Say which modules have a good share of the samples without any line. */
static void linereport_missing(struct session *s, FILE *out)
{
    uint64_t *none = xcalloc(s->nmodules + 1, sizeof *none);
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module < s->nmodules && h->count > 0 &&
            (s->modules[h->module]->kind == MODULE_PROGRAM ||
             s->modules[h->module]->kind == MODULE_LIBRARY) &&
            lines_lookup(s, h->module, h->offset) == NULL)
            none[h->module] += h->count;
    }
    for (size_t m = 0; m < s->nmodules; m++) {
        if (none[m] == 0 || pct_of(none[m], s->view.c.total) < 1.0)
            continue;
        const char *why = s->lines != NULL && s->lines->from_file
                              ? "it had no line information when it was profiled"
                              : lines_module_why(s, (uint32_t)m);
        fprintf(out, "Without lines: %.2f%% of the samples, in %s (%s)\n",
                pct_of(none[m], s->view.c.total), quote(s->modules[m]->name),
                why ? quote(why) : "its debug information has no line there");
    }
    free(none);
}

void report_json_add_lines(struct session *s, cJSON *o)
{
    size_t n;
    struct line_count *l = linereport_hot(s, &n);
    /* Each function's own lines, hottest first: the report's functions are
     * in session_ranking's order. */
    size_t nf;
    size_t *order = session_ranking(s, &nf);
    cJSON **of = xcalloc(s->nfuncs + 1, sizeof *of);
    cJSON *funcs = cJSON_GetObjectItem(o, "functions");
    cJSON *fj = funcs != NULL ? funcs->child : NULL;
    for (size_t k = 0; k < nf && fj != NULL; k++, fj = fj->next)
        of[order[k]] = cJSON_AddArrayToObject(fj, "lines");
    for (size_t i = 0; i < n; i++) {
        if (l[i].func < 0 || (size_t)l[i].func >= s->nfuncs || of[l[i].func] == NULL)
            continue;
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "file", lines_file(s, l[i].file));
        cJSON_AddNumberToObject(j, "line", l[i].line);
        cJSON_AddNumberToObject(j, "samples", (double)l[i].self);
        cJSON_AddItemToArray(of[l[i].func], j);
    }
    free(of);
    free(order);
    cJSON *a = cJSON_AddArrayToObject(o, "lines");
    for (size_t i = 0; i < n; i++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "file", lines_file(s, l[i].file));
        cJSON_AddNumberToObject(j, "line", l[i].line);
        cJSON_AddStringToObject(j, "function", l[i].func >= 0 ? s->funcs[l[i].func].name : "");
        cJSON_AddNumberToObject(j, "samples", (double)l[i].self);
        cJSON_AddNumberToObject(j, "total", (double)l[i].total);
        cJSON_AddNumberToObject(j, "pct", pct_of(l[i].self, s->view.c.total));
        cJSON_AddNumberToObject(j, "total_pct", pct_of(l[i].total, s->view.c.total));
        cJSON_AddItemToArray(a, j);
    }
    free(l);
}

struct report_place *report_bucket_places(struct session *s)
{
    struct report_place *p = xcalloc(s->view.nbuckets + 1, sizeof *p);
    uint64_t *best = xcalloc(s->view.nbuckets + 1, sizeof *best),
             *at = xcalloc(s->view.nbuckets + 1, sizeof *at);
    for (size_t i = 0; i < s->hits_alloc && !s->classic; i++) {
        const struct hit *h = &s->hits[i];
        size_t b;
        if (h->module != s->view.prog_module || h->count == 0 ||
            !session_bucket_of(s, h->offset, &b) || b >= s->view.nbuckets)
            continue;
        if (h->count > best[b] || (h->count == best[b] && h->offset < at[b])) {
            best[b] = h->count;
            at[b] = h->offset;
        }
    }
    for (size_t b = 0; b < s->view.nbuckets; b++) {
        const struct srcloc *loc = best[b] ? lines_lookup(s, 0, at[b]) : NULL;
        if (loc != NULL)
            p[b] = (struct report_place){loc->file, loc->line};
    }
    free(best);
    free(at);
    return p;
}

const char *report_place_text(const struct session *s, const struct report_place *p, char *buf,
                              size_t size)
{
    if (p->file == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%s:%u", linereport_base(lines_file(s, p->file)), p->line);
    return buf;
}

/* The Multics star column: 4 stars from 20 %, 3 from 10 %, 2 from 5 %, 1
 * from 2.5 %, none below. */
int report_stars(double pct)
{
    return pct >= 20 ? 4 : pct >= 10 ? 3 : pct >= 5 ? 2 : pct >= 2.5 ? 1 : 0;
}

/* The order of the files with samples: most samples first, then by id. */
struct file_samples {
    uint32_t id;
    uint64_t samples;
};
static int file_samples_cmp(const void *a, const void *b)
{
    const struct file_samples *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples < y->samples ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

long report_list_file(struct session *s, const char *name, char **cause)
{
    size_t n;
    struct line_count *l = line_counts(s, -1, &n);
    size_t nfiles = s->lines != NULL ? s->lines->nfiles : 0;
    /* Each file's samples, in one pass over the lines (sorted by file). */
    struct file_samples *files = xcalloc(nfiles + 1, sizeof *files);
    size_t nused = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i].file == 0 || l[i].file > nfiles)
            continue;
        if (nused == 0 || files[nused - 1].id != l[i].file)
            files[nused++] = (struct file_samples){.id = l[i].file};
        files[nused - 1].samples += l[i].self;
    }
    free(l);
    /* The files the user most likely meant first, so that a long list cut
     * short still shows them. */
    qsort(files, nused, sizeof *files, file_samples_cmp);
    size_t len = strlen(name);
    long found = -1;
    size_t nfound = 0;
    char *names = NULL;
    for (size_t k = 0; k < nused; k++) {
        const char *p = lines_file(s, files[k].id);
        size_t pl = strlen(p);
        /* The whole name, or its tail at a '/': "lines.c", "progs/lines.c". */
        bool match = strcmp(p, name) == 0 ||
                     (pl > len && strcmp(p + pl - len, name) == 0 && p[pl - len - 1] == '/');
        if (names == NULL || strlen(names) <= 400) {
            char *more = xasprintf("%s%s%s", names ? names : "", names ? ", " : "", quote(p));
            free(names);
            names = more;
        }
        if (match) {
            found = files[k].id;
            nfound++;
        }
    }
    free(files);
    if (nfound == 1) {
        free(names);
        return found;
    }
    if (nfound > 1)
        *cause = xasprintf("%s names %zu files of the session: give more of its path", quote(name),
                           nfound);
    else if (names == NULL)
        *cause = xasprintf("no source line of the session has samples (no debug information)");
    else
        *cause = xasprintf("no sample fell in %s (the files with samples, most first: %.400s%s)",
                           quote(name), names, strlen(names) > 400 ? "..." : "");
    free(names);
    return -1;
}

/* Is line LINE of SRC blank (nothing but spaces, tabs and a '\r')?  A listing
 * shows such a line as nothing. */
static bool linereport_blank(const struct source_file *src, uint64_t line)
{
    size_t len = 0;
    const char *text = source_line(src, (uint32_t)line, &len);
    for (size_t i = 0; text != NULL && i < len; i++) {
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
            return false;
    }
    return true;
}

/* A listing being printed: the session, the source text (NULL when not
 * found), the options, and the line being built. */
struct linereport_listing {
    struct session *s;
    const struct source_file *src;
    const struct listing_opts *lo;
    FILE *out;
    char *buf;    /* the line being built: up to WIDTH columns and a '\0' */
    size_t at;    /* its length */
    size_t width; /* the line length */
    bool calls;   /* the CALLS% column: the session has stacks, and it is not left out */
};

/* Append to the line being built, up to its width. */
static void linereport_put(struct linereport_listing *li, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void linereport_put(struct linereport_listing *li, const char *fmt, ...)
{
    if (li->at >= li->width)
        return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(li->buf + li->at, li->width + 1 - li->at, fmt, ap);
    va_end(ap);
    if (r > 0)
        li->at += (size_t)r < li->width - li->at ? (size_t)r : li->width - li->at;
}

/* The heading: the file, the session, where the text came from, the stars'
 * key, and a blank line; each line kept to the line length too. */
static void linereport_heading(struct linereport_listing *li, uint32_t file)
{
    struct session *s = li->s;
    const struct listing_opts *lo = li->lo;
    li->at = 0;
    linereport_put(li, "Profile listing of %s", quote(lines_file(s, file)));
    fprintf(li->out, "%s\n", li->buf);
    li->at = 0;
    linereport_put(li, "   from %s (%s), %" PRIu64 " samples of %u us", quote(lo->session),
                   s->program ? quote(s->program) : "?", s->view.c.total, s->interval_us);
    fprintf(li->out, "%s\n", li->buf);
    li->at = 0;
    if (li->src == NULL)
        linereport_put(li, "   source %s", lo->where ? quote(lo->where) : "not found");
    else if (li->src->embedded)
        linereport_put(li, "   source embedded in the session");
    else if (strcmp(li->src->path, lines_file(s, file)) != 0)
        linereport_put(li, "   source read from %s", quote(li->src->path));
    if (li->at > 0)
        fprintf(li->out, "%s\n", li->buf);
    li->at = 0;
    if (!(lo->exclude & LISTING_STARS))
        linereport_put(
            li, "   stars: **** 20-100 %%, *** 10-20 %%, ** 5-10 %%, * 2.5-5 %% of the samples");
    fprintf(li->out, "%s\n\n", li->at > 0 ? li->buf : "");
}

/* The column heads, on a line of their own: those not left out. */
static void linereport_column_heads(struct linereport_listing *li)
{
    unsigned exclude = li->lo->exclude;
    li->at = 0;
    if (!(exclude & LISTING_LINE))
        linereport_put(li, "%6s ", "LINE");
    if (!(exclude & LISTING_COUNT))
        linereport_put(li, "%9s ", "SAMPLES");
    if (!(exclude & LISTING_TIME))
        linereport_put(li, "%10s %6s ", "TIME", "%");
    if (li->calls)
        linereport_put(li, "%6s ", "CALLS%");
    if (!(exclude & LISTING_STARS))
        linereport_put(li, "%-4s ", "");
    linereport_put(li, " %s", "SOURCE");
    fprintf(li->out, "%s\n", li->buf);
}

/* One row for N lines not listed one by one: "... (N WHAT)". */
static void linereport_gap(struct linereport_listing *li, uint64_t n, const char *what)
{
    li->at = 0;
    if (!(li->lo->exclude & LISTING_LINE))
        linereport_put(li, "%6s ", "...");
    linereport_put(li, " (%" PRIu64 " %s)", n, what);
    fprintf(li->out, "%s\n", li->buf);
}

/* The source text of a row, LEN bytes of TEXT (NULL: none), to the end of
 * the line being built: tabs to spaces, what util/quote.h would escape to
 * '?', the blanks at its end dropped.  One listing line a line, in its
 * columns: a line ends in '\n' or '\0', which no character runs past. */
static void linereport_text(struct linereport_listing *li, const char *text, size_t len)
{
    char *buf = li->buf;
    size_t at = li->at, width = li->width;
    size_t start = at; /* tab stops count from the source text's first column */
    for (size_t i = 0; text != NULL && i < len && at < width;) {
        size_t cl = quote_safe_len(text + i);
        if (text[i] == '\t') {
            do
                buf[at++] = ' ';
            while (at < width && (at - start) % 8 != 0);
        } else if (cl == 0) {
            buf[at++] = '?';
        } else if (at + cl <= width) {
            memcpy(buf + at, text + i, cl);
            at += cl;
        } else {
            break; /* never half a character */
        }
        i += cl > 0 ? cl : 1;
    }
    while (at > 0 && buf[at - 1] == ' ')
        at--;
    buf[at] = '\0';
    li->at = at;
}

/* The row of line LINE: its number, its SELF samples as a count, a time
 * and a share with its stars, the share TOT of the samples with it on
 * their stack, and its text; each column but the text only when not left out. */
static void linereport_row(struct linereport_listing *li, uint64_t line, uint64_t self,
                           uint64_t tot)
{
    struct session *s = li->s;
    unsigned exclude = li->lo->exclude;
    uint64_t total = s->view.c.total;
    double pct = pct_of(self, total);
    char t[32];
    li->at = 0;
    if (!(exclude & LISTING_LINE))
        linereport_put(li, "%6" PRIu64 " ", line);
    if (!(exclude & LISTING_COUNT)) {
        if (self > 0)
            linereport_put(li, "%9" PRIu64 " ", self);
        else
            linereport_put(li, "%9s ", "");
    }
    if (!(exclude & LISTING_TIME)) {
        if (self > 0)
            linereport_put(li, "%10s %6.2f ", ticks_time(t, sizeof t, self, s->interval_us), pct);
        else
            linereport_put(li, "%10s %6s ", "", "");
    }
    if (li->calls) {
        if (tot > 0)
            linereport_put(li, "%6.2f ", pct_of(tot, total));
        else
            linereport_put(li, "%6s ", "");
    }
    if (!(exclude & LISTING_STARS))
        linereport_put(li, "%-4.*s ", report_stars(pct), "****");
    size_t len = 0;
    uint32_t text_end = li->src != NULL ? li->src->nlines : 0;
    const char *text =
        li->src != NULL && line <= text_end ? source_line(li->src, (uint32_t)line, &len) : NULL;
    linereport_put(li, " ");
    linereport_text(li, text, len);
    fprintf(li->out, "%s\n", li->buf);
}

/* The last line of file FILE to list: the text's, or a line counted past
 * it (the file changed since the run). */
static uint32_t linereport_last(const struct line_count *all, size_t n, uint32_t file,
                                const struct source_file *src)
{
    uint32_t last = src != NULL ? src->nlines : 0;
    for (size_t i = 0; i < n; i++) {
        if (all[i].file == file && all[i].line > last)
            last = all[i].line; /* a line past the end of the text: the file changed */
    }
    return last;
}

/* The last of the blank lines of SRC from LINE on, up to STOP. */
static uint64_t linereport_blank_end(const struct source_file *src, uint64_t line, uint64_t stop)
{
    uint64_t end = line;
    while (end < stop && linereport_blank(src, end + 1))
        end++;
    return end;
}

void report_listing(struct session *s, uint32_t file, const struct source_file *src,
                    const struct listing_opts *lo, FILE *out)
{
    size_t n;
    struct line_count *all = line_counts(s, -1, &n);
    uint32_t last = linereport_last(all, n, file, src);
    uint32_t from = lo->from > 0 ? lo->from : 1, to = lo->to > 0 && lo->to < last ? lo->to : last;
    size_t width = lo->line_length > 0 ? lo->line_length : 132;
    struct linereport_listing li = {.s = s,
                                    .src = src,
                                    .lo = lo,
                                    .out = out,
                                    .buf = xmalloc(width + 1),
                                    .width = width,
                                    .calls = s->has_stacks && !(lo->exclude & LISTING_CALLS)};
    linereport_heading(&li, file);
    linereport_column_heads(&li);
    size_t k = 0;
    while (k < n && (all[k].file != file || all[k].line < from))
        k++;
    uint32_t text_end = src != NULL ? src->nlines : 0;
    uint64_t known_short = 0; /* lines up to here are in a short blank run */
    /* 64 bits: a line 4294967295 (#line says so) must not wrap to 0. */
    for (uint64_t line = from; line <= to; line++) {
        /* Past the text, a long run of lines without samples is one row: a
         * #line 2147483000 would otherwise list two billion empty lines. */
        uint64_t next = k < n && all[k].file == file ? all[k].line : (uint64_t)to + 1;
        if (next > (uint64_t)to + 1)
            next = (uint64_t)to + 1;
        /* Within the text, so is a long run of blank lines without samples:
         * a text of millions of empty lines costs what its rows print. */
        if (line <= text_end && line < next && line > known_short && linereport_blank(src, line)) {
            uint64_t end =
                linereport_blank_end(src, line, next - 1 < text_end ? next - 1 : text_end);
            if (end - line + 1 > LINEREPORT_GAP) {
                linereport_gap(&li, end - line + 1, "blank lines without samples");
                line = end;
                continue;
            }
            known_short = end;
        }
        if (line > text_end && next - line > LINEREPORT_GAP) {
            linereport_gap(&li, next - line, "lines without text or samples");
            if ((line = next) > to)
                break;
        }
        uint64_t self = 0, tot = 0;
        for (; k < n && all[k].file == file && all[k].line == line; k++) {
            self += all[k].self;
            tot += all[k].total;
        }
        linereport_row(&li, line, self, tot);
    }
    free(li.buf);
    free(all);
}
