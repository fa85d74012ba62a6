/*
 * The samples every export writes, and speedscope's JSON.  pprof's
 * protobuf is in export_pprof.c.
 */
#include "config.h"

#include "analysis/calltree.h"
#include "export/export.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT_SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* The frames of stack ID as the exports write them, outermost first, into
 * *FR (grown as needed, *ALLOC entries); returns how many.  A stack deeper
 * than CAP (0: none) keeps its innermost frames under one [truncated]
 * frame, CAP in all, and never starts inside a frame's inline levels. */
static size_t export_stack(struct session *s, uint32_t id, uint32_t cap, uint32_t **ids,
                           struct export_frame **fr, size_t *alloc)
{
    size_t depth = s->stacks[id].depth;
    bool cut = cap > 0 && depth > cap;
    if (cut)
        depth = cap - 1;
    if (depth + 1 > *alloc) {
        *alloc = depth + 1;
        *ids = xreallocarray(*ids, *alloc, sizeof **ids);
        *fr = xreallocarray(*fr, *alloc, sizeof **fr);
    }
    if (cut) {
        size_t k = depth;
        for (uint32_t j = id; j != 0 && k > 0; j = s->stacks[j].parent)
            (*ids)[k--] = j;
        size_t first = 1;
        while (first <= depth && s->stacks[(*ids)[first]].level > 0)
            first++;
        uint32_t m = s->truncated_module != UINT32_MAX ? s->truncated_module : EXPORT_TRUNCATED;
        (*fr)[0] = (struct export_frame){m, 0, -1, 0};
        size_t n = 1;
        for (size_t k2 = first; k2 <= depth; k2++) {
            const struct stack_node *nd = &s->stacks[(*ids)[k2]];
            (*fr)[n++] = (struct export_frame){nd->module, nd->offset, nd->func, nd->level};
        }
        return n;
    }
    depth = session_stack_frames(s, id, *ids, *alloc);
    for (size_t k = 0; k < depth; k++) {
        const struct stack_node *n = &s->stacks[(*ids)[k]];
        (*fr)[k] = (struct export_frame){n->module, n->offset, n->func, n->level};
    }
    return depth;
}

uint64_t export_walk(struct session *s, export_sample_cb cb, void *arg)
{
    session_totals(s); /* names every frame with samples, and ranks the functions */
    uint64_t sum = 0;
    size_t alloc = 1;
    uint32_t *ids = xcalloc(alloc, sizeof *ids);
    struct export_frame *fr = xcalloc(alloc, sizeof *fr);
    uint64_t *leaf = xcalloc(s->nfuncs + 1, sizeof *leaf);
    uint32_t cap = session_depth_cap(s, true);
    for (size_t id = 1; id < s->nstacks; id++) {
        uint64_t c = s->view.stack_count[id];
        if (c == 0)
            continue;
        size_t depth = export_stack(s, (uint32_t)id, cap, &ids, &fr, &alloc);
        cb(fr, depth, c, arg);
        sum += c;
        int64_t lf = s->stacks[id].func;
        if (lf >= 0 && (size_t)lf < s->nfuncs)
            leaf[lf] += c;
    }
    /* Samples without a stack: their function alone, as export_folded. */
    for (size_t i = 0; i < s->nfuncs; i++) {
        const struct func *f = &s->funcs[i];
        if (f->samples > leaf[i]) {
            fr[0] = (struct export_frame){f->module, f->start, (int64_t)i, 0};
            cb(fr, 1, f->samples - leaf[i], arg);
            sum += f->samples - leaf[i];
        }
    }
    /* And those in no function: blocked without a PC, code without a name. */
    if (s->view.c.total > sum) {
        fr[0] = (struct export_frame){UINT32_MAX, 0, -1, 0};
        cb(fr, 1, s->view.c.total - sum, arg);
        sum = s->view.c.total;
    }
    free(leaf);
    free(fr);
    free(ids);
    return sum;
}

