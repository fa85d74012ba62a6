#include "config.h"

#include "elf/source.h"
#include "session/lines.h"
#include "session/model.h"
#include "session/resolve.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

struct lines *lines_get(struct session *s)
{
    if (s->lines == NULL)
        s->lines = xcalloc(1, sizeof *s->lines);
    return s->lines;
}

static uint64_t lines_str_hash(const char *p)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

static uint32_t *lines_file_slot(struct lines *l, const char *path)
{
    size_t mask = l->file_index_alloc - 1;
    for (size_t i = lines_str_hash(path) & mask;; i = (i + 1) & mask) {
        uint32_t e = l->file_index[i];
        if (e == 0 || strcmp(l->files[e - 1], path) == 0)
            return &l->file_index[i];
    }
}

uint32_t lines_file_id(struct session *s, const char *path)
{
    struct lines *l = lines_get(s);
    if (2 * (l->nfiles + 1) > l->file_index_alloc) {
        free(l->file_index);
        l->file_index_alloc = l->file_index_alloc ? 2 * l->file_index_alloc : 64;
        l->file_index = xcalloc(l->file_index_alloc, sizeof *l->file_index);
        for (size_t i = 0; i < l->nfiles; i++)
            *lines_file_slot(l, l->files[i]) = (uint32_t)i + 1;
    }
    uint32_t *slot = lines_file_slot(l, path);
    if (*slot == 0) {
        l->files = xgrowarray(l->files, &l->files_alloc, l->nfiles + 1, sizeof *l->files);
        l->files[l->nfiles] = xstrdup(path);
        *slot = (uint32_t)++l->nfiles;
    }
    return *slot;
}

const char *lines_file(const struct session *s, uint32_t file)
{
    const struct lines *l = s->lines;
    if (l == NULL || file == 0 || file > l->nfiles)
        return "??";
    return l->files[file - 1];
}

struct srcloc *lines_loc_slot(struct lines *l, uint32_t module, uint64_t offset)
{
    size_t mask = l->locs_alloc - 1;
    for (size_t i = hit_hash(module, offset) & mask;; i = (i + 1) & mask) {
        struct srcloc *e = &l->locs[i];
        if (e->module == UINT32_MAX || (e->module == module && e->offset == offset))
            return e;
    }
}

/* Make room for MORE more places. */
static void lines_loc_reserve(struct lines *l, size_t more)
{
    if (2 * (l->nlocs + more) <= l->locs_alloc)
        return;
    struct srcloc *old = l->locs;
    size_t n = l->locs_alloc;
    l->locs_alloc = n ? 2 * n : 1024;
    while (l->locs_alloc < 2 * (l->nlocs + more))
        l->locs_alloc *= 2;
    l->locs = xcalloc(l->locs_alloc, sizeof *l->locs);
    for (size_t i = 0; i < l->locs_alloc; i++)
        l->locs[i].module = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        if (old[i].module != UINT32_MAX)
            *lines_loc_slot(l, old[i].module, old[i].offset) = old[i];
    }
    free(old);
}

uint32_t lines_add_inline_func(struct session *s, uint32_t module, const char *raw, uint32_t file,
                               uint32_t line)
{
    struct lines *l = lines_get(s);
    /* Few distinct inlined functions are hit: a scan is enough. */
    for (size_t i = l->ninl_funcs; i-- > 0;) {
        if (l->inl_funcs[i].module == module && strcmp(l->inl_funcs[i].raw, raw) == 0)
            return (uint32_t)i;
    }
    l->inl_funcs = xreallocarray(l->inl_funcs, l->ninl_funcs + 1, sizeof *l->inl_funcs);
    l->inl_funcs[l->ninl_funcs] = (struct inline_func){module, xstrdup(raw), file, line, -1};
    return (uint32_t)l->ninl_funcs++;
}

void lines_reserve_locs(struct session *s, size_t n)
{
    lines_loc_reserve(lines_get(s), n);
}

