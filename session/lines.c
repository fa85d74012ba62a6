#include "config.h"

#include "elf/debuginfo.h"
#include "elf/source.h"
#include "elf/symbols.h"
#include "session/lines.h"
#include "session/model.h"
#include "session/resolve.h"
#include "util/xmalloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A scope of a function that holds code: the function itself (index 0), a
 * block, an inlined instance, a nested function. */
struct lines_scope {
    Dwarf_Die die;
    uint32_t parent; /* the enclosing scope's index (0's own is 0) */
    int tag;
};

/* One range of a scope's code. */
struct lines_scope_range {
    Dwarf_Addr lo, hi;
    uint32_t scope;
    uint32_t depth;
};

/* A function's scopes by address, made on the first lookup in it: a walk
 * down its tree for every PC is long in a function of thousands of blocks. */
struct lines_fn {
    Dwarf_Die die;
    struct lines_scope *sc;
    size_t nsc;
    struct lines_scope_range *r; /* sorted by lo, the deeper after */
    size_t nr;
    bool built;
};

/* One range of a function's code, in its CU's index. */
struct lines_fn_range {
    Dwarf_Addr lo, hi;
    uint32_t fn; /* index into its lines_cu's fns */
};

/* A CU's functions sorted by address, made on the first lookup in the CU:
 * dwarf_getscopes walks the CU's whole tree for every PC, which a CU of
 * thousands of functions makes quadratic. */
struct lines_cu {
    const void *key; /* the CU DIE's addr */
    struct lines_fn_range *r;
    size_t n;
    struct lines_fn *fns;
    size_t nfns;
};

/* One module's DWARF, opened offline on first use. */
struct lines_dwarf {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Dwarf_Addr bias;
    bool has_dwarf;
    bool pending;         /* its debug file is being fetched: nothing is kept of it */
    char *why;            /* owned: why there are no lines, or NULL */
    struct lines_cu *cus; /* sorted by key */
    size_t ncus;
};

static struct lines *lines_get(struct session *s)
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

static struct srcloc *lines_loc_slot(struct lines *l, uint32_t module, uint64_t offset)
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

/* Set by lines_find_debuginfo when the debug file is being fetched. */
static bool lines_fetching;

/* Dwfl asks here for a separate debug file: profil's own search (build id,
 * debuglink, debuginfod), so that lines and names come from the same file. */
static int lines_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                Dwarf_Addr base, const char *file_name, const char *debuglink,
                                GElf_Word crc, char **debuginfo_file_name)
{
    (void)userdata, (void)modname, (void)base;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(mod, &bits, &vaddr);
    const char *base_name = strrchr(file_name, '/') ? strrchr(file_name, '/') + 1 : file_name;
    struct debuginfo_query q = {
        file_name, base_name, len > 0 ? bits : NULL, len > 0 ? (size_t)len : 0, debuglink, crc};
    struct debuginfo_file f;
    int r = debuginfo_find(&q, &f);
    if (r == -EINPROGRESS)
        lines_fetching = true;
    if (r != 0)
        return -1;
    int fd = dup(f.fd);
    if (fd >= 0)
        *debuginfo_file_name = xstrdup(f.path);
    debuginfo_file_close(&f);
    return fd;
}

