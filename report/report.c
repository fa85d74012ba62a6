#include "config.h"

#include "analysis/calltree.h"
#include "report/report.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "session/view.h"
#include "util/pct.h"
#include "util/quote.h"
#include "util/stats.h"
#include "util/ticks.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The widest the text report's Routine column grows. */
#define REPORT_NAME_MAX 80
/* Below this many samples, or with the top routine's share wider than this
 * many points either way, the report says the numbers are not reliable yet. */
#define REPORT_FEW_SAMPLES 100
#define REPORT_WIDE_POINTS 5.0

double report_lost_pct(const struct counters *c)
{
    return pct_of(c->lost, c->total + c->lost);
}

const char *report_termination(const struct session *s, char *buf, size_t size)
{
    if (s->classic && s->exit_kind == EXIT_NONE) {
        snprintf(buf, size, "unknown"); /* a 1983 file does not say */
        return buf;
    }
    switch (s->exit_kind) {
    case EXIT_TERMINATED:
        if (s->exit_code != 0)
            snprintf(buf, size, "Program terminated normally (exit status %d)", s->exit_code);
        else
            snprintf(buf, size, "Program terminated normally");
        break;
    case EXIT_ABORTED:
        snprintf(buf, size, "Program aborted (%s: %s)", session_signal_name(s->exit_signal),
                 strsignal(s->exit_signal));
        break;
    default:
        if (s->exit_unknown)
            snprintf(buf, size, "Program exited (status unknown: not profil's child)");
        else if (s->attached)
            snprintf(buf, size, "Program still running (profil detached from it)");
        else
            snprintf(buf, size, "Program still running when the session was saved");
        break;
    }
    return buf;
}

/* Where the screen was cleared: the file keeps the whole run all the same. */
/* The marks put into the run, one line each, at their times. */
static void report_marks(const struct session *s, FILE *out)
{
    for (size_t i = 0; i < s->nmarks; i++) {
        char t[32];
        uint64_t ms = (uint64_t)(s->marks[i].t_s * 1000.0 + 0.5);
        fprintf(out, "%s %s %s\n", i == 0 ? "   Marks:" : "         ",
                ticks_time(t, sizeof t, ms, 1000), quote(s->marks[i].text));
    }
}

static void report_clears(const struct session *s, FILE *out)
{
    double at[3];
    size_t n = session_clears(s, at, 3);
    if (n == 0)
        return;
    fprintf(out, " Cleared: at ");
    for (size_t i = 0; i < n && i < 3; i++) {
        char t[32];
        uint64_t ms = (uint64_t)(at[i] * 1000.0 + 0.5);
        fprintf(out, "%s%s",
                i == 0       ? ""
                : i + 1 == n ? " and "
                             : ", ",
                ticks_time(t, sizeof t, ms, 1000));
    }
    if (n > 3)
        fprintf(out, " and %zu more times", n - 3);
    if (s->legacy_clear)
        fprintf(out, " on the screen; this file from an older profil kept only what came "
                     "after the last clear\n");
    else
        fprintf(out, " on the screen; the report counts the whole run\n");
}

static void report_counters(const struct session *s, FILE *out, double lost_pct);
static void report_reliability(const struct session *s, FILE *out, const size_t *order, size_t n);

/* An attached session says that the process's start was not seen. */
static void report_attached(const struct session *s, FILE *out)
{
    if (!s->attached)
        return;
    char date[64] = "";
    time_t t = (time_t)s->attached_at;
    struct tm tm;
    if (s->attached_at != 0 && localtime_r(&t, &tm) != NULL)
        strftime(date, sizeof date, " at %Y-%m-%d %H:%M:%S", &tm);
    fprintf(out, "Attached: to process %u%s, already running: its start was not seen\n", s->pid,
            date);
}

/* A merged session names its runs (profil --merge). */
static void report_merged(const struct session *s, FILE *out)
{
    cJSON *meta = s->meta_json != NULL ? cJSON_Parse(s->meta_json) : NULL;
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(meta, "merged");
    if (cJSON_IsArray(runs) && cJSON_GetArraySize(runs) > 0) {
        fprintf(out, "  Merged: %d runs:", cJSON_GetArraySize(runs));
        const cJSON *r;
        int k = 0;
        cJSON_ArrayForEach (r, runs) {
            const cJSON *file = cJSON_GetObjectItemCaseSensitive(r, "file");
            fprintf(out, "%s %s", k++ ? "," : "",
                    cJSON_IsString(file) ? quote(file->valuestring) : "?");
        }
        fprintf(out, "\n");
    }
    cJSON_Delete(meta);
}

