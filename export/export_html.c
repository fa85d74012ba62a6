/*
 * The flame graph as one HTML page: export/flame.html (its markup, style
 * and script, embedded at build time) with the profile as JSON in its
 * middle.  The JSON holds a string table of the frames' names, a module
 * table, and the stacks as a prefix tree: node i is (parent, frame), its
 * parent always a lower number, with each node's own samples for the whole
 * program and for each thread.  The page sums them up itself.
 */
#include "config.h"

#include "analysis/diff.h"
#include "export/export.h"
#include "elf/module.h"
#include "util/quote.h"
#include "report/report.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "util/ticks.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* export/flame.html, as bytes, with a NUL after them (made by make from
 * the file: export/flame.html.inc). */
static const char export_html_template[] = {
#include "export/flame_html.inc"
    0};

/* Where the template takes the JSON. */
#define EXPORT_HTML_MARK "@PROFIL_DATA@"

/* The kinds of module a frame is coloured by, as the Flame view's. */
enum html_kind { HTML_PROGRAM, HTML_LIBRARY, HTML_KERNEL, HTML_JIT, HTML_OTHER };

/* One thread's samples at one node. */
struct html_tcount {
    uint32_t tid;
    uint32_t node;
    uint64_t count;
};

/* Text grown at its end. */
struct html_text {
    char *p;
    size_t n, alloc;
};

/* One profile as the page reads it, while it is made. */
struct html_prof {
    struct session *s;
    int64_t *frame_of; /* by export_key: index into the frames, -1 none yet */
    size_t nkeys;
    cJSON *names;
    struct html_text fmod;
    int64_t *frame_func; /* each frame's function, -1 none */
    size_t nframes, frames_alloc;
    uint32_t *parent, *frame; /* node 0 is the root, no frame */
    uint64_t *count;          /* each node's own samples, every thread */
    size_t nnodes, nodes_alloc;
    uint64_t *slot_key; /* open addressing: (parent << 32 | frame) + 1, 0 empty */
    uint32_t *slot_node;
    size_t slots;
    struct html_tcount *tc;
    size_t ntc, tc_alloc;
};

/* Append to T as printf would. */
static void html_text_add(struct html_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void html_text_add(struct html_text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->alloc == 0) {
        t->alloc = 256;
        t->p = xmalloc(t->alloc);
    }
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->n, t->alloc - t->n, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->alloc - t->n) {
            t->n += (size_t)n;
            return;
        }
        t->alloc = 2 * t->alloc + (size_t)(n > 0 ? n : 0) + 64;
        t->p = xrealloc(t->p, t->alloc);
    }
}

/* The kind of module M, as the Flame view colours it. */
static enum html_kind html_kind(const struct session *s, uint32_t m)
{
    if (m == s->view.prog_module)
        return HTML_PROGRAM;
    if (m == s->jit_module || strcmp(s->modules[m]->name, "[JIT]") == 0)
        return HTML_JIT;
    switch (s->modules[m]->kind) {
    case MODULE_PROGRAM:
    case MODULE_LIBRARY:
    case MODULE_VDSO: return HTML_LIBRARY;
    case MODULE_KERNEL: return HTML_KERNEL;
    default: return HTML_OTHER;
    }
}

/* The page's index of the frame FR, added on first sight. */
static uint32_t html_frame(struct html_prof *p, const struct export_frame *fr)
{
    size_t key = export_key(p->s, fr);
    if (p->frame_of[key] >= 0)
        return (uint32_t)p->frame_of[key];
    cJSON_AddItemToArray(p->names, cJSON_CreateString(export_frame_name(p->s, fr)));
    uint32_t m = fr->func >= 0 && (size_t)fr->func < p->s->nfuncs ? p->s->funcs[fr->func].module
                                                                  : fr->module;
    html_text_add(&p->fmod, p->nframes ? ",%d" : "%d", m < p->s->nmodules ? (int)m : -1);
    if (p->nframes == p->frames_alloc) {
        p->frames_alloc = p->frames_alloc ? 2 * p->frames_alloc : 256;
        p->frame_func = xreallocarray(p->frame_func, p->frames_alloc, sizeof *p->frame_func);
    }
    p->frame_func[p->nframes] = fr->func >= 0 && (size_t)fr->func < p->s->nfuncs ? fr->func : -1;
    p->frame_of[key] = (int64_t)p->nframes;
    return (uint32_t)p->nframes++;
}

/* A slot for KEY among SLOTS (a power of two): the multiplication spreads
 * the parent's bits over the whole word. */
static size_t html_hash(uint64_t key, size_t slots)
{
    key *= 0x9e3779b97f4a7c15u;
    return (size_t)(key >> 17) & (slots - 1);
}