static const Dwfl_Callbacks lines_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = lines_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Open MODULE's DWARF the first time a PC of it needs a line. */
static struct lines_dwarf *lines_dwarf(struct session *s, uint32_t module)
{
    struct lines *l = lines_get(s);
    if (module >= l->ndwarf) {
        size_t n = s->nmodules > module ? s->nmodules : module + 1;
        l->dwarf = xreallocarray(l->dwarf, n, sizeof *l->dwarf);
        memset(l->dwarf + l->ndwarf, 0, (n - l->ndwarf) * sizeof *l->dwarf);
        l->ndwarf = n;
    }
    if (l->dwarf[module] != NULL)
        return l->dwarf[module];
    struct lines_dwarf *d = xcalloc(1, sizeof *d);
    l->dwarf[module] = d;
    struct module *m = s->modules[module];
    if (m->kind != MODULE_PROGRAM && m->kind != MODULE_LIBRARY) {
        d->why = xstrdup("no source lines for this kind of code");
        return d;
    }
    d->dwfl = dwfl_begin(&lines_callbacks);
    int fd = d->dwfl ? open(m->path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) {
        d->why = xasprintf("%s: %s", m->path, strerror(errno));
        return d;
    }
    d->mod = dwfl_report_offline(d->dwfl, m->name, m->path, fd); /* takes the fd */
    dwfl_report_end(d->dwfl, NULL, NULL);
    if (d->mod == NULL) {
        d->why = xasprintf("%s: %s", m->path, dwfl_errmsg(-1));
        return d;
    }
    /* The file must be the one profiled: its build id names it. */
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(d->mod, &bits, &vaddr);
    if (m->build_id_len > 0 &&
        (len != (int)m->build_id_len || memcmp(bits, m->build_id, m->build_id_len) != 0)) {
        d->why = xasprintf("%s is no longer the file profiled (build id differs)", m->path);
        d->mod = NULL;
        return d;
    }
    lines_fetching = false;
    if (dwfl_module_getdwarf(d->mod, &d->bias) == NULL) {
        d->pending = lines_fetching;
        d->why = d->pending ? xasprintf("%s: its debug information is being downloaded from "
                                        "debuginfod",
                                        m->path)
                            : xasprintf("%s: no debug information (install its -dbg or -dbgsym "
                                        "package, or set DEBUGINFOD_URLS)",
                                        m->path);
        return d;
    }
    d->has_dwarf = true;
    return d;
}

void lines_open(struct session *s, uint32_t module)
{
    if (module < s->nmodules && (s->lines == NULL || !s->lines->from_file) &&
        (s->modules[module]->kind == MODULE_PROGRAM ||
         s->modules[module]->kind == MODULE_LIBRARY)) {
        session_load_module(s->modules[module]);
        struct lines_dwarf *d = lines_dwarf(s, module);
        Dwarf_Addr bias;
        if (d->has_dwarf) /* the first CU's lookup reads the sections libdw reads lazily */
            dwfl_module_addrdie(d->mod, d->bias, &bias);
    }
}

const char *lines_module_why(struct session *s, uint32_t module)
{
    if (s->lines != NULL && s->lines->from_file)
        return "none in the session: its debug information was missing, damaged or unreadable "
               "when it was recorded";
    if (module >= s->nmodules)
        return NULL;
    return lines_dwarf(s, module)->why;
}

/* The name a DIE gives its function: the linkage name (C++), else the name,
 * following abstract origins and specifications. */
static const char *lines_die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) != NULL ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a) != NULL)
        n = dwarf_formstring(&a);
    if (n == NULL && dwarf_attr_integrate(die, DW_AT_name, &a) != NULL)
        n = dwarf_formstring(&a);
    return n;
}

/* PATH as a file table gives it, made absolute against the CU's COMP_DIR and
 * without "." and ".." components: one file has one id. */
