/*
 * From a (module, offset) to a function: the module's symbols, the kernel's
 * from /proc/kallsyms, a JIT's from its perf map, and the function table
 * that the ranking, the stacks and the file share.
 */
#include "config.h"

#include "elf/debuginfo.h"
#include "elf/kallsyms.h"
#include "elf/symbols.h"
#include "session/model.h"
#include "session/resolve.h"
#include "util/xmalloc.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The slot of (module, start) in the function index: its entry or the empty slot. */
static uint32_t *session_func_slot(struct session *s, uint32_t module, uint64_t start)
{
    size_t mask = s->cache.func_index_alloc - 1;
    for (size_t i = hit_hash(module, start) & mask;; i = (i + 1) & mask) {
        uint32_t e = s->cache.func_index[i];
        if (e == 0 || (s->funcs[e - 1].module == module && s->funcs[e - 1].start == start))
            return &s->cache.func_index[i];
    }
}

/* A hash, not a scan: a program with 30000 functions hit spent 83 % of
 * --report here. */
int64_t session_func(struct session *s, uint32_t module, uint64_t start, uint64_t end,
                     const char *name)
{
    if (2 * (s->nfuncs + 1) > s->cache.func_index_alloc) {
        free(s->cache.func_index);
        s->cache.func_index_alloc = s->cache.func_index_alloc ? 2 * s->cache.func_index_alloc : 256;
        s->cache.func_index = xcalloc(s->cache.func_index_alloc, sizeof *s->cache.func_index);
        for (size_t i = 0; i < s->nfuncs; i++)
            *session_func_slot(s, s->funcs[i].module, s->funcs[i].start) = (uint32_t)i + 1;
    }
    uint32_t *slot = session_func_slot(s, module, start);
    if (*slot != 0)
        return (int64_t)*slot - 1;
    s->funcs = xgrowarray(s->funcs, &s->funcs_alloc, s->nfuncs + 1, sizeof *s->funcs);
    char *pretty = s->raw_names ? NULL : symbols_demangle(name);
    s->funcs[s->nfuncs] = (struct func){.module = module,
                                        .start = start,
                                        .end = end,
                                        .name = pretty ? pretty : xstrdup(name),
                                        .raw = pretty ? xstrdup(name) : NULL};
    *slot = (uint32_t)++s->nfuncs;
    return (int64_t)s->nfuncs - 1;
}

void session_load_module(struct module *m)
{
    if (m->loaded || m->kind == MODULE_ANON || m->kind == MODULE_KERNEL)
        return;
    char *cause = NULL;
    if (m->kind == MODULE_VDSO)
        module_load_vdso(m, &cause);
    else
        module_load(m, &cause);
    free(cause);
}

/* The kernel's functions, the first time a kernel PC needs a name: its own
 * in [kernel], a loaded module's in a module of its own, [ext4].  Where the
 * addresses are hidden the whole kernel is one function, [kernel]. */
/* The kernel K without names, WHY: one function, [kernel]. */
static void session_kernel_unnamed(struct module *k, const char *why)
{
    k->load_error = xstrdup(why);
    module_add_symbol(k, 0, UINT64_MAX, "[kernel]", true);
}

