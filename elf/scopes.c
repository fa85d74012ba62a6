#include "config.h"

#include "elf/scopes.h"
#include "util/xmalloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Walk the tree under ROOT in order, calling VISIT(DIE, DEPTH, ARG) on
 * every DIE below it (depth 0: ROOT's children); VISIT says whether to go
 * into the DIE's children.  A tree is laid out in the section's order: a DIE
 * that does not come later than the one before is a loop of a damaged
 * DW_AT_sibling, and ends the walk. */
static void scopes_walk(Dwarf_Die *root, bool (*visit)(Dwarf_Die *, size_t, void *), void *arg)
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
static bool scopes_cu_visit(Dwarf_Die *die, size_t depth, void *arg)
{
    (void)depth;
    struct scopes_cu *c = arg;
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
            c->fns[c->nfns++] = (struct scopes_fn){*die, NULL, 0, NULL, 0, false};
            has = true;
        }
        if ((c->n & (c->n - 1)) == 0) /* at powers of two: double */
            c->r = xreallocarray(c->r, c->n ? 2 * c->n : 1, sizeof *c->r);
        c->r[c->n++] = (struct scopes_fn_range){lo, hi, (uint32_t)c->nfns - 1};
    }
    return true;
}

static int scopes_fn_range_cmp(const void *a, const void *b)
{
    const struct scopes_fn_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* The index of CU in D, made on first use. */
const struct scopes_cu *scopes_cu_of(struct scopes *d, Dwarf_Die *cu)
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
    struct scopes_cu *c = &d->cus[lo];
    *c = (struct scopes_cu){cu->addr, NULL, 0, NULL, 0};
    scopes_walk(cu, scopes_cu_visit, c);
    if (c->n > 1)
        qsort(c->r, c->n, sizeof *c->r, scopes_fn_range_cmp);
    return c;
}

/* How far back from the last range starting at or before a PC a range
 * holding it is looked for: functions nest (a nested function's range
 * inside its parent's) but do not pile up. */
#define SCOPES_RANGE_BACK 16

/* The innermost function of C whose code holds ADDR, or NULL. */
struct scopes_fn *scopes_cu_func(const struct scopes_cu *c, Dwarf_Addr addr)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) { /* the first range starting after ADDR */
        size_t mid = lo + (hi - lo) / 2;
        if (c->r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct scopes_fn_range *best = NULL;
    for (size_t i = lo, k = 0; i-- > 0 && k < SCOPES_RANGE_BACK; k++) {
        const struct scopes_fn_range *r = &c->r[i];
        if (addr < r->hi && (best == NULL || r->hi - r->lo < best->hi - best->lo))
            best = r;
    }
    return best != NULL ? &c->fns[best->fn] : NULL;
}

/* Whether a DIE of tag TAG is a scope that may hold code of its own: what
 * dwarf_getscopes descends into within a function. */
static bool scopes_is_code_scope(int tag)
{
    return tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_subprogram || tag == DW_TAG_try_block || tag == DW_TAG_catch_block ||
           tag == DW_TAG_with_stmt || tag == DW_TAG_entry_point;
}

/* The most scopes one function's index keeps: a bound on damaged DWARF. */
#define SCOPES_MAX_SCOPES ((size_t)1 << 20)

/* While a function's scopes are indexed: the scope at each depth. */
struct scopes_fn_walk {
    struct scopes_fn *f;
    uint32_t *at;
    size_t nat;
    size_t ralloc;
};

/* A scope's ranges, by their depth below the function. */
static void scopes_fn_ranges(struct scopes_fn_walk *w, Dwarf_Die *die, uint32_t scope,
                             uint32_t depth)
{
    struct scopes_fn *f = w->f;
    Dwarf_Addr base, lo, hi;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
        if (hi <= lo)
            continue;
        if (f->nr == w->ralloc) {
            w->ralloc = w->ralloc ? 2 * w->ralloc : 16;
            f->r = xreallocarray(f->r, w->ralloc, sizeof *f->r);
        }
        f->r[f->nr++] = (struct scopes_scope_range){lo, hi, scope, depth};
    }
}

static bool scopes_fn_visit(Dwarf_Die *die, size_t depth, void *arg)
{
    struct scopes_fn_walk *w = arg;
    struct scopes_fn *f = w->f;
    int tag = dwarf_tag(die);
    if (!scopes_is_code_scope(tag) || f->nsc >= SCOPES_MAX_SCOPES)
        return false;
    /* Only scopes are gone into: the one above is at DEPTH - 1. */
    uint32_t parent = depth > 0 && depth - 1 < w->nat ? w->at[depth - 1] : 0;
    if ((f->nsc & (f->nsc - 1)) == 0)
        f->sc = xreallocarray(f->sc, 2 * f->nsc, sizeof *f->sc);
    uint32_t k = (uint32_t)f->nsc++;
    f->sc[k] = (struct scopes_scope){*die, parent, tag};
    scopes_fn_ranges(w, die, k, (uint32_t)depth + 1);
    if (depth >= w->nat) {
        w->nat = 2 * depth + 16;
        w->at = xreallocarray(w->at, w->nat, sizeof *w->at);
    }
    w->at[depth] = k;
    return true;
}

static int scopes_scope_range_cmp(const void *a, const void *b)
{
    const struct scopes_scope_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Index F's scopes. */
static void scopes_fn_build(struct scopes_fn *f)
{
    f->built = true;
    f->sc = xcalloc(1, sizeof *f->sc);
    f->sc[0] = (struct scopes_scope){f->die, 0, DW_TAG_subprogram};
    f->nsc = 1;
    struct scopes_fn_walk w = {f, NULL, 0, 0};
    scopes_fn_ranges(&w, &f->die, 0, 0);
    scopes_walk(&f->die, scopes_fn_visit, &w);
    free(w.at);
    if (f->nr > 1)
        qsort(f->r, f->nr, sizeof *f->r, scopes_scope_range_cmp);
}

/* The innermost scope of F holding ADDR (0: the function itself).  Scopes
 * nest: the range starting last at or before ADDR is the innermost holding
 * it, or ends before ADDR, and then one of its scope's enclosing ones is. */
uint32_t scopes_fn_scope(struct scopes_fn *f, Dwarf_Addr addr)
{
    if (!f->built)
        scopes_fn_build(f);
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
    const struct scopes_scope_range *r = &f->r[lo - 1];
    if (addr < r->hi)
        return r->scope;
    for (uint32_t k = f->sc[r->scope].parent; k != 0; k = f->sc[k].parent) {
        if (dwarf_haspc(&f->sc[k].die, addr) > 0)
            return k;
    }
    return 0;
}

void scopes_fini(struct scopes *d)
{
    for (size_t k = 0; k < d->ncus; k++) {
        for (size_t j = 0; j < d->cus[k].nfns; j++) {
            free(d->cus[k].fns[j].sc);
            free(d->cus[k].fns[j].r);
        }
        free(d->cus[k].fns);
        free(d->cus[k].r);
    }
    free(d->cus);
}
