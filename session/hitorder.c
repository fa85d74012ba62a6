/* The program's hits in offset order, for labelling buckets. */
#include "config.h"

#include "session/hitorder.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

void hitorder_init(struct hitorder *o)
{
    memset(o, 0, sizeof *o);
}

void hitorder_fini(struct hitorder *o)
{
    free(o->e);
    free(o->slot_of);
    memset(o, 0, sizeof *o);
}

static int hitorder_cmp(const void *a, const void *b)
{
    const struct hitorder_entry *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Whether the slots kept still hold the ids they were taken for: false after
 * the table grew, or for another session's table. */
static bool hitorder_current(const struct hitorder *o, const struct session *s)
{
    return o->seen_nhits == s->nhits && o->seen_alloc == s->hits_alloc && o->seen_nkeys == s->nkeys;
}

void hitorder_update(struct hitorder *o, const struct session *s)
{
    if (hitorder_current(o, s) && o->module == s->view.prog_module &&
        (o->slot_of != NULL || s->nkeys == 0))
        return;
    if (s->nkeys < o->seen_nkeys || o->module != s->view.prog_module) {
        hitorder_fini(o); /* not the session, or the program area, it was built for */
        o->module = s->view.prog_module;
    }
    /* Every slot, in one pass: the table may have grown and moved them all. */
    o->slot_of = xreallocarray(o->slot_of, s->nkeys ? s->nkeys : 1, sizeof *o->slot_of);
    for (size_t i = 0; i < s->nkeys; i++)
        o->slot_of[i] = SIZE_MAX;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        uint32_t id = s->hits[i].id;
        if (s->hits[i].module != UINT32_MAX && id < s->nkeys)
            o->slot_of[id] = i;
    }
    /* The new ids, sorted on their own, then merged from the end down. */
    size_t add = 0;
    for (size_t id = o->seen_nkeys; id < s->nkeys; id++)
        add += s->hit_keys[id].module == s->view.prog_module;
    if (add > 0) {
        o->e = xreallocarray(o->e, o->n + add, sizeof *o->e);
        struct hitorder_entry *fresh = xcalloc(add, sizeof *fresh);
        size_t k = 0;
        for (size_t id = o->seen_nkeys; id < s->nkeys; id++) {
            if (s->hit_keys[id].module == s->view.prog_module)
                fresh[k++] = (struct hitorder_entry){s->hit_keys[id].offset, (uint32_t)id};
        }
        if (add > 1)
            qsort(fresh, add, sizeof *fresh, hitorder_cmp);
        size_t a = o->n, b = add, w = o->n + add;
        while (b > 0) {
            if (a > 0 && o->e[a - 1].offset > fresh[b - 1].offset)
                o->e[--w] = o->e[--a];
            else
                o->e[--w] = fresh[--b];
        }
        o->n += add;
        free(fresh);
    }
    o->seen_nkeys = s->nkeys;
    o->seen_nhits = s->nhits;
    o->seen_alloc = s->hits_alloc;
}

/* The first entry at or after offset OFF. */
static size_t hitorder_lower(const struct hitorder *o, uint64_t off)
{
    size_t a = 0, b = o->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (o->e[mid].offset < off)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

const char *hitorder_label(struct hitorder *o, const struct session *s, size_t i, size_t *others)
{
    *others = 0;
    uint64_t off_lo, off_hi;
    if (i >= s->view.nbuckets || !session_bucket_span(s, i, &off_lo, &off_hi))
        return NULL;
    const struct module *m = s->modules[s->view.prog_module];
    long cover = module_find_symbol(m, off_lo);
    /* An end before the start (segments mapped out of order): an empty bucket. */
    if (s->view.buckets[i] > 0 && !s->classic && off_hi >= off_lo) {
        hitorder_update(o, s);
        const char *best = NULL;
        uint64_t best_count = 0, sum = 0;
        size_t groups = 0;
        long k = -1;
        /* The last symbol starting at or before the hit, walked along with the
         * hits: module_find_symbol's answer without a search per hit. */
        size_t last = 0;
        bool any = m->nsyms > 0 && m->syms[0].start <= off_lo;
        if (any)
            last = module_symbol_after(m, off_lo) - 1; /* M has one at or before */
        /* By offset, the hits of one function come together: a group each. */
        for (size_t j = hitorder_lower(o, off_lo); j < o->n && o->e[j].offset <= off_hi; j++) {
            size_t slot = o->slot_of[o->e[j].id];
            if (slot == SIZE_MAX || s->hits[slot].count == 0)
                continue;
            uint64_t off = o->e[j].offset;
            if (!any && m->nsyms > 0 && m->syms[0].start <= off)
                any = true;
            while (any && last + 1 < m->nsyms && m->syms[last + 1].start <= off)
                last++;
            long kj = any && off < m->syms[last].end ? (long)last : -1;
            if (groups > 0 && kj == k) {
                sum += s->hits[slot].count;
                continue;
            }
            if (groups > 0 && sum > best_count) {
                best_count = sum;
                best = k >= 0 ? module_symbol_name(m, (size_t)k, s->raw_names) : NULL;
            }
            groups++;
            k = kj;
            sum = s->hits[slot].count;
        }
        if (groups > 0 && sum > best_count)
            best = k >= 0 ? module_symbol_name(m, (size_t)k, s->raw_names) : NULL;
        *others = groups > 0 ? groups - 1 : 0;
        if (best != NULL)
            return best;
    }
    return session_bucket_unsampled(s, i, cover);
}