void report_text(struct session *s, const char *title, FILE *out, size_t limit)
{
    char t[32], end[128];
    size_t n;
    size_t *order = session_ranking(s, &n);
    uint64_t accounted = session_accounted(s);
    uint64_t total = s->view.c.total;

    if (title != NULL)
        fprintf(out, "profil report of %s\n", quote(title));
    if (s->classic) {
        /* A 1983 file holds the clock grain, the area, the counters and the buckets. */
        fprintf(out, " Program: unknown (a 1983 PROFIL file)\n");
        fprintf(out, "  Driver: unknown, clock unknown\n");
    } else {
        fprintf(out, " Program: %s", s->program ? quote(s->program) : "?");
        for (size_t i = 0; i < s->nargs; i++)
            fprintf(out, " %s", quote(s->args[i]));
        fprintf(out, "\n");
        if (s->interpreter != NULL)
            fprintf(out, "     Run: by %s, whose code is the program area\n",
                    quote(s->interpreter));
    }
    if (s->comment != NULL)
        fprintf(out, " Comment: %s\n", quote(s->comment));
    if (!s->classic) {
        fprintf(out, "  Driver: %s, %s clock", s->driver ? quote(s->driver) : "?",
                s->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
        if (s->jitter_known && s->jitter_pct > 0)
            fprintf(out, ", periods jittered +-%g %%", s->jitter_pct);
        else if (s->jitter_known)
            fprintf(out, ", exact periods (--no-jitter)");
        fprintf(out, "\n");
    }
    fprintf(out, "   Ended: %s\n", report_termination(s, end, sizeof end));
    if (s->view.filter != NULL)
        fprintf(out, "  Filter: %s: every count below is its own\n", quote(s->view.filter->label));
    if (s->view.oncpu)
        fprintf(out, "  On CPU: only the samples of threads that ran (--on-cpu): the waits "
                     "left out\n");
    if (s->view.window)
        fprintf(out, "  Window: %.1f-%.1f s of %.1f s: every count below is its own\n",
                (double)s->view.win_from * SESSION_FRAME_NS / 1e9,
                (double)s->view.win_to * SESSION_FRAME_NS / 1e9,
                (double)s->nframes * SESSION_FRAME_NS / 1e9);
    report_attached(s, out);
    report_merged(s, out);
    report_clears(s, out);
    report_marks(s, out);
    for (size_t i = 0; i < s->nmodules; i++) {
        if (s->modules[i]->kind == MODULE_KERNEL && s->modules[i]->load_error != NULL)
            fprintf(out, "  Kernel: %s: its samples rank as one routine, [kernel]\n",
                    quote(s->modules[i]->load_error));
    }
    if (s->has_stacks) {
        struct stack_stats st = session_stack_stats(s);
        fprintf(out,
                "  Stacks: %" PRIu64 " samples with a stack, %" PRIu64
                " cut short [truncated], %" PRIu64 " not unwound to the end [unknown]; "
                "deepest %u frames\n",
                st.samples, st.truncated, st.unknown, st.max_depth);
    } else if (!s->classic) {
        fprintf(out, "  Stacks: none (this session has no stacks)\n");
    }
    if (session_saturated(s))
        fprintf(out, " Warning: counts reached 2^64 - 1 and stopped there (saturated): the times "
                     "and shares made of them are not exact\n");
    double lost_pct = report_lost_pct(&s->view.c);
    if (lost_pct > REPORT_LOST_WARN_PCT)
        fprintf(out,
                " Warning: %" PRIu64 " samples lost, %.2f%% of the ticks: the shares below "
                "may be biased\n",
                s->view.c.lost, lost_pct);
    fprintf(out, "\n");

    if (s->view.prog_module != 0)
        fprintf(out, "    Area: %s, the executable of the process shown\n",
                quote(s->modules[s->view.prog_module]->path));
    fprintf(out, "   Start: 0x%" PRIx64 "\n", s->view.prog_low);
    fprintf(out, "     End: 0x%" PRIx64 "\n", s->view.prog_high);
    fprintf(out, "  Length: %zu\n", s->view.nbuckets);
    fprintf(out, "   Scale: %u\n", s->view.bucket_paragraphs);
    fprintf(out, "Interval: %u\n", s->interval_us);
    fprintf(out, "    Time: %s\n", ticks_time(t, sizeof t, total, s->interval_us));
    if (s->classic) {
        /* No routines in a 1983 file: its buckets, as PROHST listed them. */
        free(order);
        fprintf(out, "\n");
        report_hist(s, out, false);
        report_counters(s, out, lost_pct);
        return;
    }
    /* The Routine column widens to the longest name shown, up to 80; a
     * longer one (C++) keeps its start and its end. */
    int namew = 32;
    for (size_t k = 0; k < n && (limit == 0 || k < limit); k++) {
        size_t len = strlen(quote(s->funcs[order[k]].name));
        if ((int)len > namew)
            namew = len > REPORT_NAME_MAX ? REPORT_NAME_MAX : (int)len;
    }
    bool stacks = s->has_stacks;
    /* % of Total with its 95 % interval: "42.30% +-1.21". */
    if (stacks)
        fprintf(out, "%-11s %-*s %10s %-9s %13s %9s %10s  %s\n", "Time", namew, "Routine",
                "% of Total", "+-95%", "% of Accounted", "Samples", "With calls", "Module");
    else
        fprintf(out, "%-11s %-*s %10s %-9s %13s %9s  %s\n", "Time", namew, "Routine", "% of Total",
                "+-95%", "% of Accounted", "Samples", "Module");
    for (size_t k = 0; k < n; k++) {
        const struct func *f = &s->funcs[order[k]];
        if (limit != 0 && k == limit) {
            fprintf(out, "%-11s (%zu more routine%s: profil --report shows them all)\n", "...",
                    n - k, n - k == 1 ? "" : "s");
            break;
        }
        char name[REPORT_NAME_MAX + 1];
        const char *shown = quote(f->name);
        size_t len = strlen(shown);
        if (len > REPORT_NAME_MAX)
            snprintf(name, sizeof name, "%.*s...%s", (REPORT_NAME_MAX - 3) / 2 + 1, shown,
                     shown + len - (REPORT_NAME_MAX - 3) / 2);
        else
            snprintf(name, sizeof name, "%s", shown);
        char ci[16];
        snprintf(ci, sizeof ci, "+-%.2f%s", stats_halfwidth_pct(f->samples, total, session_deff(s)),
                 report_indistinct(s, order, n, k) ? " ~" : "");
        if (stacks)
            fprintf(out, "%-11s %-*s %9.2f%% %-9s %12.2f%% %9" PRIu64 " %9.2f%%  %s%s\n",
                    ticks_time(t, sizeof t, f->samples, s->interval_us), namew, name,
                    pct_of(f->samples, total), ci, pct_of(f->samples, accounted), f->samples,
                    pct_of(f->total, total), quote(s->modules[f->module]->name),
                    f->inlined ? " (inlined)" : "");
        else
            fprintf(out, "%-11s %-*s %9.2f%% %-9s %12.2f%% %9" PRIu64 "  %s%s\n",
                    ticks_time(t, sizeof t, f->samples, s->interval_us), namew, name,
                    pct_of(f->samples, total), ci, pct_of(f->samples, accounted), f->samples,
                    quote(s->modules[f->module]->name), f->inlined ? " (inlined)" : "");
    }
    fprintf(out, "%-11s %-*s %9.2f%%\n", ticks_time(t, sizeof t, accounted, s->interval_us), namew,
            "Total", pct_of(accounted, total));
    if (stacks)
        fprintf(out, "Samples: the routine's own (Self); With calls: the share of samples with "
                     "the routine anywhere on the stack (Total).\n");
    report_reliability(s, out, order, n);
    free(order);
    report_counters(s, out, lost_pct);
    if (s->nthreads > 1 || s->view.filter != NULL)
        report_who(s, out, limit);
}

bool report_indistinct(const struct session *s, const size_t *order, size_t n, size_t k)
{
    uint64_t me = s->funcs[order[k]].samples;
    if (me == 0)
        return false;
    for (size_t j = k > 0 ? k - 1 : k + 1; j <= k + 1 && j < n; j += 2) {
        uint64_t other = s->funcs[order[j]].samples;
        if (other > 0 && stats_overlap(me, other, s->view.c.total, session_deff(s)))
            return true;
    }
    return false;
}

/* +-: 95 % intervals.  Too few samples for the top routine's share to mean
 * much: say so, and how many would make it +-1 point. */
static void report_reliability(const struct session *s, FILE *out, const size_t *order, size_t n)
{
    uint64_t total = s->view.c.total;
    if (total == 0 || n == 0)
        return;
    const struct func *top = &s->funcs[order[0]];
    double half = stats_halfwidth_pct(top->samples, total, session_deff(s));
    fprintf(out, "+-: the share's 95 %% interval from the number of samples (docs/statistics.md); "
                 "~: its interval overlaps the one above or below: the two cannot be told "
                 "apart.\n");
    if (total >= REPORT_FEW_SAMPLES && half <= REPORT_WIDE_POINTS)
        return;
    uint64_t need = stats_samples_for((double)top->samples / (double)total, 1, session_deff(s));
    fprintf(out,
            "Too few samples to rely on: %" PRIu64 " in all, %s is %.2f%% +-%.2f; about %" PRIu64
            " samples would make it +-1 point (a longer run, or a shorter sample time).\n",
            total, quote(top->name), pct_of(top->samples, total), half, need);
}

uint64_t report_samples_wanted(const struct session *s)
{
    uint64_t total = s->view.c.total, top = 0;
    if (total == 0)
        return 0;
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].samples > top)
            top = s->funcs[i].samples;
    }
    if (total >= REPORT_FEW_SAMPLES &&
        stats_halfwidth_pct(top, total, session_deff(s)) <= REPORT_WIDE_POINTS)
        return 0;
    return stats_samples_for((double)top / (double)total, 1, session_deff(s));
}

