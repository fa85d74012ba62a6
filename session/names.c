/*
 * A session's functions named: the function table brought up to date with
 * the hit table (resolve.c names a PC's function, lines.c the functions
 * inlined there), and what a debug file that came late changes.
 */
#include "config.h"

#include "elf/debuginfo.h"
#include "session/lines.h"
#include "session/model.h"
#include "session/names.h"
#include "session/resolve.h"
#include "util/xmalloc.h"

#include <stdlib.h>

/* What a debug file that came while the program ran changes: the symbols
 * of the modules that waited for it, the lines of those that did, and so
 * every function not yet named. */
static void session_debuginfo_arrived(struct session *s)
{
    for (size_t i = 0; i < s->nmodules; i++)
        module_reload_symbols(s->modules[i]);
    lines_forget_pending(s);
    /* Every frame named again: naming climbs a stack only while its frames
     * are unnamed, and stops under a named one (a library's, say) above
     * which the program's may wait. */
    for (size_t id = 1; id < s->nstacks; id++)
        s->stacks[id].func = -1;
    s->cache.funcs_dirty = true;
    s->cache.totals_dirty = true;
}

bool session_debuginfo_poll(struct session *s)
{
    if (debuginfo_poll() == 0)
        return false;
    session_debuginfo_arrived(s);
    return true;
}

bool session_debuginfo_wait(struct session *s, bool (*give_up)(void *arg), void *arg)
{
    if (debuginfo_pending() == 0)
        return true;
    bool all = debuginfo_wait(give_up, arg);
    session_debuginfo_arrived(s);
    return all;
}

void session_rank(struct session *s)
{
    if (!s->cache.funcs_dirty || s->nhits == 0)
        return;
    session_load_jit(s);
    /* Every new hit at once: a file of 200,000 PCs without symbols took
     * minutes when each made its function up alone. */
    struct hit_key *keys = NULL;
    struct hit **of = NULL;
    size_t n = 0;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        struct hit *h = &s->hits[i];
        if (h->module == UINT32_MAX || h->func != -1)
            continue;
        if (keys == NULL) {
            keys = xcalloc(s->nhits, sizeof *keys);
            of = xcalloc(s->nhits, sizeof *of);
        }
        keys[n] = (struct hit_key){h->module, h->offset};
        of[n++] = h;
    }
    int64_t *funcs = xcalloc(n ? n : 1, sizeof *funcs);
    session_resolve_many(s, keys, n, funcs);
    for (size_t i = 0; i < n; i++) {
        struct hit *h = of[i];
        h->func = funcs[i];
        if (h->func >= 0 && !s->no_inline) { /* its Self is the innermost inlined function's */
            const struct srcloc *loc = lines_lookup(s, h->module, h->offset);
            if (loc != NULL && loc->ninl > 0)
                h->func = lines_level_func(s, loc, loc->ninl, h->func);
        }
        if (h->func >= 0)
            s->funcs[h->func].samples = session_sat_add(s->funcs[h->func].samples, h->count);
    }
    free(funcs);
    free(keys);
    free(of);
    s->cache.funcs_dirty = false;
}
