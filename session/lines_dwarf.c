/*
 * The places of a live session's PCs, read with libdw from the image or its
 * debug file into the tables of lines.c (lines.h says what each call does).
 */
#include "config.h"

#include "elf/debuginfo.h"
#include "elf/scopes.h"
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

/* One module's DWARF, opened offline on first use. */
struct lines_dwarf {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Dwarf_Addr bias;
    bool has_dwarf;
    bool pending;         /* its debug file is being fetched: nothing is kept of it */
    char *why;            /* owned: why there are no lines, or NULL */
    struct scopes scopes; /* its CUs' functions and scopes by address */
};

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

/* The functions around ADDR of CU, innermost first, as lines_scopes_slow
 * gives them: the real function from the CU's index, the scope holding
 * ADDR from the function's, then out from it. */
static bool lines_scopes(struct session *s, struct lines_dwarf *d, Dwarf_Die *cu, Dwarf_Addr addr,
                         struct srcloc *loc, struct inline_frame *chain, Dwarf_Die *real)
{
    const struct scopes_cu *c = scopes_cu_of(&d->scopes, cu);
    if (c->n == 0) /* none found where the index looks (an imported unit?) */
        return lines_scopes_slow(s, cu, addr, loc, chain, real);
    struct scopes_fn *f = scopes_cu_func(c, addr);
    if (f == NULL)
        return false; /* between functions: padding */
    /* The inlined instances from the innermost out, up to the real
     * function: the one indexed, or a function nested in it. */
    Dwarf_Die inl[LINES_MAX_INLINE];
    uint32_t n = 0, k = scopes_fn_scope(f, addr);
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

static void lines_dwarf_free(struct lines_dwarf *d)
{
    if (d == NULL)
        return;
    scopes_fini(&d->scopes);
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