static void session_load_kernel(struct session *s, uint32_t kid)
{
    struct module *k = s->modules[kid];
    k->loaded = true;
    if (s->live.kallsyms == NULL) { /* the kernel's own: a copy kept for this boot */
        bool hidden;
        char *cause = NULL, *dir = kallsyms_dir();
        s->live.ksyms = kallsyms_open(dir, &hidden, &cause);
        free(dir);
        free(cause); /* no copy to keep: read the whole table, as below */
        if (s->live.ksyms != NULL)
            return;
        if (hidden) {
            session_kernel_unnamed(k, "kernel symbols hidden (kernel.kptr_restrict)");
            return;
        }
    }
    FILE *f = fopen(s->live.kallsyms ? s->live.kallsyms : "/proc/kallsyms", "re");
    if (f == NULL) {
        session_kernel_unnamed(k, "kernel symbols unreadable (/proc/kallsyms)");
        return;
    }
    struct symbols_text *t;
    bool hidden = false;
    size_t n = symbols_read_kallsyms(f, &t, &hidden);
    fclose(f);
    if (n == 0) {
        session_kernel_unnamed(k, hidden ? "kernel symbols hidden (kernel.kptr_restrict)"
                                         : "no kernel symbols in /proc/kallsyms");
        return;
    }
    /* Each module's symbols in one merge, their names handed over, not
     * copied: one insertion and one copy each took 100,000 allocations and
     * a fifth of a short run's time.  Symbols of one owner come together. */
    uint32_t *mid = xcalloc(n, sizeof *mid);
    const char *last_owner = NULL;
    uint32_t last_id = kid;
    for (size_t i = 0; i < n; i++) {
        if (t[i].owner == NULL) {
            mid[i] = kid;
            continue;
        }
        if (last_owner == NULL || strcmp(last_owner, t[i].owner) != 0) {
            char *path = xasprintf("[%s]", t[i].owner);
            last_id = session_module(s, path, MODULE_KERNEL); /* may move s->modules */
            s->modules[last_id]->loaded = true;
            free(path);
            last_owner = t[i].owner;
        }
        mid[i] = last_id;
    }
    /* Grouped by module, each group in address order (counting sort). */
    size_t nm = s->nmodules;
    size_t *at = xcalloc(nm + 1, sizeof *at);
    for (size_t i = 0; i < n; i++)
        at[mid[i] + 1]++;
    for (size_t m = 0; m < nm; m++)
        at[m + 1] += at[m];
    size_t *start = xcalloc(nm + 1, sizeof *start);
    memcpy(start, at, (nm + 1) * sizeof *at);
    struct symbol *batch = xcalloc(n, sizeof *batch);
    for (size_t i = 0; i < n; i++) {
        batch[at[mid[i]]++] =
            (struct symbol){.start = t[i].start, .end = t[i].end, .name = t[i].name};
        t[i].name = NULL;
    }
    for (size_t m = 0; m < nm; m++) {
        if (start[m + 1] > start[m])
            module_add_symbols(s->modules[m], batch + start[m], start[m + 1] - start[m]);
    }
    free(start);
    free(at);
    free(batch);
    free(mid);
    symbols_text_free(t, n);
}

/* The kernel function holding PC, and in *MODULE the module that names it. */
static const struct symbol *session_kernel_symbol(struct session *s, uint32_t kernel, uint64_t pc,
                                                  uint32_t *module)
{
    struct module *k = s->modules[kernel];
    if (!k->loaded)
        session_load_kernel(s, kernel);
    else if (k->nsyms == 0) /* a file saved before kernel names: the kernel is one */
        module_add_symbol(k, 0, UINT64_MAX, "[kernel]", true);
    /* A loaded module's functions first: a file's [kernel] may be only the
     * catch-all above, which must not swallow them. */
    for (size_t i = 0; i < s->nmodules; i++) {
        struct module *m = s->modules[i];
        if (m->kind != MODULE_KERNEL || i == kernel)
            continue;
        long j = module_find_symbol(m, pc);
        if (j >= 0) {
            *module = (uint32_t)i;
            return &m->syms[j];
        }
    }
    long j = module_find_symbol(k, pc);
    if (j >= 0) {
        *module = kernel;
        return &k->syms[j];
    }
    struct symbols_text t;
    if (s->live.ksyms == NULL || !kallsyms_find(s->live.ksyms, pc, &t))
        return NULL;
    /* Found in the copy: the function joins its module's table, as a
     * whole read would have put it there. */
    uint32_t id = kernel;
    if (t.owner != NULL) {
        char *path = xasprintf("[%s]", t.owner);
        id = session_module(s, path, MODULE_KERNEL); /* may move s->modules */
        s->modules[id]->loaded = true;
        free(path);
    }
    struct module *m = s->modules[id];
    module_add_symbol(m, t.start, t.end, t.name, false);
    free(t.name);
    free(t.owner);
    j = module_find_symbol(m, pc);
    if (j < 0)
        return NULL;
    *module = id;
    return &m->syms[j];
}