/* The node FRAME under PARENT, made on first sight. */
static uint32_t html_node(struct html_prof *p, uint32_t parent, uint32_t frame)
{
    if (2 * (p->nnodes + 1) > p->slots) {
        size_t slots = p->slots ? 2 * p->slots : 1024;
        uint64_t *keys = xcalloc(slots, sizeof *keys);
        uint32_t *nodes = xcalloc(slots, sizeof *nodes);
        for (size_t i = 0; i < p->slots; i++) {
            if (p->slot_key[i] == 0)
                continue;
            size_t h = html_hash(p->slot_key[i], slots);
            while (keys[h] != 0)
                h = (h + 1) & (slots - 1);
            keys[h] = p->slot_key[i];
            nodes[h] = p->slot_node[i];
        }
        free(p->slot_key);
        free(p->slot_node);
        p->slot_key = keys;
        p->slot_node = nodes;
        p->slots = slots;
    }
    uint64_t key = ((uint64_t)parent << 32 | frame) + 1;
    size_t h = html_hash(key, p->slots);
    while (p->slot_key[h] != 0) {
        if (p->slot_key[h] == key)
            return p->slot_node[h];
        h = (h + 1) & (p->slots - 1);
    }
    if (p->nnodes == p->nodes_alloc) {
        p->nodes_alloc = 2 * p->nodes_alloc;
        p->parent = xreallocarray(p->parent, p->nodes_alloc, sizeof *p->parent);
        p->frame = xreallocarray(p->frame, p->nodes_alloc, sizeof *p->frame);
        p->count = xreallocarray(p->count, p->nodes_alloc, sizeof *p->count);
    }
    uint32_t n = (uint32_t)p->nnodes++;
    p->parent[n] = parent;
    p->frame[n] = frame;
    p->count[n] = 0;
    p->slot_key[h] = key;
    p->slot_node[h] = n;
    return n;
}

/* The node of a stack of N frames, outermost first. */
static uint32_t html_stack(struct html_prof *p, const struct export_frame *frames, size_t n)
{
    uint32_t node = 0;
    for (size_t k = 0; k < n; k++)
        node = html_node(p, node, html_frame(p, &frames[k]));
    return node;
}

/* export_walk's samples: every thread's, and those without a stack. */
static void html_sample(const struct export_frame *frames, size_t n, uint64_t count, void *arg)
{
    struct html_prof *p = arg;
    uint32_t node = html_stack(p, frames, n);
    p->count[node] += count;
}

/* export_walk_threads's: kept to be written thread by thread. */
static void html_thread_sample(uint32_t tid, const struct export_frame *frames, size_t n,
                               uint64_t count, void *arg)
{
    struct html_prof *p = arg;
    uint32_t node = html_stack(p, frames, n);
    if (p->ntc == p->tc_alloc) {
        p->tc_alloc = p->tc_alloc ? 2 * p->tc_alloc : 256;
        p->tc = xreallocarray(p->tc, p->tc_alloc, sizeof *p->tc);
    }
    p->tc[p->ntc++] = (struct html_tcount){tid, node, count};
}