/* The counters table: PROFIL's four, the total, and what was not sampled. */
static void report_counters(const struct session *s, FILE *out, double lost_pct)
{
    uint64_t total = s->view.c.total;
    fprintf(out, "\n%-9s %12s %8s\n", "Counter", "Samples", "%");
    const struct {
        const char *name;
        uint64_t v;
    } rows[] = {{"Program", s->view.c.program},
                {"DOS", s->view.c.dos},
                {"I/O", s->view.c.io},
                {"high", s->view.c.high}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        fprintf(out, "%-9s %12" PRIu64 " %7.2f%%\n", rows[i].name, rows[i].v,
                pct_of(rows[i].v, total));
    fprintf(out, "%-9s %12" PRIu64 "\n", "Total", total);
    if (s->classic) { /* PROFIL 1983 counted neither */
        fprintf(out, "%-9s %12s\n%-9s %12s\n", "Lost", "unknown", "Preempted", "unknown");
        return;
    }
    fprintf(out, "%-9s %12" PRIu64 " %7.2f%% of the ticks\n", "Lost", s->view.c.lost, lost_pct);
    fprintf(out, "%-9s %12" PRIu64 "\n", "Preempted", s->view.c.preempted);
    if (s->view.c.preempted > 0)
        fprintf(out, "Preempted: ticks in which a thread of the program was ready to run but "
                     "waited for a CPU; neither samples nor lost.\n");
}

/* A JSON array as text, made an item at a time: millions of buckets as cJSON
 * nodes took 100 bytes each (4 GB for a file's 4 million, with --hist=all);
 * as text they take what they print as. */
struct report_raw {
    char *p;
    size_t len, alloc;
    bool open; /* the "[" is there */
};

static void report_raw_put(struct report_raw *r, const char *text, size_t n)
{
    r->p = xgrowarray(r->p, &r->alloc, r->len + n + 1, 1);
    memcpy(r->p + r->len, text, n);
    r->len += n;
    r->p[r->len] = '\0';
}

/* Append ITEM (which this frees) as cJSON prints it in an array whose items'
 * lines are indented DEPTH tabs. */
static void report_raw_item(struct report_raw *r, cJSON *item, int depth)
{
    report_raw_put(r, r->open ? ", " : "[", r->open ? 2 : 1);
    r->open = true;
    char *text = quote_json(cJSON_Print(item));
    cJSON_Delete(item);
    for (const char *p = text ? text : "null", *nl; *p != '\0'; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl == NULL) {
            report_raw_put(r, p, strlen(p));
            break;
        }
        report_raw_put(r, p, (size_t)(nl - p) + 1);
        for (int i = 0; i < depth; i++)
            report_raw_put(r, "\t", 1);
    }
    free(text);
}

