/* linesbench - what source lines cost a live session and its .PRF, step by
 * step, through the calls profil makes.
 *
 * Usage: linesbench PROGRAM FILE.PRF
 *
 * FILE.PRF is a session of PROGRAM; its hits and call stacks are put into a
 * new live session of PROGRAM (whose modules load from the disk, as they do
 * while profil samples), which is then saved twice.  Prints one line:
 *
 *     open_ms first_ms stacks_ms write1_ms write2_ms prf_bytes line_bytes
 *     line_raw places files inlined fplaces hits ann_ms disasm_ms function
 *
 * open_ms: session_new's lines_open of the program (what profil does before
 * the clock starts: libdw opens the debug information); first_ms: the first
 * lookup, of the hottest PC; stacks_ms: every frame of every stack interned,
 * which looks up the inlined functions at each frame's PC; write1_ms: the
 * first prf_write_buffer, which looks up every hit's PC and every ranked
 * function's place; write2_ms: the same again, everything looked up already
 * (write1_ms - write2_ms is what the lines cost the save); prf_bytes: the
 * file; line_bytes and line_raw: its LINE chunk as stored (zlib) and
 * inflated; places (PCs looked up, with a line or not), files, inlined
 * (functions), fplaces (functions' places): what the chunk holds; hits: the
 * distinct PCs sampled; ann_ms and disasm_ms: annotate_function and
 * annotate_print (to /dev/null) of the program's hottest function in the
 * live session, without and then with its disassembly (whose every
 * instruction's line is looked up): the Source view's first screen. */
#include "config.h"

#include "prf/prf.h"
#include "prf/prf_chunk.h"
#include "report/annotate.h"
#include "session/lines.h"
#include "session/session.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* The stored and inflated size of chunk TYPE in a .PRF buffer. */
static void chunk_size(const uint8_t *d, size_t len, const char *type, uint64_t *stored,
                       uint64_t *raw)
{
    *stored = *raw = 0;
    for (size_t at = PRF_MAGIC_LEN + 8; at + CHUNK_HEADER_LEN <= len;) {
        uint64_t n = le(d + at + 8, 8);
        if (memcmp(d + at, type, 4) == 0) {
            *stored = n;
            *raw = le(d + at + 16, 4);
            return;
        }
        at += CHUNK_HEADER_LEN + n;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: linesbench PROGRAM FILE.PRF\n");
        return 2;
    }
    char *cause = NULL;
    struct session *f = prf_read_file(argv[2], &cause);
    if (f == NULL) {
        fprintf(stderr, "linesbench: %s\n", cause);
        return 1;
    }
    double t0 = now_ms();
    struct session *s = session_new(argv[1], f->view.bucket_paragraphs, f->interval_us, &cause);
    if (s == NULL) {
        fprintf(stderr, "linesbench: %s\n", cause);
        return 1;
    }
    lines_open(s, 0);
    double t1 = now_ms();
    /* The file's modules in the live session: the program is module 0. */
    uint32_t *mod = xcalloc(f->nmodules + 1, sizeof *mod);
    for (uint32_t i = 0; i < f->nmodules; i++) {
        const struct module *m = f->modules[i];
        mod[i] = i == 0 ? 0 : session_module(s, m->path, m->kind);
    }
    const struct hit *hot = NULL;
    for (size_t i = 0; i < f->hits_alloc; i++) {
        const struct hit *h = &f->hits[i];
        if (h->module != UINT32_MAX && h->module == 0 && (hot == NULL || h->count > hot->count))
            hot = h;
    }
    double t2 = now_ms();
    if (hot != NULL)
        lines_lookup(s, 0, hot->offset);
    double t3 = now_ms();
    size_t nhits = 0;
    for (size_t i = 0; i < f->hits_alloc; i++) {
        const struct hit *h = &f->hits[i];
        if (h->module == UINT32_MAX || h->count == 0)
            continue;
        session_add_hit(s, mod[h->module], h->offset, h->count);
        nhits++;
    }
    /* The stacks' frames, parents first, as the unwinder hands them over. */
    uint32_t *id = xcalloc(f->nstacks + 1, sizeof *id);
    double t4 = now_ms();
    for (size_t i = 1; i < f->nstacks; i++) {
        const struct stack_node *n = &f->stacks[i];
        id[i] = n->level > 0 ? id[n->parent]
                             : session_stack_intern(s, id[n->parent], mod[n->module], n->offset);
    }
    s->has_stacks = f->has_stacks;
    double t5 = now_ms();
    uint8_t *data;
    size_t len;
    prf_write_buffer(s, &data, &len);
    double t6 = now_ms();
    uint8_t *again;
    size_t len2;
    prf_write_buffer(s, &again, &len2);
    double t7 = now_ms();
    size_t places = s->lines != NULL ? s->lines->nlocs : 0;
    /* The Source view's first screen in this live session: the hottest
     * function of the program, its source, then its instructions. */
    size_t nr;
    size_t *order = session_ranking(s, &nr);
    int64_t fn = -1;
    for (size_t i = 0; i < nr && fn < 0; i++) {
        if (s->funcs[order[i]].module == 0 && !s->funcs[order[i]].inlined)
            fn = (int64_t)order[i];
    }
    free(order);
    FILE *devnull = fopen("/dev/null", "w");
    double t8 = now_ms();
    struct annotation *a = annotate_function(s, fn, false);
    if (devnull != NULL)
        annotate_print(s, a, devnull);
    annotation_free(a);
    double t9 = now_ms();
    a = annotate_function(s, fn, true);
    if (devnull != NULL)
        annotate_print(s, a, devnull);
    annotation_free(a);
    double t10 = now_ms();
    if (devnull != NULL)
        fclose(devnull);
    uint64_t stored, raw;
    chunk_size(data, len, "LINE", &stored, &raw);
    const struct lines *l = s->lines;
    size_t fplaces = 0;
    for (size_t i = 0; i < s->nfuncs; i++)
        fplaces += s->funcs[i].file != 0 && !s->funcs[i].inlined;
    printf("%.3f %.3f %.3f %.3f %.3f %zu %llu %llu %zu %zu %zu %zu %zu %.3f %.3f %s\n", t1 - t0,
           t3 - t2, t5 - t4, t6 - t5, t7 - t6, len, (unsigned long long)stored,
           (unsigned long long)raw, places, l ? l->nfiles : 0, l ? l->ninl_funcs : 0, fplaces,
           nhits, t9 - t8, t10 - t9, fn >= 0 ? s->funcs[fn].name : "-");
    free(data);
    free(again);
    free(id);
    free(mod);
    session_free(s);
    session_free(f);
    return 0;
}