void export_walk_threads(struct session *s, export_thread_cb cb, void *arg)
{
    session_totals(s);
    size_t alloc = 1;
    uint32_t *ids = xcalloc(alloc, sizeof *ids);
    struct export_frame *fr = xcalloc(alloc, sizeof *fr);
    uint32_t cap = session_depth_cap(s, true);
    for (size_t i = 0; i < s->tstacks.alloc; i++) {
        const struct tid_count *t = &s->tstacks.slots[i];
        if (t->tid == 0 || t->count == 0 || t->key == 0 || t->key >= s->nstacks)
            continue;
        size_t depth = export_stack(s, t->key, cap, &ids, &fr, &alloc);
        cb(t->tid, fr, depth, t->count, arg);
    }
    free(fr);
    free(ids);
}

size_t export_nkeys(const struct session *s)
{
    return s->nfuncs + s->nmodules + 2;
}

size_t export_key(const struct session *s, const struct export_frame *fr)
{
    if (fr->func >= 0 && (size_t)fr->func < s->nfuncs)
        return (size_t)fr->func;
    if (fr->module < s->nmodules)
        return s->nfuncs + fr->module;
    if (fr->module == EXPORT_TRUNCATED)
        return s->nfuncs + s->nmodules + 1;
    return s->nfuncs + s->nmodules;
}

const char *export_frame_name(const struct session *s, const struct export_frame *fr)
{
    if (fr->func >= 0 && (size_t)fr->func < s->nfuncs)
        return s->funcs[fr->func].name;
    if (fr->module < s->nmodules)
        return s->modules[fr->module]->name;
    if (fr->module == EXPORT_TRUNCATED)
        return "[truncated]";
    return "[unaccounted]";
}

const char *export_frame_file(const struct session *s, const struct export_frame *fr)
{
    uint32_t m =
        fr->func >= 0 && (size_t)fr->func < s->nfuncs ? s->funcs[fr->func].module : fr->module;
    return m < s->nmodules ? s->modules[m]->path : NULL;
}

const char *export_frame_source(struct session *s, const struct export_frame *fr, uint32_t *line)
{
    uint32_t file = 0;
    *line = 0;
    if (fr->func >= 0 && (size_t)fr->func < s->nfuncs && lines_func_place(s, fr->func, &file, line))
        return lines_file(s, file);
    *line = 0;
    return NULL;
}

/* What speedscope's writer carries from sample to sample. */
struct speedscope {
    const struct session *s;
    int64_t *frame_of; /* by export_key: index into frames, -1 none yet */
    cJSON *frames;
    int nframes;
    cJSON *samples;
    cJSON *weights;
    char *text; /* one sample's frames as a JSON array */
    size_t text_alloc;
    uint64_t weight; /* per sample */
    double end;
};

static void speedscope_sample(const struct export_frame *frames, size_t n, uint64_t count,
                              void *arg)
{
    struct speedscope *w = arg;
    /* The array as cJSON would print it, kept as text: a node for each
     * frame costs 64 bytes and more. */
    if (w->text_alloc < 12 * n + 3) {
        w->text_alloc = 12 * n + 3;
        w->text = xrealloc(w->text, w->text_alloc);
    }
    size_t at = 0;
    w->text[at++] = '[';
    for (size_t k = 0; k < n; k++) {
        size_t key = export_key(w->s, &frames[k]);
        if (w->frame_of[key] < 0) {
            cJSON *f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "name", export_frame_name(w->s, &frames[k]));
            const char *file = export_frame_file(w->s, &frames[k]);
            if (file != NULL)
                cJSON_AddStringToObject(f, "file", file);
            cJSON_AddItemToArray(w->frames, f);
            w->frame_of[key] = w->nframes++;
        }
        at += (size_t)snprintf(w->text + at, w->text_alloc - at, k > 0 ? ",%d" : "%d",
                               (int)w->frame_of[key]);
    }
    w->text[at++] = ']';
    w->text[at] = '\0';
    cJSON_AddItemToArray(w->samples, cJSON_CreateRaw(w->text));
    double weight = (double)count * (double)w->weight;
    cJSON_AddItemToArray(w->weights, cJSON_CreateNumber(weight));
    w->end += weight;
}

