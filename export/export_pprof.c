/*
 * pprof's profile.proto, gzipped: a sample per distinct stack, a location
 * per distinct (module, offset) frame, a function per function, a mapping
 * per module, every string once.  The messages come from protoc-c
 * (export/profile.proto).
 */
#include "config.h"

#include "elf/module.h"
#include "export/export.h"
#include "export/profile.pb-c.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A location before it becomes a message: its frame, and its lines (the
 * functions inlined at its PC, innermost first, then its own) from FIRST in
 * the line pool. */
struct pprof_loc {
    struct export_frame frame;
    uint64_t address;
    size_t first;
    size_t nlines;
};

struct pprof_line {
    uint64_t function_id;
    int64_t line;
};

/* A sample: COUNT, and N location ids from FIRST in the pool, leaf first. */
struct pprof_sample {
    uint64_t count;
    size_t first;
    size_t n;
};

/* What a module's mapping needs: whether it is used, and the addresses seen. */
struct pprof_module {
    uint64_t id; /* 0: no location in it */
    uint64_t low;
    uint64_t high;
    bool named; /* a location in it has a function */
};

struct pprof {
    struct session *s;
    /* The string table, interned: open addressing, index + 1, 0 empty. */
    char **strings;
    size_t nstrings;
    size_t strings_alloc;
    uint32_t *string_index;
    size_t string_index_alloc; /* a power of two */
    /* Functions by export_key: id, 0 none yet; and a frame of each id - 1. */
    uint64_t *function_of;
    struct export_frame *function_frame;
    size_t nfunctions;
    /* Locations: open addressing on (module, offset), id, 0 empty. */
    struct pprof_loc *locs;
    size_t nlocs;
    size_t locs_alloc;
    uint64_t *loc_index;
    size_t loc_index_alloc; /* a power of two */
    struct pprof_sample *samples;
    size_t nsamples;
    size_t samples_alloc;
    uint64_t *pool;
    size_t npool;
    size_t pool_alloc;
    struct pprof_line *lines;
    size_t nlines;
    size_t lines_alloc;
    struct pprof_module *modules;
};

static uint64_t pprof_hash_string(const char *p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h;
}

/* The index of STR in the string table, added on first use. */
static int64_t pprof_string(struct pprof *w, const char *str)
{
    if (2 * (w->nstrings + 1) > w->string_index_alloc) {
        free(w->string_index);
        w->string_index_alloc = w->string_index_alloc ? 2 * w->string_index_alloc : 256;
        w->string_index = xcalloc(w->string_index_alloc, sizeof *w->string_index);
        size_t mask = w->string_index_alloc - 1;
        for (size_t i = 0; i < w->nstrings; i++) {
            size_t k = pprof_hash_string(w->strings[i]) & mask;
            while (w->string_index[k] != 0)
                k = (k + 1) & mask;
            w->string_index[k] = (uint32_t)(i + 1);
        }
    }
    size_t mask = w->string_index_alloc - 1;
    size_t k = pprof_hash_string(str) & mask;
    for (; w->string_index[k] != 0; k = (k + 1) & mask) {
        if (strcmp(w->strings[w->string_index[k] - 1], str) == 0)
            return w->string_index[k] - 1;
    }
    if (w->nstrings == w->strings_alloc) {
        w->strings_alloc = w->strings_alloc ? 2 * w->strings_alloc : 256;
        w->strings = xreallocarray(w->strings, w->strings_alloc, sizeof *w->strings);
    }
    w->strings[w->nstrings] = xstrdup(str);
    w->string_index[k] = (uint32_t)(w->nstrings + 1);
    return (int64_t)w->nstrings++;
}

/* The image address of FR: file-backed code by its segments, kernel and
 * anonymous code by the address it was seen at. */
static uint64_t pprof_address(const struct session *s, const struct export_frame *fr)
{
    if (fr->module >= s->nmodules)
        return 0;
    const struct module *m = s->modules[fr->module];
    uint64_t vaddr;
    if ((m->kind == MODULE_PROGRAM || m->kind == MODULE_LIBRARY || m->kind == MODULE_VDSO) &&
        module_offset_to_vaddr(m, fr->offset, &vaddr))
        return vaddr;
    return fr->offset;
}