/* The perf map of PID, opened as perf opens it: a regular file of ours, not
 * a link or a FIFO another user planted in /tmp; -1 when there is none. */
static int session_open_jit_map(uint32_t pid, struct stat *st)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%u.map", pid);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid())) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Read again the perf maps (/tmp/perf-PID.map) of the processes that ran
 * anonymous code, when one changed: at most once a second while the
 * program runs (a JIT appends as it compiles), and once more when it has
 * ended.  The [JIT] module is made anew from them, later lines winning, so
 * that memory a JIT reused takes its new name. */
void session_load_jit(struct session *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    bool ended = s->exit_kind != EXIT_NONE;
    if (s->live.njit == 0 || (s->live.jit_ended && ended) ||
        (!ended && s->live.jit_read_ns != 0 && now - s->live.jit_read_ns < 1000000000u))
        return;
    s->live.jit_read_ns = now;
    s->live.jit_ended = ended;
    bool changed = false;
    for (size_t i = 0; i < s->live.njit; i++) {
        struct stat st;
        int fd = session_open_jit_map(s->live.jit[i].pid, &st);
        if (fd < 0)
            continue;
        close(fd);
        changed |= st.st_size != s->live.jit[i].size || st.st_mtime != s->live.jit[i].mtime;
        s->live.jit[i].size = st.st_size;
        s->live.jit[i].mtime = st.st_mtime;
    }
    if (!changed)
        return;
    if (s->jit_module == UINT32_MAX)
        s->jit_module = session_module(s, "[JIT]", MODULE_ANON);
    struct module *m = s->modules[s->jit_module];
    m->loaded = true;
    module_clear_symbols(m);
    for (size_t i = 0; i < s->live.njit; i++) {
        struct stat st;
        int fd = session_open_jit_map(s->live.jit[i].pid, &st);
        FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
        if (f == NULL) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        struct symbols_text *t;
        size_t n = symbols_read_perf_map(f, &t);
        fclose(f);
        for (size_t k = 0; k < n; k++) {
            if (module_find_symbol(m, t[k].start) < 0)
                module_add_symbol(m, t[k].start, t[k].end, t[k].name, false);
        }
        symbols_text_free(t, n);
    }
}

/* The name of anonymous code at PC, from a JIT's map; NULL when none. */
static const struct symbol *session_jit_symbol(struct session *s, uint64_t pc)
{
    if (s->jit_module == UINT32_MAX)
        return NULL;
    struct module *m = s->modules[s->jit_module];
    long j = module_find_symbol(m, pc);
    return j >= 0 ? &m->syms[j] : NULL;
}

int64_t session_resolve(struct session *s, uint32_t module, uint64_t offset)
{
    struct module *m = s->modules[module];
    uint32_t named = module;
    const struct symbol *sym;
    if (module == s->unknown_module || module == s->truncated_module ||
        module == s->blocked_module) {
        return session_func(s, module, 0, UINT64_MAX,
                            module == s->unknown_module     ? "[unknown]"
                            : module == s->truncated_module ? "[truncated]"
                                                            : "[blocked]");
    } else if (m->kind == MODULE_ANON) {
        /* Unnamed anonymous code stays unresolved, and is tried again next
         * time: the JIT may name it later. */
        if ((sym = session_jit_symbol(s, offset)) == NULL)
            return -1;
        named = s->jit_module;
    } else if (m->kind == MODULE_KERNEL) {
        sym = session_kernel_symbol(s, module, offset, &named);
    } else {
        session_load_module(m);
        if (m->debug_pending) /* named once its debug file is here */
            return -1;
        sym = module_resolve(m, offset);
    }
    if (sym != NULL)
        return session_func(s, named, sym->start, sym->end, sym->name);
    char *name = xasprintf("%s+0x%llx", m->name, (unsigned long long)offset);
    module_add_symbol(m, offset, offset + 1, name, true);
    int64_t f = session_func(s, module, offset, offset + 1, name);
    free(name);
    return f;
}