/* A new sampled profile NAME in PROFILES, W writing into it. */
static cJSON *speedscope_profile(struct speedscope *w, cJSON *profiles, const char *name)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(profiles, p);
    cJSON_AddStringToObject(p, "type", "sampled");
    cJSON_AddStringToObject(p, "name", name);
    cJSON_AddStringToObject(p, "unit", w->s->interval_us ? "microseconds" : "none");
    cJSON_AddNumberToObject(p, "startValue", 0);
    cJSON *end = cJSON_AddNumberToObject(p, "endValue", 0);
    w->samples = cJSON_AddArrayToObject(p, "samples");
    w->weights = cJSON_AddArrayToObject(p, "weights");
    w->end = 0;
    return end;
}

static int tid_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* One profile per thread, after the whole program's: each thread's stacks. */
static void speedscope_threads(struct speedscope *w, struct session *s, cJSON *profiles,
                               const char *name)
{
    uint32_t *tids = xcalloc(s->tstacks.n + 1, sizeof *tids);
    size_t nt = 0;
    for (size_t i = 0; i < s->tstacks.alloc; i++) {
        if (s->tstacks.slots[i].tid != 0 && s->tstacks.slots[i].count > 0)
            tids[nt++] = s->tstacks.slots[i].tid;
    }
    qsort(tids, nt, sizeof *tids, tid_cmp);
    size_t alloc = 1;
    uint32_t *ids = xcalloc(alloc, sizeof *ids);
    struct export_frame *fr = xcalloc(alloc, sizeof *fr);
    uint32_t cap = session_depth_cap(s, true);
    for (size_t k = 0; k < nt; k++) {
        if (k > 0 && tids[k] == tids[k - 1])
            continue;
        char *title = xasprintf("%s, thread %u", name, tids[k]);
        cJSON *end = speedscope_profile(w, profiles, title);
        free(title);
        for (size_t i = 0; i < s->tstacks.alloc; i++) {
            const struct tid_count *t = &s->tstacks.slots[i];
            if (t->tid != tids[k] || t->count == 0 || t->key >= s->nstacks)
                continue;
            size_t depth = export_stack(s, t->key, cap, &ids, &fr, &alloc);
            speedscope_sample(fr, depth, t->count, w);
        }
        cJSON_SetNumberValue(end, w->end);
    }
    free(fr);
    free(ids);
    free(tids);
}

char *export_speedscope(struct session *s)
{
    const char *program = s->program ? s->program : "profil";
    const char *name = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "$schema", EXPORT_SPEEDSCOPE_SCHEMA);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "exporter", "profil " PACKAGE_VERSION);
    cJSON_AddNumberToObject(o, "activeProfileIndex", 0);
    cJSON *shared = cJSON_AddObjectToObject(o, "shared");
    struct speedscope w = {.s = s, .weight = s->interval_us ? s->interval_us : 1};
    w.frames = cJSON_AddArrayToObject(shared, "frames");
    cJSON *profiles = cJSON_AddArrayToObject(o, "profiles");
    cJSON *end = speedscope_profile(&w, profiles, name);

    session_totals(s); /* may add functions: size the keys after it */
    size_t nkeys = export_nkeys(s);
    w.frame_of = xmalloc(nkeys * sizeof *w.frame_of);
    for (size_t i = 0; i < nkeys; i++)
        w.frame_of[i] = -1;
    export_walk(s, speedscope_sample, &w);
    cJSON_SetNumberValue(end, w.end);
    speedscope_threads(&w, s, profiles, name);
    free(w.frame_of);
    free(w.text);

    char *text = quote_json(cJSON_PrintUnformatted(o));
    cJSON_Delete(o);
    char *copy = xasprintf("%s\n", text ? text : "{}");
    free(text);
    return copy;
}