static uint32_t lines_path_id(struct session *s, const char *comp_dir, const char *path)
{
    /* libdw has joined a DWARF 5 file of directory 0 with that directory,
     * which is COMP_DIR: a relative one (gcc -fdebug-prefix-map=...=.) is
     * not to be joined twice. */
    size_t cl = comp_dir != NULL ? strlen(comp_dir) : 0;
    bool joined_already = cl > 0 && strncmp(path, comp_dir, cl) == 0 && path[cl] == '/';
    char *joined = path[0] != '/' && cl > 0 && !joined_already ? xasprintf("%s/%s", comp_dir, path)
                                                               : xstrdup(path);
    /* Lexically: "a/./b" is "a/b", "a/x/../b" is "a/b", "//" is "/". */
    char *out = xmalloc(strlen(joined) + 1);
    size_t o = 0;
    bool abs = joined[0] == '/';
    for (char *p = joined; *p != '\0';) {
        while (*p == '/')
            p++;
        char *e = p;
        while (*e != '\0' && *e != '/')
            e++;
        size_t len = (size_t)(e - p);
        if (len == 0 || (len == 1 && p[0] == '.')) {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.' && o > 0 &&
                   !(o >= 2 && out[o - 1] == '.' && out[o - 2] == '.' &&
                     (o == 2 || out[o - 3] == '/'))) {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            if (o > 0 || abs)
                out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p = e;
    }
    if (o == 0 && abs)
        out[o++] = '/';
    out[o] = '\0';
    uint32_t id = o > 0 ? lines_file_id(s, out) : 0;
    free(out);
    free(joined);
    return id;
}

static const char *lines_comp_dir(Dwarf_Die *cu)
{
    Dwarf_Attribute a;
    return dwarf_attr(cu, DW_AT_comp_dir, &a) != NULL ? dwarf_formstring(&a) : NULL;
}

/* The file id of index IDX of the CU's file table, or 0. */
static uint32_t lines_cu_file(struct session *s, Dwarf_Die *cu, Dwarf_Files *files, size_t nfiles,
                              Dwarf_Word idx)
{
    if (files == NULL || idx >= nfiles)
        return 0;
    const char *p = dwarf_filesrc(files, idx, NULL, NULL);
    return p != NULL ? lines_path_id(s, lines_comp_dir(cu), p) : 0;
}

/* Where DIE is declared, as a file id and line. */
static void lines_decl(struct session *s, Dwarf_Die *cu, Dwarf_Die *die, uint32_t *file,
                       uint32_t *line)
{
    int dl = 0;
    const char *df = dwarf_decl_file(die);
    *file = df != NULL ? lines_path_id(s, lines_comp_dir(cu), df) : 0;
    *line = dwarf_decl_line(die, &dl) == 0 && dl > 0 ? (uint32_t)dl : 0;
}

/* One level of an inline chain from DIE, an inlined_subroutine, into
 * CHAIN[*N], for LOC's module. */
static void lines_inline_frame(struct session *s, Dwarf_Die *cu, Dwarf_Files *files, size_t nfiles,
                               Dwarf_Die *die, const struct srcloc *loc, struct inline_frame *chain,
                               uint32_t *n)
{
    const char *name = lines_die_name(die);
    uint32_t dfile, dline;
    lines_decl(s, cu, die, &dfile, &dline);
    uint32_t fn = lines_add_inline_func(s, loc->module, name ? name : "[inlined]", dfile, dline);
    Dwarf_Attribute at;
    Dwarf_Word cf = 0, cl = 0, cc = 0;
    if (dwarf_attr(die, DW_AT_call_file, &at) != NULL)
        dwarf_formudata(&at, &cf);
    if (dwarf_attr(die, DW_AT_call_line, &at) != NULL)
        dwarf_formudata(&at, &cl);
    if (dwarf_attr(die, DW_AT_call_column, &at) != NULL)
        dwarf_formudata(&at, &cc);
    chain[(*n)++] = (struct inline_frame){fn, lines_cu_file(s, cu, files, nfiles, cf),
                                          cl <= UINT32_MAX ? (uint32_t)cl : 0,
                                          cc <= UINT32_MAX ? (uint32_t)cc : 0};
}

/* The functions around ADDR of CU from the innermost out, as dwarf_getscopes
 * finds them: each inlined one into CHAIN (for LOC's module), and the real
 * one into *REAL; false when no function holds ADDR.  dwarf_getscopes gives
 * an inlined function's abstract scopes after it, so the concrete ones come
 * from dwarf_getscopes_die, as eu-addr2line -i walks them.  Each call walks
 * the CU's whole tree: lines_scopes below does this only for what its index
 * does not know. */
static bool lines_scopes_slow(struct session *s, Dwarf_Die *cu, Dwarf_Addr addr, struct srcloc *loc,
                              struct inline_frame *chain, Dwarf_Die *real)
{
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, addr, &scopes);
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (n > 0 && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    bool found = false;
    for (int i = 0; i < n && !found;) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram) {
            *real = scopes[i];
            found = true;
        } else if (tag == DW_TAG_inlined_subroutine && loc->ninl < LINES_MAX_INLINE) {
            Dwarf_Die die = scopes[i];
            lines_inline_frame(s, cu, files, nfiles, &die, loc, chain, &loc->ninl);
            /* Go on from the scopes that hold this instance, itself first. */
            free(scopes);
            scopes = NULL;
            n = dwarf_getscopes_die(&die, &scopes);
            i = 1;
        } else {
            i++;
        }
    }
    free(scopes);
    return found;
}