void lines_add_loc(struct session *s, const struct srcloc *loc, const struct inline_frame *chain)
{
    struct lines *l = lines_get(s);
    lines_loc_reserve(l, 1);
    struct srcloc *e = lines_loc_slot(l, loc->module, loc->offset);
    if (e->module == UINT32_MAX)
        l->nlocs++;
    *e = *loc;
    e->inl = (uint32_t)l->ninl_frames;
    if (loc->ninl > 0) {
        l->inl_frames = xgrowarray(l->inl_frames, &l->inl_frames_alloc, l->ninl_frames + loc->ninl,
                                   sizeof *chain);
        memcpy(l->inl_frames + l->ninl_frames, chain, loc->ninl * sizeof *chain);
        l->ninl_frames += loc->ninl;
    }
}

/* The function entry of RAW, inlined in MODULE (index INL of lines.inl_funcs):
 * the module's own function of that name when it has one. */
static int64_t session_inline_func(struct session *s, uint32_t module, const char *raw,
                                   uint32_t inl)
{
    /* Inlined here, compiled out of line there: one function, as pprof has it. */
    struct module *m = s->modules[module];
    session_load_module(m);
    long k = module_find_named(m, raw);
    if (k >= 0)
        return session_func(s, module, m->syms[k].start, m->syms[k].end, m->syms[k].name);
    int64_t f =
        session_func(s, module, SESSION_INLINE_BASE + inl, SESSION_INLINE_BASE + inl + 1, raw);
    struct func *fn = &s->funcs[f];
    if (!fn->inlined) {
        const struct inline_func *inf = &s->lines->inl_funcs[inl];
        fn->inlined = true;
        fn->place_done = true;
        fn->file = inf->file;
        fn->line = inf->line;
    }
    return f;
}

int64_t lines_level_func(struct session *s, const struct srcloc *loc, uint32_t level, int64_t real)
{
    if (loc == NULL || level == 0 || level > loc->ninl)
        return real;
    struct lines *l = s->lines;
    uint32_t fn = l->inl_frames[loc->inl + loc->ninl - level].fn;
    struct inline_func *inf = &l->inl_funcs[fn];
    if (inf->func < 0)
        inf->func = session_inline_func(s, inf->module, inf->raw, fn);
    return inf->func;
}

void lines_level_place(const struct session *s, const struct srcloc *loc, uint32_t level,
                       uint32_t *file, uint32_t *line)
{
    if (loc == NULL) {
        *file = *line = 0;
        return;
    }
    if (level >= loc->ninl) {
        *file = loc->file;
        *line = loc->line;
        return;
    }
    const struct inline_frame *f = &s->lines->inl_frames[loc->inl + loc->ninl - level - 1];
    *file = f->call_file;
    *line = f->call_line;
}

void lines_add_func_place(struct session *s, const struct func_place *p)
{
    struct lines *l = lines_get(s);
    l->fplaces = xgrowarray(l->fplaces, &l->fplaces_alloc, l->nfplaces + 1, sizeof *l->fplaces);
    l->fplaces[l->nfplaces++] = *p;
}

