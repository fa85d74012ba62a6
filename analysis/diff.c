#include "config.h"

#include "analysis/diff.h"
#include "elf/module.h"
#include "util/pct.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A function's key across builds: its module's name (the program's module,
 * module 0, has none: a rebuilt program may be called something else), a
 * tab, and its name; a name made of the module's name and an offset
 * ("prog+0x1240", no symbol) keeps only "+0x1240". */
static char *diff_key(const struct session *s, const struct func *f)
{
    const char *mod = s->modules[f->module]->name;
    const char *name = f->name;
    size_t ml = strlen(mod);
    if (strncmp(name, mod, ml) == 0 && strncmp(name + ml, "+0x", 3) == 0)
        name += ml;
    return xasprintf("%s\t%s", f->module == 0 ? "" : mod, name);
}

struct diff_key {
    char *key;
    size_t func;
};

static int diff_key_cmp(const void *a, const void *b)
{
    return strcmp(((const struct diff_key *)a)->key, ((const struct diff_key *)b)->key);
}

/* The functions of S with samples of their own, sorted by key. */
static struct diff_key *diff_keys(struct session *s, size_t *n)
{
    size_t nr;
    size_t *order = session_ranking(s, &nr);
    struct diff_key *k = xcalloc(nr + 1, sizeof *k);
    *n = 0;
    for (size_t i = 0; i < nr; i++) {
        if (s->funcs[order[i]].samples == 0)
            continue;
        k[*n].key = diff_key(s, &s->funcs[order[i]]);
        k[*n].func = order[i];
        (*n)++;
    }
    free(order);
    qsort(k, *n, sizeof *k, diff_key_cmp);
    return k;
}

/* Two-sided p of the two-proportion z-test with a pooled proportion, each
 * session's variance DA and DB times a binomial one (its design effect). */
static double diff_p(uint64_t a, uint64_t na, double da, uint64_t b, uint64_t nb, double db)
{
    if (na == 0 || nb == 0)
        return 1;
    double pa = (double)a / (double)na, pb = (double)b / (double)nb;
    double p = (double)(a + b) / (double)(na + nb);
    double se = sqrt(p * (1 - p) * (da / (double)na + db / (double)nb));
    if (!(se > 0))
        return pa == pb ? 1 : 0;
    return erfc(fabs(pb - pa) / se / M_SQRT2);
}

static void diff_add(struct diff *d, size_t *alloc, const struct session *s, const struct func *f,
                     uint64_t before, uint64_t after, size_t before_func, size_t after_func)
{
    if (d->n == *alloc) {
        *alloc = *alloc ? 2 * *alloc : 64;
        d->rows = xreallocarray(d->rows, *alloc, sizeof *d->rows);
    }
    struct diff_row *r = &d->rows[d->n++];
    *r = (struct diff_row){.name = xstrdup(f->name),
                           .module = xstrdup(s->modules[f->module]->name),
                           .before = before,
                           .after = after,
                           .after_func = after_func,
                           .before_func = before_func};
    r->before_pct = pct_of(before, d->before_total);
    r->after_pct = pct_of(after, d->after_total);
    r->change = r->after_pct - r->before_pct;
    r->before_s = (double)before * d->before_interval_us / 1e6;
    r->after_s = (double)after * d->after_interval_us / 1e6;
    r->p = diff_p(before, d->before_total, d->before_deff, after, d->after_total, d->after_deff);
}

static int diff_by_p(const void *a, const void *b)
{
    double x = (*(struct diff_row *const *)a)->p, y = (*(struct diff_row *const *)b)->p;
    return x < y ? -1 : x > y;
}

static int diff_by_change(const void *a, const void *b)
{
    const struct diff_row *x = a, *y = b;
    double cx = fabs(x->change), cy = fabs(y->change);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Holm's step-down adjustment: the i-th smallest p of m times (m - i),
 * never less than the one before it, at most 1.  It keeps the chance of any
 * false "significant" among all the rows under the level, where testing
 * each of 50 functions at 0.05 would find two or three by chance alone. */
static void diff_holm(struct diff *d)
{
    struct diff_row **by = xcalloc(d->n + 1, sizeof *by);
    for (size_t i = 0; i < d->n; i++)
        by[i] = &d->rows[i];
    qsort(by, d->n, sizeof *by, diff_by_p);
    double run = 0;
    for (size_t i = 0; i < d->n; i++) {
        double adj = fmin(1, (double)(d->n - i) * by[i]->p);
        run = fmax(run, adj);
        by[i]->p_adjusted = run;
        by[i]->stars = run < 0.001 ? 3 : run < 0.01 ? 2 : run < 0.05 ? 1 : 0;
    }
    free(by);
}

struct diff *diff_sessions(struct session *a, struct session *b)
{
    struct diff *d = xcalloc(1, sizeof *d);
    d->before_total = a->view.c.total;
    d->after_total = b->view.c.total;
    d->before_interval_us = a->interval_us;
    d->after_interval_us = b->interval_us;
    d->before_deff = session_deff(a);
    d->after_deff = session_deff(b);
    size_t na, nb, alloc = 0;
    struct diff_key *ka = diff_keys(a, &na), *kb = diff_keys(b, &nb);
    /* A merge of the two sorted key lists. */
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(ka[i].key, kb[j].key);
        if (c == 0) {
            diff_add(d, &alloc, b, &b->funcs[kb[j].func], a->funcs[ka[i].func].samples,
                     b->funcs[kb[j].func].samples, ka[i].func, kb[j].func);
            i++, j++;
        } else if (c < 0) {
            diff_add(d, &alloc, a, &a->funcs[ka[i].func], a->funcs[ka[i].func].samples, 0,
                     ka[i].func, SIZE_MAX);
            i++;
        } else {
            diff_add(d, &alloc, b, &b->funcs[kb[j].func], 0, b->funcs[kb[j].func].samples, SIZE_MAX,
                     kb[j].func);
            j++;
        }
    }
    for (size_t k = 0; k < na; k++)
        free(ka[k].key);
    for (size_t k = 0; k < nb; k++)
        free(kb[k].key);
    free(ka);
    free(kb);
    diff_holm(d);
    if (d->n > 1)
        qsort(d->rows, d->n, sizeof *d->rows, diff_by_change);
    return d;
}