/* Walk the tree under ROOT in order, calling VISIT(DIE, DEPTH, ARG) on
 * every DIE below it (depth 0: ROOT's children); VISIT says whether to go
 * into the DIE's children.  A tree is laid out in the section's order: a DIE
 * that does not come later than the one before is a loop of a damaged
 * DW_AT_sibling, and ends the walk. */
static void lines_walk(Dwarf_Die *root, bool (*visit)(Dwarf_Die *, size_t, void *), void *arg)
{
    size_t depth = 0, dalloc = 0;
    Dwarf_Die *stack = NULL, die, next;
    if (dwarf_child(root, &die) != 0)
        return;
    const char *last = die.addr;
    for (;;) {
        if (visit(&die, depth, arg) && dwarf_haschildren(&die) > 0 &&
            dwarf_child(&die, &next) == 0) {
            if (depth == dalloc) {
                dalloc = dalloc ? 2 * dalloc : 16;
                stack = xreallocarray(stack, dalloc, sizeof *stack);
            }
            stack[depth++] = die;
        } else {
            /* The next sibling, or the next of an enclosing DIE's. */
            while (dwarf_siblingof(&die, &next) != 0) {
                if (depth == 0)
                    goto out;
                die = stack[--depth];
            }
        }
        if ((const char *)next.addr <= last)
            break;
        last = next.addr;
        die = next;
    }
out:
    free(stack);
}

/* Every subprogram of a CU with code, into its index. */
static bool lines_cu_visit(Dwarf_Die *die, size_t depth, void *arg)
{
    (void)depth;
    struct lines_cu *c = arg;
    if (dwarf_tag(die) != DW_TAG_subprogram)
        return true; /* functions are in namespaces, classes, functions */
    Dwarf_Addr base, lo, hi;
    bool has = false;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
        if (hi <= lo)
            continue;
        if (!has) {
            if ((c->nfns & (c->nfns - 1)) == 0) /* at powers of two: double */
                c->fns = xreallocarray(c->fns, c->nfns ? 2 * c->nfns : 1, sizeof *c->fns);
            c->fns[c->nfns++] = (struct lines_fn){*die, NULL, 0, NULL, 0, false};
            has = true;
        }
        if ((c->n & (c->n - 1)) == 0) /* at powers of two: double */
            c->r = xreallocarray(c->r, c->n ? 2 * c->n : 1, sizeof *c->r);
        c->r[c->n++] = (struct lines_fn_range){lo, hi, (uint32_t)c->nfns - 1};
    }
    return true;
}

static int lines_fn_range_cmp(const void *a, const void *b)
{
    const struct lines_fn_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* The index of CU in D, made on first use. */
static const struct lines_cu *lines_cu_of(struct lines_dwarf *d, Dwarf_Die *cu)
{
    size_t lo = 0, hi = d->ncus;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)d->cus[mid].key < (uintptr_t)cu->addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->ncus && d->cus[lo].key == cu->addr)
        return &d->cus[lo];
    d->cus = xreallocarray(d->cus, d->ncus + 1, sizeof *d->cus);
    memmove(d->cus + lo + 1, d->cus + lo, (d->ncus - lo) * sizeof *d->cus);
    d->ncus++;
    struct lines_cu *c = &d->cus[lo];
    *c = (struct lines_cu){cu->addr, NULL, 0, NULL, 0};
    lines_walk(cu, lines_cu_visit, c);
    if (c->n > 1)
        qsort(c->r, c->n, sizeof *c->r, lines_fn_range_cmp);
    return c;
}

