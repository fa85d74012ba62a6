/*
 * The live address spaces: each process's executable mappings, from the
 * driver's mmap, fork, exec and exit events, and the unwinder that reads
 * its modules' call-frame information.
 */
#include "config.h"

#include "elf/unwind.h"
#include "session/addrspace.h"
#include "session/model.h"
#include "session/threads.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* The address space of PID, made on first sight. */
struct addrspace *session_space(struct session *s, uint32_t pid, bool create)
{
    for (size_t i = 0; i < s->live.nspaces; i++) {
        if (s->live.spaces[i]->pid == pid) {
            if (i > 0) { /* keep the busiest process first */
                struct addrspace *as = s->live.spaces[i];
                s->live.spaces[i] = s->live.spaces[0];
                s->live.spaces[0] = as;
            }
            return s->live.spaces[0];
        }
    }
    if (!create)
        return NULL;
    struct addrspace *as = xcalloc(1, sizeof *as);
    as->pid = pid;
    s->live.spaces = xreallocarray(s->live.spaces, s->live.nspaces + 1, sizeof *s->live.spaces);
    s->live.spaces[s->live.nspaces++] = as;
    return as;
}

/* Insert a mapping, cutting away whatever it overlaps (a new mmap replaces). */
static void addrspace_map(struct addrspace *as, const struct mapping *nm)
{
    size_t out = 0;
    struct mapping *keep = xcalloc(as->nmaps + 3, sizeof *keep);
    bool placed = false;
    for (size_t i = 0; i < as->nmaps; i++) {
        struct mapping m = as->maps[i];
        if (!placed && m.start >= nm->start) {
            keep[out++] = *nm;
            placed = true;
        }
        if (m.end <= nm->start || m.start >= nm->end) {
            keep[out++] = m;
            continue;
        }
        if (m.start < nm->start) { /* left part survives */
            struct mapping left = m;
            left.end = nm->start;
            keep[out++] = left;
        }
        if (m.end > nm->end) { /* right part survives */
            struct mapping right = m;
            right.pgoff += nm->end - m.start;
            right.start = nm->end;
            if (!placed) {
                keep[out++] = *nm;
                placed = true;
            }
            keep[out++] = right;
        }
    }
    if (!placed)
        keep[out++] = *nm;
    free(as->maps);
    as->maps = keep;
    as->nmaps = out;
    as->alloc = as->nmaps;
    as->unwind_dirty = true;
}

const struct mapping *addrspace_find(const struct addrspace *as, uint64_t pc)
{
    size_t lo = 0, hi = as->nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (as->maps[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || pc >= as->maps[lo - 1].end)
        return NULL;
    return &as->maps[lo - 1];
}

/* What kind of module a mapping's name stands for. */
static enum module_kind session_mapping_kind(const struct session *s, const char *path)
{
    if (s->nmodules > 0 && strcmp(path, s->modules[0]->path) == 0)
        return MODULE_PROGRAM;
    if (strcmp(path, "[vdso]") == 0)
        return MODULE_VDSO;
    if (path[0] == '/' && path[1] != '/')
        return MODULE_LIBRARY;
    return MODULE_ANON; /* //anon, [heap], [stack], [anon:...], memfd-less JIT */
}

void session_on_mmap(struct session *s, const struct event *ev)
{
    struct addrspace *as = session_space(s, ev->pid, true);
    const char *path = ev->mmap.path ? ev->mmap.path : "";
    enum module_kind kind = session_mapping_kind(s, path);
    uint32_t module;
    if (kind == MODULE_PROGRAM)
        module = 0;
    else if (kind == MODULE_ANON)
        module = s->anon_module = session_module(s, "[anon]", MODULE_ANON);
    else
        module = session_module(s, path, kind);
    if (ev->mmap.len == 0 || ev->mmap.start + ev->mmap.len < ev->mmap.start)
        return;
    struct mapping m = {ev->mmap.start, ev->mmap.start + ev->mmap.len, ev->mmap.pgoff, module};
    addrspace_map(as, &m);
    threads_on_mmap(s, ev->pid, module);
}

/* A forked child starts with its parent's mappings. */
void session_on_fork(struct session *s, const struct event *ev)
{
    struct addrspace *parent = session_space(s, ev->fork.ppid, false);
    struct addrspace *child = session_space(s, ev->pid, true);
    if (parent == NULL || parent == child)
        return;
    free(child->maps);
    child->maps = xcalloc(parent->nmaps ? parent->nmaps : 1, sizeof *child->maps);
    memcpy(child->maps, parent->maps, parent->nmaps * sizeof *child->maps);
    child->nmaps = child->alloc = parent->nmaps;
    /* One unwinder for both while their mappings are alike, made now if the
     * parent has none yet (a program that forks before its first sample). */
    if (parent->unwinder == NULL) {
        parent->unwinder = unwind_new();
        parent->unwind_dirty = true;
    }
    unwind_free(child->unwinder);
    child->unwinder = unwind_ref(parent->unwinder);
    child->unwind_dirty = true;
}

void session_forget_space(struct session *s, uint32_t pid, bool remove)
{
    struct addrspace *as = session_space(s, pid, false);
    if (as == NULL)
        return;
    as->nmaps = 0;
    as->unwind_dirty = true;
    unwind_free(as->unwinder); /* an exec: none of its modules is there any more */
    as->unwinder = NULL;
    if (remove) {
        free(as->maps);
        free(as);
        s->live.spaces[0] = s->live.spaces[--s->live.nspaces]; /* session_space moved it to 0 */
    }
}

void session_free_spaces(struct session *s)
{
    for (size_t i = 0; i < s->live.nspaces; i++) {
        unwind_free(s->live.spaces[i]->unwinder);
        free(s->live.spaces[i]->maps);
        free(s->live.spaces[i]);
    }
    free(s->live.spaces);
    s->live.spaces = NULL;
    s->live.nspaces = 0;
}

bool session_user_place(struct session *s, const struct addrspace *as, uint64_t pc,
                        uint32_t *module, uint64_t *offset)
{
    const struct mapping *m = as ? addrspace_find(as, pc) : NULL;
    if (m == NULL || s->modules[m->module]->kind == MODULE_ANON) {
        if (s->anon_module == UINT32_MAX)
            s->anon_module = session_module(s, "[anon]", MODULE_ANON);
        *module = s->anon_module;
        *offset = pc;
        return true;
    }
    *module = m->module;
    *offset = pc - m->start + m->pgoff;
    return false;
}