static int lines_fplace_cmp(const void *a, const void *b)
{
    const struct func_place *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

void lines_sort_func_places(struct session *s)
{
    struct lines *l = lines_get(s);
    if (l->nfplaces > 1)
        qsort(l->fplaces, l->nfplaces, sizeof *l->fplaces, lines_fplace_cmp);
}

/* A file's place for function FN. */
void lines_file_func_place(struct lines *l, struct func *fn)
{
    struct func_place key = {fn->module, fn->start, 0, 0, 0};
    const struct func_place *p =
        l->nfplaces ? bsearch(&key, l->fplaces, l->nfplaces, sizeof key, lines_fplace_cmp) : NULL;
    if (p != NULL) {
        fn->file = p->file;
        fn->line = p->line;
        fn->line_end = p->line_end;
    }
}

void lines_add_text(struct session *s, uint32_t file, const char *text, size_t len)
{
    struct lines *l = lines_get(s);
    l->texts = xreallocarray(l->texts, l->ntexts + 1, sizeof *l->texts);
    char *copy = xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    l->texts[l->ntexts++] = (struct lines_text){file, copy, len, false};
}

const struct source_file *lines_source(struct session *s, uint32_t file, char **where)
{
    struct lines *l = lines_get(s);
    for (size_t i = 0; i < l->ntexts; i++) {
        if (l->texts[i].file == file && !l->texts[i].given) {
            source_add_embedded(lines_file(s, file), l->texts[i].text, l->texts[i].len);
            l->texts[i].given = true;
        }
    }
    return source_find(lines_file(s, file), NULL, where);
}

bool lines_embed_text(struct session *s, uint32_t file, const char **text, size_t *len)
{
    struct lines *l = lines_get(s);
    if (l->from_file) {
        for (size_t i = 0; i < l->ntexts; i++) {
            if (l->texts[i].file == file) {
                *text = l->texts[i].text;
                *len = l->texts[i].len;
                return true;
            }
        }
        return false;
    }
    const struct source_file *f = lines_source(s, file, NULL);
    if (f == NULL)
        return false;
    *text = f->text;
    *len = f->len;
    return true;
}

void lines_merge(struct session *s, const struct session *from, const uint32_t *module_map)
{
    const struct lines *f = from->lines;
    if (f == NULL)
        return;
    struct lines *l = lines_get(s);
    l->from_file = true; /* what the files hold is what is known: never read the disk */
    uint32_t *fmap = xcalloc(f->nfiles + 1, sizeof *fmap);
    for (size_t i = 0; i < f->nfiles; i++)
        fmap[i + 1] = lines_file_id(s, f->files[i]);
    uint32_t *imap = xcalloc(f->ninl_funcs + 1, sizeof *imap);
    for (size_t i = 0; i < f->ninl_funcs; i++) {
        const struct inline_func *fn = &f->inl_funcs[i];
        imap[i] = lines_add_inline_func(s, module_map[fn->module], fn->raw,
                                        fn->file <= f->nfiles ? fmap[fn->file] : 0, fn->line);
    }
    struct inline_frame *chain = xcalloc(LINES_MAX_INLINE, sizeof *chain);
    for (size_t i = 0; i < f->locs_alloc; i++) {
        const struct srcloc *loc = &f->locs[i];
        if (loc->module == UINT32_MAX || loc->module >= from->nmodules)
            continue;
        struct srcloc n = *loc;
        n.module = module_map[loc->module];
        n.file = loc->file <= f->nfiles ? fmap[loc->file] : 0;
        lines_loc_reserve(l, 1);
        if (lines_loc_slot(l, n.module, n.offset)->module != UINT32_MAX)
            continue; /* an earlier run's place of the same code */
        n.ninl = loc->ninl <= LINES_MAX_INLINE && loc->inl + (size_t)loc->ninl <= f->ninl_frames
                     ? loc->ninl
                     : 0;
        for (uint32_t k = 0; k < n.ninl; k++) {
            const struct inline_frame *c = &f->inl_frames[loc->inl + k];
            chain[k] = (struct inline_frame){c->fn < f->ninl_funcs ? imap[c->fn] : 0,
                                             c->call_file <= f->nfiles ? fmap[c->call_file] : 0,
                                             c->call_line, c->call_col};
        }
        lines_add_loc(s, &n, chain);
    }
    free(chain);
    size_t had = l->nfplaces;
    for (size_t i = 0; i < f->nfplaces; i++) {
        struct func_place p = f->fplaces[i];
        if (p.module >= from->nmodules)
            continue;
        p.module = module_map[p.module];
        p.file = p.file <= f->nfiles ? fmap[p.file] : 0;
        if (had == 0 || bsearch(&p, l->fplaces, had, sizeof p, lines_fplace_cmp) == NULL)
            lines_add_func_place(s, &p);
    }
    lines_sort_func_places(s);
    for (size_t i = 0; i < f->ntexts; i++) {
        uint32_t file = f->texts[i].file <= f->nfiles ? fmap[f->texts[i].file] : 0;
        bool have = file == 0;
        for (size_t k = 0; k < l->ntexts && !have; k++)
            have = l->texts[k].file == file;
        if (!have)
            lines_add_text(s, file, f->texts[i].text, f->texts[i].len);
    }
    free(imap);
    free(fmap);
}