static const char *diff_stars(int n)
{
    return n == 3 ? "***" : n == 2 ? "**" : n == 1 ? "*" : "";
}

/* p as a short column: "<0.001", "0.012", "1". */
static void diff_p_text(char *buf, size_t size, double p)
{
    if (p < 0.001)
        snprintf(buf, size, "<0.001");
    else
        snprintf(buf, size, "%.3f", p);
}

void diff_print(const struct diff *d, const char *before, const char *after, FILE *out)
{
    fprintf(out, "profil diff of %s (%" PRIu64 " samples) and %s (%" PRIu64 " samples)\n",
            quote(before), d->before_total, quote(after), d->after_total);
    int namew = 32;
    for (size_t i = 0; i < d->n; i++) {
        int len = (int)strlen(quote(d->rows[i].name));
        if (len > namew)
            namew = len > 80 ? 80 : len;
    }
    fprintf(out, "%-*s %-16s %8s %8s %8s %9s %8s\n", namew, "Routine", "Module", "Before", "After",
            "Change", "Time", "p");
    for (size_t i = 0; i < d->n; i++) {
        const struct diff_row *r = &d->rows[i];
        char p[16];
        diff_p_text(p, sizeof p, r->p_adjusted);
        fprintf(out, "%-*.*s %-16.16s %7.2f%% %7.2f%% %+8.2f %+8.3fs %8s %s\n", namew, namew,
                quote(r->name), quote(r->module), r->before_pct, r->after_pct, r->change,
                r->after_s - r->before_s, p, diff_stars(r->stars));
    }
    fprintf(out,
            "Before, After: the routine's own samples, in %% of each session's total; Change: in "
            "points; Time: the change in its own time (samples times the interval).\np: "
            "two-proportion test of the change, adjusted (Holm) for the %zu routines "
            "compared; *: p < 0.05, **: < 0.01, ***: < 0.001.\nIt covers chance, not a machine "
            "that was busier in one run than in the other (docs/statistics.md).\n",
            d->n);
}

char *diff_json(const struct diff *d, const char *before, const char *after)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *b = cJSON_AddObjectToObject(o, "before");
    cJSON_AddStringToObject(b, "file", before);
    cJSON_AddNumberToObject(b, "samples", (double)d->before_total);
    cJSON_AddNumberToObject(b, "design_effect", d->before_deff);
    cJSON *a = cJSON_AddObjectToObject(o, "after");
    cJSON_AddStringToObject(a, "file", after);
    cJSON_AddNumberToObject(a, "samples", (double)d->after_total);
    cJSON_AddNumberToObject(a, "design_effect", d->after_deff);
    cJSON_AddNumberToObject(o, "compared", (double)d->n);
    cJSON *rows = cJSON_AddArrayToObject(o, "functions");
    for (size_t i = 0; i < d->n; i++) {
        const struct diff_row *r = &d->rows[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", r->name);
        cJSON_AddStringToObject(j, "module", r->module);
        cJSON_AddNumberToObject(j, "before_samples", (double)r->before);
        cJSON_AddNumberToObject(j, "after_samples", (double)r->after);
        cJSON_AddNumberToObject(j, "before_pct", round(r->before_pct * 1000) / 1000);
        cJSON_AddNumberToObject(j, "after_pct", round(r->after_pct * 1000) / 1000);
        cJSON_AddNumberToObject(j, "change", round(r->change * 1000) / 1000);
        cJSON_AddNumberToObject(j, "before_seconds", r->before_s);
        cJSON_AddNumberToObject(j, "after_seconds", r->after_s);
        cJSON_AddNumberToObject(j, "p", r->p);
        cJSON_AddNumberToObject(j, "p_adjusted", r->p_adjusted);
        cJSON_AddStringToObject(j, "stars", diff_stars(r->stars));
        cJSON_AddItemToArray(rows, j);
    }
    char *text = quote_json(cJSON_Print(o));
    cJSON_Delete(o);
    return text != NULL ? text : xstrdup("{}");
}

void diff_free(struct diff *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->rows[i].name);
        free(d->rows[i].module);
    }
    free(d->rows);
    free(d);
}