/* Append a count as cJSON prints one: "%d" up to INT_MAX, without making a
 * node for it (millions of them under ASan filled its quarantine). */
static void report_raw_count(struct report_raw *r, uint64_t v)
{
    if (v > INT_MAX) {
        report_raw_item(r, cJSON_CreateNumber((double)v), 0);
        return;
    }
    char text[16];
    int n = snprintf(text, sizeof text, "%s%d", r->open ? ", " : "[", (int)v);
    r->open = true;
    report_raw_put(r, text, (size_t)n);
}

/* Close the array. */
static void report_raw_close(struct report_raw *r)
{
    if (!r->open)
        report_raw_put(r, "[", 1);
    report_raw_put(r, "]", 1);
}

/* Close the array and add it to O as KEY. */
static void report_raw_end(struct report_raw *r, cJSON *o, const char *key)
{
    report_raw_close(r);
    cJSON_AddRawToObject(o, key, r->p);
    free(r->p);
}

/* Start R as the text of O (which this frees) up to its raw "\001", where
 * the array goes (no string of O holds that byte: cJSON escapes control
 * characters), so that only the text is ever in memory, and once; the rest
 * of O's text is returned, for report_raw_finish. */
static char *report_raw_start(struct report_raw *r, cJSON *o)
{
    char *outer = quote_json(cJSON_Print(o));
    cJSON_Delete(o);
    char *at = outer != NULL ? strchr(outer, '\001') : NULL;
    char *tail = xstrdup(at != NULL ? at + 1 : "");
    if (at != NULL)
        report_raw_put(r, outer, (size_t)(at - outer));
    free(outer);
    return tail;
}