/* How far back from the last range starting at or before a PC a range
 * holding it is looked for: functions nest (a nested function's range
 * inside its parent's) but do not pile up. */
#define LINES_RANGE_BACK 16

/* The innermost function of C whose code holds ADDR, or NULL. */
static struct lines_fn *lines_cu_func(const struct lines_cu *c, Dwarf_Addr addr)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) { /* the first range starting after ADDR */
        size_t mid = lo + (hi - lo) / 2;
        if (c->r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct lines_fn_range *best = NULL;
    for (size_t i = lo, k = 0; i-- > 0 && k < LINES_RANGE_BACK; k++) {
        const struct lines_fn_range *r = &c->r[i];
        if (addr < r->hi && (best == NULL || r->hi - r->lo < best->hi - best->lo))
            best = r;
    }
    return best != NULL ? &c->fns[best->fn] : NULL;
}

/* Whether a DIE of tag TAG is a scope that may hold code of its own: what
 * dwarf_getscopes descends into within a function. */
static bool lines_is_code_scope(int tag)
{
    return tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_subprogram || tag == DW_TAG_try_block || tag == DW_TAG_catch_block ||
           tag == DW_TAG_with_stmt || tag == DW_TAG_entry_point;
}

/* The most scopes one function's index keeps: a bound on damaged DWARF. */
#define LINES_MAX_SCOPES ((size_t)1 << 20)

/* While a function's scopes are indexed: the scope at each depth. */
struct lines_fn_walk {
    struct lines_fn *f;
    uint32_t *at;
    size_t nat;
    size_t ralloc;
};

/* A scope's ranges, by their depth below the function. */
static void lines_fn_ranges(struct lines_fn_walk *w, Dwarf_Die *die, uint32_t scope, uint32_t depth)
{
    struct lines_fn *f = w->f;
    Dwarf_Addr base, lo, hi;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
        if (hi <= lo)
            continue;
        if (f->nr == w->ralloc) {
            w->ralloc = w->ralloc ? 2 * w->ralloc : 16;
            f->r = xreallocarray(f->r, w->ralloc, sizeof *f->r);
        }
        f->r[f->nr++] = (struct lines_scope_range){lo, hi, scope, depth};
    }
}

static bool lines_fn_visit(Dwarf_Die *die, size_t depth, void *arg)
{
    struct lines_fn_walk *w = arg;
    struct lines_fn *f = w->f;
    int tag = dwarf_tag(die);
    if (!lines_is_code_scope(tag) || f->nsc >= LINES_MAX_SCOPES)
        return false;
    /* Only scopes are gone into: the one above is at DEPTH - 1. */
    uint32_t parent = depth > 0 && depth - 1 < w->nat ? w->at[depth - 1] : 0;
    if ((f->nsc & (f->nsc - 1)) == 0)
        f->sc = xreallocarray(f->sc, 2 * f->nsc, sizeof *f->sc);
    uint32_t k = (uint32_t)f->nsc++;
    f->sc[k] = (struct lines_scope){*die, parent, tag};
    lines_fn_ranges(w, die, k, (uint32_t)depth + 1);
    if (depth >= w->nat) {
        w->nat = 2 * depth + 16;
        w->at = xreallocarray(w->at, w->nat, sizeof *w->at);
    }
    w->at[depth] = k;
    return true;
}