/* By thread, then by node. */
static int html_tc_cmp(const void *a, const void *b)
{
    const struct html_tcount *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* COUNT's nodes with samples as [node delta, count, ...]: each node less
 * the one before it, so that the numbers stay short. */
static char *html_counts(const uint32_t *nodes, const uint64_t *counts, size_t n)
{
    struct html_text t = {0};
    html_text_add(&t, "[");
    uint32_t last = 0;
    for (size_t i = 0; i < n; i++) {
        html_text_add(&t, "%s%" PRIu32 ",%" PRIu64, i ? "," : "", nodes[i] - last, counts[i]);
        last = nodes[i];
    }
    html_text_add(&t, "]");
    return t.p;
}

/* The facts --report prints at its top, for the page's header. */
static cJSON *html_meta(struct session *s, const char *title)
{
    cJSON *m = cJSON_CreateObject();
    char buf[128];
    cJSON_AddStringToObject(m, "file", title);
    cJSON_AddStringToObject(m, "program", s->program ? s->program : "?");
    cJSON *args = cJSON_AddArrayToObject(m, "args");
    for (size_t i = 0; i < s->nargs; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(s->args[i]));
    if (s->comment != NULL)
        cJSON_AddStringToObject(m, "comment", s->comment);
    cJSON_AddStringToObject(m, "driver", s->driver ? s->driver : "?");
    cJSON_AddStringToObject(m, "clock", s->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
    if (s->jitter_known && s->jitter_pct > 0)
        snprintf(buf, sizeof buf, "periods jittered +-%g %%", s->jitter_pct);
    else
        snprintf(buf, sizeof buf, "%s", s->jitter_known ? "exact periods (--no-jitter)" : "");
    cJSON_AddStringToObject(m, "periods", buf);
    cJSON_AddNumberToObject(m, "interval_us", s->interval_us);
    cJSON_AddNumberToObject(m, "samples", (double)s->view.c.total);
    cJSON_AddStringToObject(m, "time",
                            ticks_time(buf, sizeof buf, s->view.c.total, s->interval_us));
    cJSON_AddNumberToObject(m, "lost", (double)s->view.c.lost);
    cJSON_AddNumberToObject(m, "lost_pct", round(report_lost_pct(&s->view.c) * 100) / 100);
    cJSON_AddStringToObject(m, "ended", report_termination(s, buf, sizeof buf));
    if (s->has_stacks) {
        struct stack_stats st = session_stack_stats(s);
        char *text = xasprintf("%" PRIu64 " samples with a stack, %" PRIu64
                               " cut short [truncated], %" PRIu64
                               " not unwound to the end [unknown]; deepest %u frames",
                               st.samples, st.truncated, st.unknown, st.max_depth);
        cJSON_AddStringToObject(m, "stacks", text);
        free(text);
    } else {
        cJSON_AddStringToObject(m, "stacks", "none (this session has no stacks)");
    }
    cJSON_AddStringToObject(m, "version", "profil " PACKAGE_VERSION);
    return m;
}

/* Each frame's change in D, in points of its function's own share (AFTER
 * less BEFORE), and its stars: [change, stars, ...], 0,0 for a frame in no
 * function or one the test does not find significant.  AFTER: P is
 * --diff's AFTER session, else its BEFORE. */
static char *html_diff(const struct html_prof *p, const struct diff *d, bool after)
{
    size_t *row_of = xmalloc((p->s->nfuncs + 1) * sizeof *row_of);
    for (size_t i = 0; i <= p->s->nfuncs; i++)
        row_of[i] = SIZE_MAX;
    for (size_t i = 0; i < d->n; i++) {
        size_t f = after ? d->rows[i].after_func : d->rows[i].before_func;
        if (f < p->s->nfuncs)
            row_of[f] = i;
    }
    struct html_text t = {0};
    html_text_add(&t, "[");
    for (size_t i = 0; i < p->nframes; i++) {
        int64_t f = p->frame_func[i];
        const struct diff_row *r = f >= 0 && row_of[f] != SIZE_MAX ? &d->rows[row_of[f]] : NULL;
        if (r != NULL)
            html_text_add(&t, "%s%.3f,%d", i ? "," : "", r->change, r->stars);
        else
            html_text_add(&t, "%s0,0", i ? "," : "");
    }
    html_text_add(&t, "]");
    free(row_of);
    return t.p;
}

/* One profile of the page: S's samples, every thread's and each one's. */
static cJSON *html_profile(struct session *s, const char *title, const struct diff *d, bool after)
{
    struct html_prof p = {.s = s};
    session_totals(s); /* may add functions: size the keys after it */
    p.nkeys = export_nkeys(s);
    p.frame_of = xmalloc(p.nkeys * sizeof *p.frame_of);
    for (size_t i = 0; i < p.nkeys; i++)
        p.frame_of[i] = -1;
    p.names = cJSON_CreateArray();
    p.nodes_alloc = 1024;
    p.parent = xcalloc(p.nodes_alloc, sizeof *p.parent);
    p.frame = xcalloc(p.nodes_alloc, sizeof *p.frame);
    p.count = xcalloc(p.nodes_alloc, sizeof *p.count);
    p.nnodes = 1; /* the root */

    uint64_t total = export_walk(s, html_sample, &p);
    export_walk_threads(s, html_thread_sample, &p);

    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "meta", html_meta(s, title));
    cJSON_AddNumberToObject(o, "total", (double)total);
    cJSON *mods = cJSON_AddArrayToObject(o, "mods");
    for (size_t i = 0; i < s->nmodules; i++)
        cJSON_AddItemToArray(mods, cJSON_CreateString(s->modules[i]->name));
    cJSON_AddItemToObject(o, "names", p.names);
    struct html_text t = {0};
    html_text_add(&t, "[%s]", p.fmod.p ? p.fmod.p : "");
    cJSON_AddItemToObject(o, "fmod", cJSON_CreateRaw(t.p));
    t.n = 0;
    t.n = 0;
    html_text_add(&t, "[");
    for (size_t i = 0; i < s->nmodules; i++)
        html_text_add(&t, i ? ",%d" : "%d", (int)html_kind(s, (uint32_t)i));
    html_text_add(&t, "]");
    cJSON_AddItemToObject(o, "mkind", cJSON_CreateRaw(t.p));
    /* The nodes from node 1 on as [parent, frame, ...], each less the node
     * before it's (node 0's: -1 and 0): a chain and a row of siblings are
     * then a few digits a node, whatever their numbers. */
    t.n = 0;
    html_text_add(&t, "[");
    for (size_t i = 1; i < p.nnodes; i++)
        html_text_add(&t, "%s%" PRId64 ",%" PRId64, i > 1 ? "," : "",
                      (int64_t)p.parent[i] - (i > 1 ? (int64_t)p.parent[i - 1] : -1),
                      (int64_t)p.frame[i] - (i > 1 ? (int64_t)p.frame[i - 1] : 0));
    html_text_add(&t, "]");
    cJSON_AddItemToObject(o, "nodes", cJSON_CreateRaw(t.p));
    free(t.p);

    uint32_t *nodes = xcalloc(p.nnodes + p.ntc + 1, sizeof *nodes);
    uint64_t *counts = xcalloc(p.nnodes + p.ntc + 1, sizeof *counts);
    size_t n = 0;
    for (size_t i = 1; i < p.nnodes; i++) {
        if (p.count[i] > 0) {
            nodes[n] = (uint32_t)i;
            counts[n++] = p.count[i];
        }
    }
    char *text = html_counts(nodes, counts, n);
    cJSON_AddItemToObject(o, "counts", cJSON_CreateRaw(text));
    free(text);

    /* Each thread's, in order of thread id (one node may come twice: two
     * stacks cut to the same frames). */
    cJSON *threads = cJSON_AddArrayToObject(o, "threads");
    if (p.ntc > 1)
        qsort(p.tc, p.ntc, sizeof *p.tc, html_tc_cmp);
    for (size_t i = 0; i < p.ntc;) {
        uint32_t tid = p.tc[i].tid;
        uint64_t sum = 0;
        n = 0;
        for (; i < p.ntc && p.tc[i].tid == tid; i++) {
            if (n > 0 && nodes[n - 1] == p.tc[i].node) {
                counts[n - 1] += p.tc[i].count;
            } else {
                nodes[n] = p.tc[i].node;
                counts[n++] = p.tc[i].count;
            }
            sum += p.tc[i].count;
        }
        cJSON *th = cJSON_CreateObject();
        cJSON_AddNumberToObject(th, "tid", tid);
        const struct thread_info *ti = threads_find(s, tid);
        if (ti != NULL && ti->name != NULL)
            cJSON_AddStringToObject(th, "name", ti->name);
        if (ti != NULL)
            cJSON_AddNumberToObject(th, "pid", ti->pid);
        cJSON_AddNumberToObject(th, "samples", (double)sum);
        text = html_counts(nodes, counts, n);
        cJSON_AddItemToObject(th, "counts", cJSON_CreateRaw(text));
        free(text);
        cJSON_AddItemToArray(threads, th);
    }
    free(nodes);
    free(counts);
    if (d != NULL) {
        text = html_diff(&p, d, after);
        cJSON_AddItemToObject(o, "diff", cJSON_CreateRaw(text));
        free(text);
    }
    free(p.frame_of);
    free(p.frame_func);
    free(p.fmod.p);
    free(p.parent);
    free(p.frame);
    free(p.count);
    free(p.slot_key);
    free(p.slot_node);
    free(p.tc);
    return o;
}

char *export_html(struct session *s, const char *title, struct session *diff_base,
                  const char *base_title)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "version", 1);
    cJSON *profiles = cJSON_AddArrayToObject(o, "profiles");
    struct diff *d = diff_base != NULL ? diff_sessions(diff_base, s) : NULL;
    cJSON_AddItemToArray(profiles, html_profile(s, title, d, true));
    if (d != NULL)
        cJSON_AddItemToArray(profiles, html_profile(diff_base, base_title, d, false));
    diff_free(d);
    char *json = quote_json(cJSON_PrintUnformatted(o));
    cJSON_Delete(o);

    /* Inside <script>, "</script" or "<!--" in a name would end or bend
     * it: every <, > and & goes as a JSON escape (they are all in
     * strings), which JSON.parse reads back as the character. */
    struct html_text t = {0};
    const char *mark = strstr(export_html_template, EXPORT_HTML_MARK);
    size_t head = mark ? (size_t)(mark - export_html_template) : strlen(export_html_template);
    html_text_add(&t, "%.*s", (int)head, export_html_template);
    size_t from = 0;
    for (size_t i = 0; json != NULL && json[i] != '\0'; i++) {
        if (json[i] != '<' && json[i] != '>' && json[i] != '&')
            continue;
        html_text_add(&t, "%.*s\\u%04x", (int)(i - from), json + from, (unsigned)json[i]);
        from = i + 1;
    }
    if (json != NULL)
        html_text_add(&t, "%s", json + from);
    if (mark != NULL)
        html_text_add(&t, "%s", mark + strlen(EXPORT_HTML_MARK));
    free(json);
    return t.p;
}