/* The function id of FR, made on first use. */
static uint64_t pprof_function(struct pprof *w, const struct export_frame *fr)
{
    size_t key = export_key(w->s, fr);
    if (w->function_of[key] == 0) {
        w->function_frame[w->nfunctions] = *fr;
        w->function_of[key] = ++w->nfunctions;
    }
    return w->function_of[key];
}

static uint64_t pprof_loc_hash(uint32_t module, uint64_t offset)
{
    uint64_t h = offset * 0x9e3779b97f4a7c15ull ^ (uint64_t)module * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
}

/* The location id of the frame FRAMES[N - 1] and the N - 1 before it that
 * are the functions inlined at its PC, made on first use. */
static uint64_t pprof_location(struct pprof *w, const struct export_frame *frames, size_t n)
{
    const struct export_frame *fr = &frames[0]; /* its own frame: level 0 */
    if (2 * (w->nlocs + 1) > w->loc_index_alloc) {
        free(w->loc_index);
        w->loc_index_alloc = w->loc_index_alloc ? 2 * w->loc_index_alloc : 1024;
        w->loc_index = xcalloc(w->loc_index_alloc, sizeof *w->loc_index);
        size_t mask = w->loc_index_alloc - 1;
        for (size_t i = 0; i < w->nlocs; i++) {
            const struct export_frame *f = &w->locs[i].frame;
            size_t k = pprof_loc_hash(f->module, f->offset) & mask;
            while (w->loc_index[k] != 0)
                k = (k + 1) & mask;
            w->loc_index[k] = i + 1;
        }
    }
    size_t mask = w->loc_index_alloc - 1;
    size_t k = pprof_loc_hash(fr->module, fr->offset) & mask;
    for (; w->loc_index[k] != 0; k = (k + 1) & mask) {
        const struct export_frame *f = &w->locs[w->loc_index[k] - 1].frame;
        if (f->module == fr->module && f->offset == fr->offset)
            return w->loc_index[k];
    }
    if (w->nlocs == w->locs_alloc) {
        w->locs_alloc = w->locs_alloc ? 2 * w->locs_alloc : 256;
        w->locs = xreallocarray(w->locs, w->locs_alloc, sizeof *w->locs);
    }
    while (w->nlines + n > w->lines_alloc) {
        w->lines_alloc = w->lines_alloc ? 2 * w->lines_alloc : 256;
        w->lines = xreallocarray(w->lines, w->lines_alloc, sizeof *w->lines);
    }
    struct pprof_loc *l = &w->locs[w->nlocs];
    l->frame = *fr;
    l->address = pprof_address(w->s, fr);
    l->first = w->nlines;
    l->nlines = n;
    const struct srcloc *loc =
        fr->module < w->s->nmodules ? lines_lookup(w->s, fr->module, fr->offset) : NULL;
    bool named = false;
    for (size_t j = n; j-- > 0;) { /* innermost first, as pprof has it */
        uint32_t file, line;
        lines_level_place(w->s, loc, frames[j].level, &file, &line);
        w->lines[w->nlines++] = (struct pprof_line){pprof_function(w, &frames[j]), line};
        named |= frames[j].func >= 0;
    }
    if (fr->module < w->s->nmodules) {
        struct pprof_module *pm = &w->modules[fr->module];
        if (pm->id == 0 || l->address < pm->low)
            pm->low = l->address;
        if (pm->id == 0 || l->address > pm->high)
            pm->high = l->address;
        pm->id = 1; /* numbered in module order at the end */
        pm->named |= named;
    }
    w->loc_index[k] = ++w->nlocs;
    return w->nlocs;
}

static void pprof_sample(const struct export_frame *frames, size_t n, uint64_t count, void *arg)
{
    struct pprof *w = arg;
    if (w->nsamples == w->samples_alloc) {
        w->samples_alloc = w->samples_alloc ? 2 * w->samples_alloc : 256;
        w->samples = xreallocarray(w->samples, w->samples_alloc, sizeof *w->samples);
    }
    while (w->npool + n > w->pool_alloc) {
        w->pool_alloc = w->pool_alloc ? 2 * w->pool_alloc : 1024;
        w->pool = xreallocarray(w->pool, w->pool_alloc, sizeof *w->pool);
    }
    size_t first = w->npool;
    for (size_t k = n; k-- > 0;) { /* leaf first */
        /* A frame and the functions inlined at its PC are one location. */
        size_t own = k;
        while (own > 0 && frames[own].level > 0 && frames[own - 1].module == frames[k].module &&
               frames[own - 1].offset == frames[k].offset &&
               frames[own - 1].level + 1 == frames[own].level)
            own--;
        w->pool[w->npool++] = pprof_location(w, &frames[own], k - own + 1);
        k = own;
    }
    w->samples[w->nsamples++] = (struct pprof_sample){count, first, w->npool - first};
}