/* Close the array R and end it with TAIL (which this frees): the text. */
static char *report_raw_finish(struct report_raw *r, char *tail)
{
    report_raw_close(r);
    report_raw_put(r, tail, strlen(tail));
    free(tail);
    return r->p;
}

/* Percentages rounded to 1/1000 of a point: enough, and stable to compare. */
static cJSON *report_json_pct(uint64_t part, uint64_t whole)
{
    return cJSON_CreateNumber(round(pct_of(part, whole) * 1000.0) / 1000.0);
}

static cJSON *report_json_object(struct session *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "program",
                          cJSON_CreateString(s->program && !s->classic ? s->program : ""));
    cJSON *args = cJSON_AddArrayToObject(o, "args");
    for (size_t i = 0; i < s->nargs; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(s->args[i]));
    cJSON_AddItemToObject(o, "comment",
                          s->comment ? cJSON_CreateString(s->comment) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "interpreter",
                          s->interpreter ? cJSON_CreateString(s->interpreter) : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "driver", s->driver ? s->driver : "");
    cJSON_AddStringToObject(o, "clock", s->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
    cJSON_AddNumberToObject(o, "interval_us", s->interval_us);
    cJSON_AddItemToObject(o, "jitter_pct",
                          s->jitter_known ? cJSON_CreateNumber(s->jitter_pct) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "design_effect", session_deff(s));
    cJSON_AddNumberToObject(o, "bucket_paragraphs", s->view.bucket_paragraphs);
    cJSON_AddNumberToObject(o, "bucket_count", (double)s->view.nbuckets);
    cJSON_AddNumberToObject(o, "prog_low", (double)s->view.prog_low);
    cJSON_AddNumberToObject(o, "prog_high", (double)s->view.prog_high);

    cJSON *exit = cJSON_AddObjectToObject(o, "exit");
    cJSON_AddItemToObject(exit, "status",
                          s->exit_kind == EXIT_ABORTED      ? cJSON_CreateString("aborted")
                          : s->exit_kind == EXIT_TERMINATED ? cJSON_CreateString("terminated")
                          : s->exit_unknown                 ? cJSON_CreateString("exited")
                          : s->attached                     ? cJSON_CreateString("running")
                                                            : cJSON_CreateNull());
    if (s->attached) /* only then: the keys of other sessions stay as they were */
        cJSON_AddBoolToObject(o, "attached", true);
    cJSON_AddItemToObject(exit, "code",
                          s->exit_kind == EXIT_TERMINATED ? cJSON_CreateNumber(s->exit_code)
                                                          : cJSON_CreateNull());
    cJSON_AddItemToObject(exit, "signal",
                          s->exit_kind == EXIT_ABORTED
                              ? cJSON_CreateString(session_signal_name(s->exit_signal))
                              : cJSON_CreateNull());

    cJSON *c = cJSON_AddObjectToObject(o, "counters");
    cJSON_AddNumberToObject(c, "program", (double)s->view.c.program);
    cJSON_AddNumberToObject(c, "dos", (double)s->view.c.dos);
    cJSON_AddNumberToObject(c, "io", (double)s->view.c.io);
    cJSON_AddNumberToObject(c, "high", (double)s->view.c.high);
    cJSON_AddNumberToObject(c, "total", (double)s->view.c.total);
    cJSON_AddNumberToObject(c, "lost", (double)s->view.c.lost);
    cJSON_AddNumberToObject(c, "preempted", (double)s->view.c.preempted);
    cJSON_AddItemToObject(c, "lost_pct",
                          report_json_pct(s->view.c.lost, s->view.c.total + s->view.c.lost));

    size_t n;
    size_t *order = session_ranking(s, &n);
    uint64_t accounted = session_accounted(s);
    cJSON_AddNumberToObject(o, "accounted", (double)accounted);
    cJSON *funcs = cJSON_AddArrayToObject(o, "functions");
    for (size_t k = 0; k < n; k++) {
        const struct func *f = &s->funcs[order[k]];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", f->name);
        cJSON_AddStringToObject(j, "raw_name", f->raw ? f->raw : f->name);
        cJSON_AddStringToObject(j, "module", s->modules[f->module]->name);
        cJSON_AddNumberToObject(j, "samples", (double)f->samples);
        cJSON_AddNumberToObject(j, "seconds", (double)f->samples * (double)s->interval_us / 1e6);
        cJSON_AddItemToObject(j, "pct_total", report_json_pct(f->samples, s->view.c.total));
        cJSON_AddItemToObject(j, "pct_accounted", report_json_pct(f->samples, accounted));
        /* The 95 % interval of pct_total (Wilson's): docs/statistics.md. */
        double lo, hi;
        stats_wilson(f->samples, s->view.c.total, session_deff(s), &lo, &hi);
        cJSON_AddNumberToObject(j, "ci_low", round(lo * 100000.0) / 1000.0);
        cJSON_AddNumberToObject(j, "ci_high", round(hi * 100000.0) / 1000.0);
        cJSON_AddBoolToObject(j, "indistinct", report_indistinct(s, order, n, k));
        cJSON_AddNumberToObject(j, "self", (double)f->samples);
        cJSON_AddNumberToObject(j, "total", (double)f->total);
        cJSON_AddItemToObject(j, "self_pct", report_json_pct(f->samples, s->view.c.total));
        cJSON_AddItemToObject(j, "total_pct", report_json_pct(f->total, s->view.c.total));
        uint32_t file, line;
        if (lines_func_place(s, (int64_t)order[k], &file, &line)) {
            cJSON_AddStringToObject(j, "file", lines_file(s, file));
            cJSON_AddNumberToObject(j, "line", line);
        } else {
            cJSON_AddNullToObject(j, "file");
            cJSON_AddNullToObject(j, "line");
        }
        cJSON_AddBoolToObject(j, "inlined", f->inlined);
        /* Where a stack ended without reaching its start, or a thread
         * waited off CPU, is no function: say so, so that a reader need
         * not know the names. */
        cJSON_AddStringToObject(j, "kind",
                                f->module == s->truncated_module ? "truncated"
                                : f->module == s->unknown_module ? "unknown"
                                : f->module == s->blocked_module ? "blocked"
                                                                 : "function");
        cJSON_AddItemToArray(funcs, j);
    }
    report_json_who(s, o, order, n);
    free(order);

    struct report_raw buckets = {NULL, 0, 0, false};
    for (size_t i = 0; i < s->view.nbuckets; i++)
        report_raw_count(&buckets, s->view.buckets[i]);
    report_raw_end(&buckets, o, "buckets");

    cJSON *notes = cJSON_AddArrayToObject(o, "notes");
    for (size_t i = 0; i < s->nmodules; i++) {
        if (s->modules[i]->kind == MODULE_KERNEL && s->modules[i]->load_error != NULL)
            cJSON_AddItemToArray(notes, cJSON_CreateString(s->modules[i]->load_error));
    }

    cJSON *meta = s->meta_json ? cJSON_Parse(s->meta_json) : NULL;
    cJSON_AddItemToObject(o, "meta", meta ? meta : cJSON_CreateNull());

    if (s->has_stacks) {
        struct stack_stats st = session_stack_stats(s);
        cJSON *js = cJSON_AddObjectToObject(o, "stacks");
        cJSON_AddNumberToObject(js, "samples", (double)st.samples);
        cJSON_AddNumberToObject(js, "unknown", (double)st.unknown);
        cJSON_AddNumberToObject(js, "truncated", (double)st.truncated);
        cJSON_AddNumberToObject(js, "max_depth", st.max_depth);
    } else {
        cJSON_AddNullToObject(o, "stacks");
    }
    /* The marks of the run: the newest key, last, so older readers' key order holds. */
    cJSON *marks = cJSON_AddArrayToObject(o, "marks");
    for (size_t i = 0; i < s->nmarks; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "t_s", round(s->marks[i].t_s * 1e6) / 1e6);
        cJSON_AddStringToObject(m, "text", s->marks[i].text);
        cJSON_AddItemToArray(marks, m);
    }
    return o;
}