/* A PC that no symbol covers yet: a function must be made up for it. */
struct resolve_pending {
    uint32_t module;
    uint64_t offset;
    size_t index; /* into the caller's keys */
};

static int resolve_pending_cmp(const void *a, const void *b)
{
    const struct resolve_pending *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The function of (MODULE, OFFSET) when a symbol already names it, as
 * session_resolve finds it; *PENDING when one must be made up. */
static int64_t session_resolve_known(struct session *s, uint32_t module, uint64_t offset,
                                     bool *pending)
{
    struct module *m = s->modules[module];
    uint32_t named = module;
    const struct symbol *sym;
    *pending = false;
    if (module == s->unknown_module || module == s->truncated_module ||
        module == s->blocked_module || m->kind == MODULE_ANON)
        return session_resolve(s, module, offset); /* never makes a symbol up */
    if (m->kind == MODULE_KERNEL) {
        sym = session_kernel_symbol(s, module, offset, &named);
    } else {
        session_load_module(m);
        if (m->debug_pending)
            return -1; /* unresolved, tried again (session_debuginfo_poll) */
        long k = module_find_symbol(m, offset);
        sym = k >= 0 ? &m->syms[k] : NULL;
    }
    if (sym != NULL)
        return session_func(s, named, sym->start, sym->end, sym->name);
    *pending = true;
    return -1;
}

/* Make up the functions of one module's PCs P[0..N), sorted by offset: the
 * extents session_resolve would give them one at a time, added in one merge. */
static void session_make_up(struct session *s, const struct resolve_pending *p, size_t n,
                            int64_t *out)
{
    struct module *m = s->modules[p[0].module];
    struct symbol *add = xcalloc(n, sizeof *add);
    size_t nadd = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = p[i].offset, start, end;
        if (nadd > 0 && off < add[nadd - 1].end)
            continue; /* the one made for a PC before it covers it too */
        if (m->kind == MODULE_KERNEL || !module_synthetic_range(m, off, &start, &end)) {
            start = off; /* no code around it to measure: the one byte */
            end = off + 1;
        }
        if (nadd > 0 && start < add[nadd - 1].end)
            start = add[nadd - 1].end;
        add[nadd++] = (struct symbol){.start = start,
                                      .end = end,
                                      .name = xasprintf("%s+0x%" PRIx64, m->name, start),
                                      .synthetic = true};
    }
    module_add_symbols(m, add, nadd);
    free(add);
    for (size_t i = 0; i < n; i++) {
        long k = module_find_symbol(m, p[i].offset);
        out[p[i].index] =
            k >= 0 ? session_func(s, p[i].module, m->syms[k].start, m->syms[k].end, m->syms[k].name)
                   : -1;
    }
}

void session_resolve_many(struct session *s, const struct hit_key *keys, size_t n, int64_t *out)
{
    struct resolve_pending *p = NULL;
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        bool pending;
        out[i] = session_resolve_known(s, keys[i].module, keys[i].offset, &pending);
        if (!pending)
            continue;
        if (p == NULL)
            p = xcalloc(n - i, sizeof *p);
        p[np++] = (struct resolve_pending){keys[i].module, keys[i].offset, i};
    }
    if (np > 1)
        qsort(p, np, sizeof *p, resolve_pending_cmp);
    for (size_t a = 0, b; a < np; a = b) {
        for (b = a + 1; b < np && p[b].module == p[a].module; b++)
            ;
        session_make_up(s, p + a, b - a, out);
    }
    free(p);
}