/* The span of M's segments in image addresses, and the file offset of the
 * lowest; false when it has none. */
static bool pprof_module_span(const struct module *m, uint64_t *low, uint64_t *high,
                              uint64_t *offset)
{
    if (m->kind == MODULE_ANON || m->kind == MODULE_KERNEL || m->nsegs == 0)
        return false;
    *low = UINT64_MAX;
    *high = 0;
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct segment *g = &m->segs[i];
        if (g->vaddr < *low) {
            *low = g->vaddr;
            *offset = g->offset;
        }
        if (g->vaddr + g->memsz > *high)
            *high = g->vaddr + g->memsz;
    }
    return true;
}

/* Gzip LEN bytes of IN into *OUT, *OUTLEN bytes: 0 or -1. */
static int pprof_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t bound = deflateBound(&z, (uLong)len) + 64;
    uint8_t *buf = xmalloc(bound);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    z.next_out = buf;
    z.avail_out = (uInt)bound;
    int r = deflate(&z, Z_FINISH);
    *outlen = z.total_out;
    deflateEnd(&z);
    if (r != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

/* The messages pprof_pack builds, each array with the array of pointers to
 * its elements that the Profile holds; all freed once it is packed. */
struct pprof_msgs {
    Perftools__Profiles__ValueType types[2];
    Perftools__Profiles__ValueType *type_ptrs[2];
    Perftools__Profiles__ValueType period_type;
    int64_t comments[2];
    Perftools__Profiles__Sample *samples;
    Perftools__Profiles__Sample **sample_ptrs;
    int64_t *values;
    Perftools__Profiles__Mapping *maps;
    Perftools__Profiles__Mapping **map_ptrs;
    Perftools__Profiles__Location *locs;
    Perftools__Profiles__Location **loc_ptrs;
    Perftools__Profiles__Line *lines;
    Perftools__Profiles__Line **line_ptrs;
    Perftools__Profiles__Function *funcs;
    Perftools__Profiles__Function **func_ptrs;
};

/* The sample types (samples/count, then the clock's time in nanoseconds),
 * the period, and when the run started and how long it took. */
static void pprof_pack_types(struct pprof *w, Perftools__Profiles__Profile *p, struct pprof_msgs *m)
{
    struct session *s = w->s;
    bool cpu = s->clock == CLOCK_KIND_CPU;
    int64_t nanos = pprof_string(w, "nanoseconds");
    int64_t time_type = pprof_string(w, cpu ? "cpu" : "wall");

    for (int i = 0; i < 2; i++) {
        perftools__profiles__value_type__init(&m->types[i]);
        m->type_ptrs[i] = &m->types[i];
    }
    m->types[0].type = pprof_string(w, "samples");
    m->types[0].unit = pprof_string(w, "count");
    m->types[1].type = time_type;
    m->types[1].unit = nanos;
    p->n_sample_type = 2;
    p->sample_type = m->type_ptrs;
    perftools__profiles__value_type__init(&m->period_type);
    m->period_type.type = time_type;
    m->period_type.unit = nanos;
    p->period_type = &m->period_type;
    p->period = (int64_t)s->interval_us * 1000;
    /* A damaged file's times must not overflow: saturate. */
    p->time_nanos = s->start_time > INT64_MAX / 1000000000 ? INT64_MAX
                    : s->start_time < 0                    ? 0
                                                           : s->start_time * 1000000000;
    double dur = s->duration_s * 1e9;
    p->duration_nanos = !(dur >= 0) ? 0 : dur >= 9.2e18 ? INT64_MAX : (int64_t)llround(dur);
}

/* The comments: the command line, and the session's own comment. */
static void pprof_pack_comments(struct pprof *w, Perftools__Profiles__Profile *p,
                                struct pprof_msgs *m)
{
    struct session *s = w->s;
    char *line = xstrdup(s->program ? s->program : "?");
    for (size_t i = 0; i < s->nargs; i++) {
        char *longer = xasprintf("%s %s", line, s->args[i]);
        free(line);
        line = longer;
    }
    m->comments[p->n_comment++] = pprof_string(w, line);
    free(line);
    if (s->comment != NULL && *s->comment != '\0')
        m->comments[p->n_comment++] = pprof_string(w, s->comment);
    p->comment = m->comments;
}

/* A sample a distinct stack: its locations, leaf first; its count, and its
 * count as time. */
static void pprof_pack_samples(struct pprof *w, Perftools__Profiles__Profile *p,
                               struct pprof_msgs *m)
{
    m->samples = xcalloc(w->nsamples, sizeof *m->samples);
    m->sample_ptrs = xcalloc(w->nsamples, sizeof *m->sample_ptrs);
    m->values = xcalloc(2 * w->nsamples, sizeof *m->values);
    for (size_t i = 0; i < w->nsamples; i++) {
        Perftools__Profiles__Sample *sp = &m->samples[i];
        perftools__profiles__sample__init(sp);
        sp->n_location_id = w->samples[i].n;
        sp->location_id = w->pool + w->samples[i].first;
        m->values[2 * i] = (int64_t)w->samples[i].count;
        m->values[2 * i + 1] = (int64_t)(w->samples[i].count * w->s->interval_us * 1000);
        sp->n_value = 2;
        sp->value = &m->values[2 * i];
        m->sample_ptrs[i] = sp;
    }
    p->n_sample = w->nsamples;
    p->sample = m->sample_ptrs;
}

/* MOD's build id in hex, into the string table. */
static int64_t pprof_build_id(struct pprof *w, const struct module *mod)
{
    char hex[2 * sizeof mod->build_id + 1];
    size_t n = mod->build_id_len < sizeof mod->build_id ? mod->build_id_len : sizeof mod->build_id;
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", mod->build_id[i]);
    hex[2 * n] = '\0';
    return pprof_string(w, hex);
}

/* A mapping a module with a location in it, in module order: the
 * program's first, as pprof expects.  Each module's id is its mapping's
 * from now. */
static void pprof_pack_mappings(struct pprof *w, Perftools__Profiles__Profile *p,
                                struct pprof_msgs *m)
{
    struct session *s = w->s;
    m->maps = xcalloc(s->nmodules + 1, sizeof *m->maps);
    m->map_ptrs = xcalloc(s->nmodules + 1, sizeof *m->map_ptrs);
    for (size_t i = 0; i < s->nmodules; i++) {
        struct pprof_module *pm = &w->modules[i];
        if (pm->id == 0)
            continue;
        const struct module *mod = s->modules[i];
        Perftools__Profiles__Mapping *mp = &m->maps[p->n_mapping];
        perftools__profiles__mapping__init(mp);
        pm->id = mp->id = p->n_mapping + 1;
        if (!pprof_module_span(mod, &mp->memory_start, &mp->memory_limit, &mp->file_offset)) {
            mp->memory_start = pm->low;
            mp->memory_limit = pm->high + 1;
        }
        mp->filename = pprof_string(w, mod->path);
        if (mod->build_id_len > 0)
            mp->build_id = pprof_build_id(w, mod);
        mp->has_functions = pm->named;
        m->map_ptrs[p->n_mapping++] = mp;
    }
    p->mapping = m->map_ptrs;
}

/* The locations, each with its mapping (pprof_pack_mappings numbered them)
 * and its lines, the functions inlined at its PC first. */
static void pprof_pack_locations(struct pprof *w, Perftools__Profiles__Profile *p,
                                 struct pprof_msgs *m)
{
    m->locs = xcalloc(w->nlocs, sizeof *m->locs);
    m->loc_ptrs = xcalloc(w->nlocs, sizeof *m->loc_ptrs);
    m->lines = xcalloc(w->nlines + 1, sizeof *m->lines);
    m->line_ptrs = xcalloc(w->nlines + 1, sizeof *m->line_ptrs);
    for (size_t i = 0; i < w->nlines; i++) {
        perftools__profiles__line__init(&m->lines[i]);
        m->lines[i].function_id = w->lines[i].function_id;
        m->lines[i].line = w->lines[i].line;
        m->line_ptrs[i] = &m->lines[i];
    }
    for (size_t i = 0; i < w->nlocs; i++) {
        const struct pprof_loc *l = &w->locs[i];
        Perftools__Profiles__Location *lp = &m->locs[i];
        perftools__profiles__location__init(lp);
        lp->id = i + 1;
        lp->address = l->address;
        if (l->frame.module < w->s->nmodules)
            lp->mapping_id = w->modules[l->frame.module].id;
        lp->n_line = l->nlines;
        lp->line = &m->line_ptrs[l->first];
        m->loc_ptrs[i] = lp;
    }
    p->n_location = w->nlocs;
    p->location = m->loc_ptrs;
}

/* The functions: name, symbol, source file and first line. */
static void pprof_pack_functions(struct pprof *w, Perftools__Profiles__Profile *p,
                                 struct pprof_msgs *m)
{
    struct session *s = w->s;
    m->funcs = xcalloc(w->nfunctions, sizeof *m->funcs);
    m->func_ptrs = xcalloc(w->nfunctions, sizeof *m->func_ptrs);
    for (size_t i = 0; i < w->nfunctions; i++) {
        const struct export_frame *fr = &w->function_frame[i];
        Perftools__Profiles__Function *fp = &m->funcs[i];
        perftools__profiles__function__init(fp);
        fp->id = i + 1;
        fp->name = pprof_string(w, export_frame_name(s, fr));
        bool has_func = fr->func >= 0 && (size_t)fr->func < s->nfuncs;
        const char *raw = has_func && s->funcs[fr->func].raw != NULL ? s->funcs[fr->func].raw
                                                                     : export_frame_name(s, fr);
        fp->system_name = pprof_string(w, raw);
        uint32_t start_line;
        const char *file = export_frame_source(s, fr, &start_line);
        if (file == NULL)
            file = export_frame_file(s, fr);
        if (file != NULL)
            fp->filename = pprof_string(w, file);
        fp->start_line = start_line;
        m->func_ptrs[i] = fp;
    }
    p->n_function = w->nfunctions;
    p->function = m->func_ptrs;
}

/* Free the messages; their strings are the table's, freed with it. */
static void pprof_msgs_free(struct pprof_msgs *m)
{
    free(m->funcs);
    free(m->func_ptrs);
    free(m->lines);
    free(m->line_ptrs);
    free(m->locs);
    free(m->loc_ptrs);
    free(m->maps);
    free(m->map_ptrs);
    free(m->values);
    free(m->samples);
    free(m->sample_ptrs);
}

/* Build the Profile message from W and pack it into *DATA, *LEN bytes.  The
 * parts in this order: each adds its strings to the table as it comes. */
static void pprof_pack(struct pprof *w, uint8_t **data, size_t *len)
{
    Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
    struct pprof_msgs m;
    memset(&m, 0, sizeof m);
    pprof_pack_types(w, &p, &m);
    pprof_pack_comments(w, &p, &m);
    pprof_pack_samples(w, &p, &m);
    pprof_pack_mappings(w, &p, &m);
    pprof_pack_locations(w, &p, &m);
    pprof_pack_functions(w, &p, &m);

    p.n_string_table = w->nstrings; /* complete: nothing above adds a string now */
    p.string_table = w->strings;

    *len = protobuf_c_message_get_packed_size(&p.base);
    *data = xmalloc(*len ? *len : 1);
    protobuf_c_message_pack(&p.base, *data);
    pprof_msgs_free(&m);
}

int export_pprof(struct session *s, uint8_t **data, size_t *len, char **cause)
{
    struct pprof w = {.s = s};
    pprof_string(&w, ""); /* index 0, as the format wants */
    session_totals(s);    /* may add functions: size the keys after it */
    size_t nkeys = export_nkeys(s);
    w.function_of = xcalloc(nkeys, sizeof *w.function_of);
    w.function_frame = xcalloc(nkeys, sizeof *w.function_frame);
    w.modules = xcalloc(s->nmodules + 1, sizeof *w.modules);
    export_walk(s, pprof_sample, &w);

    uint8_t *raw = NULL;
    size_t rawlen = 0;
    pprof_pack(&w, &raw, &rawlen);
    int r = pprof_gzip(raw, rawlen, data, len);
    if (r < 0)
        *cause = xstrdup("cannot compress the profile (zlib failed)");
    free(raw);
    for (size_t i = 0; i < w.nstrings; i++)
        free(w.strings[i]);
    free(w.strings);
    free(w.string_index);
    free(w.function_of);
    free(w.function_frame);
    free(w.locs);
    free(w.lines);
    free(w.loc_index);
    free(w.samples);
    free(w.pool);
    free(w.modules);
    return r;
}