/* O as text, indented when FORMATTED, and freed. */
static char *report_json_print_as(cJSON *o, bool formatted)
{
    char *text = quote_json(formatted ? cJSON_Print(o) : cJSON_PrintUnformatted(o));
    cJSON_Delete(o);
    return text != NULL ? text : xstrdup("{}");
}

static char *report_json_print(cJSON *o)
{
    return report_json_print_as(o, true);
}

char *report_json(struct session *s)
{
    return report_json_print(report_json_object(s));
}

/* The deepest call tree whose JSON is indented.  cJSON indents each level
 * (an object and its children's array) by two tabs more, so that a deeper
 * tree's text grows with the square of its depth: a 4 KB file's stack of
 * 4,096 levels printed 113 MB in 2.9 s.  A deeper tree is printed without
 * the whitespace, the same JSON. */
#define REPORT_JSON_INDENT_DEPTH 128

/* Node I of tree T and what lies under it, down to LIMIT samples, at DEPTH
 * (0 for the root); *DEEPEST is the deepest level made. */
static cJSON *report_json_node(struct session *s, const struct calltree *t, uint32_t i,
                               uint64_t limit, uint32_t depth, uint32_t *deepest)
{
    if (depth > *deepest)
        *deepest = depth;
    const struct calltree_node *n = &t->nodes[i];
    cJSON *j = cJSON_CreateObject();
    if (n->func >= 0) {
        const struct func *f = &s->funcs[n->func];
        cJSON_AddStringToObject(j, "name", f->name);
        cJSON_AddStringToObject(j, "module", s->modules[f->module]->name);
    } else {
        cJSON_AddStringToObject(j, "name", "[root]");
    }
    cJSON_AddNumberToObject(j, "total", (double)n->total);
    cJSON_AddNumberToObject(j, "self", (double)n->self);
    cJSON *kids = cJSON_AddArrayToObject(j, "children");
    for (uint32_t c = n->child; c != 0; c = t->nodes[c].next) {
        if (t->nodes[c].total < limit || t->nodes[c].total == 0)
            break; /* sorted by total: the rest are smaller */
        cJSON_AddItemToArray(kids, report_json_node(s, t, c, limit, depth + 1, deepest));
    }
    return j;
}