static int lines_scope_range_cmp(const void *a, const void *b)
{
    const struct lines_scope_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Index F's scopes. */
static void lines_fn_build(struct lines_fn *f)
{
    f->built = true;
    f->sc = xcalloc(1, sizeof *f->sc);
    f->sc[0] = (struct lines_scope){f->die, 0, DW_TAG_subprogram};
    f->nsc = 1;
    struct lines_fn_walk w = {f, NULL, 0, 0};
    lines_fn_ranges(&w, &f->die, 0, 0);
    lines_walk(&f->die, lines_fn_visit, &w);
    free(w.at);
    if (f->nr > 1)
        qsort(f->r, f->nr, sizeof *f->r, lines_scope_range_cmp);
}

/* The innermost scope of F holding ADDR (0: the function itself).  Scopes
 * nest: the range starting last at or before ADDR is the innermost holding
 * it, or ends before ADDR, and then one of its scope's enclosing ones is. */
static uint32_t lines_fn_scope(struct lines_fn *f, Dwarf_Addr addr)
{
    if (!f->built)
        lines_fn_build(f);
    size_t lo = 0, hi = f->nr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const struct lines_scope_range *r = &f->r[lo - 1];
    if (addr < r->hi)
        return r->scope;
    for (uint32_t k = f->sc[r->scope].parent; k != 0; k = f->sc[k].parent) {
        if (dwarf_haspc(&f->sc[k].die, addr) > 0)
            return k;
    }
    return 0;
}

/* The functions around ADDR of CU, innermost first, as lines_scopes_slow
 * gives them: the real function from the CU's index, the scope holding
 * ADDR from the function's, then out from it. */
static bool lines_scopes(struct session *s, struct lines_dwarf *d, Dwarf_Die *cu, Dwarf_Addr addr,
                         struct srcloc *loc, struct inline_frame *chain, Dwarf_Die *real)
{
    const struct lines_cu *c = lines_cu_of(d, cu);
    if (c->n == 0) /* none found where the index looks (an imported unit?) */
        return lines_scopes_slow(s, cu, addr, loc, chain, real);
    struct lines_fn *f = lines_cu_func(c, addr);
    if (f == NULL)
        return false; /* between functions: padding */
    /* The inlined instances from the innermost out, up to the real
     * function: the one indexed, or a function nested in it. */
    Dwarf_Die inl[LINES_MAX_INLINE];
    uint32_t n = 0, k = lines_fn_scope(f, addr);
    for (;; k = f->sc[k].parent) {
        if (f->sc[k].tag == DW_TAG_subprogram) {
            *real = f->sc[k].die;
            break;
        }
        if (f->sc[k].tag == DW_TAG_inlined_subroutine && n < LINES_MAX_INLINE)
            inl[n++] = f->sc[k].die;
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (n > 0 && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    for (uint32_t i = 0; i < n && loc->ninl < LINES_MAX_INLINE; i++)
        lines_inline_frame(s, cu, files, nfiles, &inl[i], loc, chain, &loc->ninl);
    return true;
}

/* Read from DWARF the place of vaddr ADDR into LOC and CHAIN. */
static void lines_read(struct session *s, struct lines_dwarf *d, uint64_t addr, struct srcloc *loc,
                       struct inline_frame *chain)
{
    Dwarf_Addr a = addr + d->bias;
    Dwfl_Line *ln = dwfl_module_getsrc(d->mod, a);
    if (ln != NULL) {
        int line = 0, col = 0;
        const char *file = dwfl_lineinfo(ln, NULL, &line, &col, NULL, NULL);
        if (file != NULL && line > 0) {
            loc->file = lines_path_id(s, dwfl_line_comp_dir(ln), file);
            loc->line = (uint32_t)line;
            loc->col = col > 0 ? (uint32_t)col : 0;
        }
    }
    Dwarf_Addr cubias;
    Dwarf_Die *cu = dwfl_module_addrdie(d->mod, a, &cubias);
    Dwarf_Die real;
    if (cu != NULL)
        lines_scopes(s, d, cu, a - cubias, loc, chain, &real);
}

const struct srcloc *lines_lookup(struct session *s, uint32_t module, uint64_t offset)
{
    if (module >= s->nmodules ||
        (s->modules[module]->kind != MODULE_PROGRAM && s->modules[module]->kind != MODULE_LIBRARY))
        return NULL;
    struct lines *l = lines_get(s);
    if (l->locs_alloc > 0) {
        const struct srcloc *e = lines_loc_slot(l, module, offset);
        if (e->module != UINT32_MAX)
            return e->file != 0 ? e : NULL;
    }
    struct srcloc loc = {module, offset, 0, 0, 0, 0, 0};
    struct inline_frame chain[LINES_MAX_INLINE];
    struct module *m = s->modules[module];
    uint64_t vaddr;
    if (!l->from_file) {
        session_load_module(m);
        struct lines_dwarf *d = lines_dwarf(s, module);
        if (d->pending)
            return NULL; /* not kept: asked again once it has come */
        if (d->has_dwarf && module_offset_to_vaddr(m, offset, &vaddr))
            lines_read(s, d, vaddr, &loc, chain);
    }
    if (loc.file == 0)
        loc.ninl = 0; /* an inline chain without a line cannot be shown */
    lines_add_loc(s, &loc, chain);
    return loc.file != 0 ? lines_loc_slot(l, module, offset) : NULL;
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

/* The last line of file id FILE that code in [LO, HI) of CU comes from:
 * where a function's source ends, as far as its code tells. */
static uint32_t lines_last_line(struct session *s, Dwarf_Die *cu, uint32_t file, Dwarf_Addr lo,
                                Dwarf_Addr hi)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cu, &lines, &n) != 0)
        return 0;
    /* libdw sorts a CU's rows by address: its first row at LO or after. */
    size_t first = 0, end = n;
    while (first < end) {
        size_t mid = first + (end - first) / 2;
        Dwarf_Line *ln = dwarf_onesrcline(lines, mid);
        Dwarf_Addr a;
        if (ln != NULL && dwarf_lineaddr(ln, &a) == 0 && a < lo)
            first = mid + 1;
        else
            end = mid;
    }
    uint32_t last = 0;
    const char *prev = NULL;
    bool same = false;
    for (size_t i = first; i < n; i++) {
        Dwarf_Line *ln = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int no;
        if (ln == NULL || dwarf_lineaddr(ln, &a) != 0)
            continue;
        if (a >= hi)
            break;
        if (a < lo || dwarf_lineno(ln, &no) != 0 || no <= 0 || (uint32_t)no <= last)
            continue;
        const char *f = dwarf_linesrc(ln, NULL, NULL);
        if (f != prev) { /* the table repeats one string per file: compare once */
            prev = f;
            same = f != NULL && lines_path_id(s, lines_comp_dir(cu), f) == file;
        }
        if (same)
            last = (uint32_t)no;
    }
    return last;
}

void lines_note_rows(struct session *s, int64_t f)
{
    if (f < 0 || (size_t)f >= s->nfuncs || (s->lines != NULL && s->lines->from_file))
        return;
    const struct func *fn = &s->funcs[f];
    uint32_t module = fn->module;
    uint64_t start = fn->start, end = fn->end, vaddr;
    struct module *m = s->modules[module];
    if (fn->inlined || (m->kind != MODULE_PROGRAM && m->kind != MODULE_LIBRARY))
        return;
    session_load_module(m);
    struct lines_dwarf *d = lines_dwarf(s, module);
    Dwarf_Addr cubias;
    Dwarf_Die *cu = d->has_dwarf && module_offset_to_vaddr(m, start, &vaddr)
                        ? dwfl_module_addrdie(d->mod, vaddr + d->bias, &cubias)
                        : NULL;
    Dwarf_Lines *lines;
    size_t n;
    if (cu == NULL || dwarf_getsrclines(cu, &lines, &n) != 0)
        return;
    Dwarf_Addr lo = vaddr + d->bias - cubias, hi = lo + (end - start);
    size_t first = 0, stop = n;
    while (first < stop) { /* the rows are sorted by address */
        size_t mid = first + (stop - first) / 2;
        Dwarf_Line *ln = dwarf_onesrcline(lines, mid);
        Dwarf_Addr a;
        if (ln != NULL && dwarf_lineaddr(ln, &a) == 0 && a < lo)
            first = mid + 1;
        else
            stop = mid;
    }
    for (size_t i = first; i < n; i++) {
        Dwarf_Line *ln = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        if (ln == NULL || dwarf_lineaddr(ln, &a) != 0)
            continue;
        if (a >= hi)
            break;
        uint64_t off;
        if (a >= lo && module_vaddr_to_offset(m, a - d->bias + cubias, &off))
            lines_lookup(s, module, off);
    }
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
static void lines_file_func_place(struct lines *l, struct func *fn)
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

bool lines_func_place(struct session *s, int64_t f, uint32_t *file, uint32_t *line)
{
    if (f < 0 || (size_t)f >= s->nfuncs)
        return false;
    struct func *fn = &s->funcs[f];
    if (!fn->place_done && !fn->inlined && s->lines != NULL && s->lines->from_file) {
        fn->place_done = true;
        lines_file_func_place(s->lines, fn);
    }
    if (!fn->place_done && !fn->inlined && !(s->lines != NULL && s->lines->from_file)) {
        fn->place_done = true;
        struct module *m = s->modules[fn->module];
        uint64_t vaddr;
        if (m->kind == MODULE_PROGRAM || m->kind == MODULE_LIBRARY) {
            session_load_module(m);
            struct lines_dwarf *d = lines_dwarf(s, fn->module);
            Dwarf_Addr cubias;
            Dwarf_Die *cu = d->has_dwarf && module_offset_to_vaddr(m, fn->start, &vaddr)
                                ? dwfl_module_addrdie(d->mod, vaddr + d->bias, &cubias)
                                : NULL;
            struct srcloc scratch = {fn->module, fn->start, 0, 0, 0, 0, 0};
            struct inline_frame chain[LINES_MAX_INLINE];
            Dwarf_Die real;
            if (cu != NULL &&
                lines_scopes(s, d, cu, vaddr + d->bias - cubias, &scratch, chain, &real)) {
                lines_decl(s, cu, &real, &fn->file, &fn->line);
                if (fn->file != 0)
                    fn->line_end =
                        lines_last_line(s, cu, fn->file, vaddr + d->bias - cubias,
                                        vaddr + d->bias - cubias + (fn->end - fn->start));
            }
            if (fn->line == 0)
                fn->file = 0;
        }
    }
    *file = fn->file;
    *line = fn->line;
    return fn->file != 0;
}

/* An embedded source text, handed to source.c on first use. */
struct lines_text {
    uint32_t file;
    char *text;
    size_t len;
    bool given;
};

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

static void lines_dwarf_free(struct lines_dwarf *d)
{
    if (d == NULL)
        return;
    for (size_t k = 0; k < d->ncus; k++) {
        for (size_t j = 0; j < d->cus[k].nfns; j++) {
            free(d->cus[k].fns[j].sc);
            free(d->cus[k].fns[j].r);
        }
        free(d->cus[k].fns);
        free(d->cus[k].r);
    }
    free(d->cus);
    if (d->dwfl != NULL)
        dwfl_end(d->dwfl);
    free(d->why);
    free(d);
}

void lines_forget_pending(struct session *s)
{
    struct lines *l = s->lines;
    for (size_t i = 0; l != NULL && i < l->ndwarf; i++) {
        if (l->dwarf[i] != NULL && l->dwarf[i]->pending) {
            lines_dwarf_free(l->dwarf[i]);
            l->dwarf[i] = NULL;
        }
    }
}

void lines_free(struct session *s)
{
    struct lines *l = s->lines;
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->ntexts; i++)
        free(l->texts[i].text);
    free(l->texts);
    for (size_t i = 0; i < l->nfiles; i++)
        free(l->files[i]);
    free(l->files);
    free(l->file_index);
    free(l->locs);
    free(l->fplaces);
    free(l->inl_frames);
    for (size_t i = 0; i < l->ninl_funcs; i++)
        free(l->inl_funcs[i].raw);
    free(l->inl_funcs);
    for (size_t i = 0; i < l->ndwarf; i++)
        lines_dwarf_free(l->dwarf[i]);
    free(l->dwarf);
    free(l);
    s->lines = NULL;
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