char *report_json_tree(struct session *s, bool inverted, double percent_limit)
{
    return report_json_full(s, true, inverted, percent_limit, false);
}

char *report_json_full(struct session *s, bool tree, bool inverted, double percent_limit,
                       bool lines)
{
    cJSON *o = report_json_object(s);
    if (lines)
        report_json_add_lines(s, o);
    struct calltree *t = tree ? session_calltree(s, inverted) : NULL;
    if (!tree) {
        return report_json_print(o);
    } else if (t != NULL) {
        uint64_t limit = (uint64_t)ceil(percent_limit / 100.0 * (double)s->view.c.total);
        uint32_t deepest = 0;
        cJSON *jt = report_json_node(s, t, 0, limit, 0, &deepest);
        cJSON_AddBoolToObject(jt, "inverted", inverted);
        cJSON_AddItemToObject(o, "tree", jt);
        calltree_free(t);
        return report_json_print_as(o, deepest <= REPORT_JSON_INDENT_DEPTH);
    } else {
        cJSON_AddNullToObject(o, "tree");
    }
    return report_json_print(o);
}

/* The bar of COUNT against the largest, MAX: at least one star for any count. */
static int report_bar(uint64_t count, uint64_t max)
{
    if (count == 0 || max == 0)
        return 0;
    return (int)((count * REPORT_BAR_WIDTH + max - 1) / max);
}

/* The label of a bucket as the histogram prints it: "name", "name +N", or "". */
static const char *report_label(const struct bucket_label *l, char *buf, size_t size)
{
    if (l->name == NULL)
        snprintf(buf, size, "%s", "");
    else if (l->others > 0)
        snprintf(buf, size, "%s +%zu", l->name, l->others);
    else
        snprintf(buf, size, "%s", l->name);
    return buf;
}

void report_hist(struct session *s, FILE *out, bool all)
{
    struct bucket_label *labels = session_bucket_labels(s);
    struct report_place *places = report_bucket_places(s);
    uint64_t max = 0, size = 16 * (uint64_t)s->view.bucket_paragraphs;
    for (size_t i = 0; i < s->view.nbuckets; i++)
        max = s->view.buckets[i] > max ? s->view.buckets[i] : max;
    fprintf(out,
            "Bucket histogram: %zu buckets of %u paragraph%s (%" PRIu64 " bytes) from 0x%" PRIx64
            " to 0x%" PRIx64 "%s\n",
            s->view.nbuckets, s->view.bucket_paragraphs, s->view.bucket_paragraphs == 1 ? "" : "s",
            size, s->view.prog_low, s->view.prog_high, all ? "" : "; empty buckets not shown");
    if (s->classic)
        fprintf(out, "%-18s %10s\n", "Address", "Count");
    else
        fprintf(out, "%-18s %-32s %-24s %10s\n", "Address", "Symbol", "Line", "Count");
    char name[512], bar[REPORT_BAR_WIDTH + 1], place[300];
    for (size_t i = 0; i < s->view.nbuckets; i++) {
        uint64_t count = s->view.buckets[i];
        if (count == 0 && !all)
            continue;
        int n = report_bar(count, max);
        memset(bar, '*', (size_t)n);
        bar[n] = '\0';
        uint64_t addr = s->view.prog_low + i * size;
        if (s->classic)
            fprintf(out, "0x%-16" PRIx64 " %10" PRIu64 " %s\n", addr, count, bar);
        else
            fprintf(out, "0x%-16" PRIx64 " %-32s %-24s %10" PRIu64 " %s\n", addr,
                    quote(report_label(&labels[i], name, sizeof name)),
                    report_place_text(s, &places[i], place, sizeof place), count, bar);
    }
    free(places);
    free(labels);
}

char *report_hist_json(struct session *s, bool all)
{
    struct bucket_label *labels = session_bucket_labels(s);
    struct report_place *places = report_bucket_places(s);
    uint64_t size = 16 * (uint64_t)s->view.bucket_paragraphs;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "program", s->program && !s->classic ? s->program : "");
    cJSON_AddNumberToObject(o, "bucket_paragraphs", s->view.bucket_paragraphs);
    cJSON_AddNumberToObject(o, "bucket_count", (double)s->view.nbuckets);
    cJSON_AddNumberToObject(o, "prog_low", (double)s->view.prog_low);
    cJSON_AddNumberToObject(o, "prog_high", (double)s->view.prog_high);
    cJSON_AddBoolToObject(o, "empty_shown", all);
    cJSON_AddRawToObject(o, "buckets", "\001"); /* where they go */
    struct report_raw buckets = {NULL, 0, 0, false};
    char *tail = report_raw_start(&buckets, o);
    for (size_t i = 0; i < s->view.nbuckets; i++) {
        if (s->view.buckets[i] == 0 && !all)
            continue;
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "addr", (double)(s->view.prog_low + i * size));
        cJSON_AddItemToObject(
            b, "symbol", labels[i].name ? cJSON_CreateString(labels[i].name) : cJSON_CreateNull());
        cJSON_AddNumberToObject(b, "others", (double)labels[i].others);
        cJSON_AddNumberToObject(b, "count", (double)s->view.buckets[i]);
        if (places[i].file != 0) {
            cJSON_AddStringToObject(b, "file", lines_file(s, places[i].file));
            cJSON_AddNumberToObject(b, "line", places[i].line);
        } else {
            cJSON_AddNullToObject(b, "file");
            cJSON_AddNullToObject(b, "line");
        }
        report_raw_item(&buckets, b, 2);
    }
    free(places);
    free(labels);
    return report_raw_finish(&buckets, tail);
}
