/*
 * Names for addresses (resolve.c): a (module, offset) to a function of the
 * session's table, the kernel's names from /proc/kallsyms, a JIT's from its
 * perf map.  Below lines.c, which names the functions inlined at a PC.
 */
#ifndef PROFIL_SESSION_RESOLVE_H
#define PROFIL_SESSION_RESOLVE_H

#include "session/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The function of the code at (MODULE, OFFSET): an index into s->funcs, or
 * -1 for anonymous code no JIT has named yet (try again later). */
int64_t session_resolve(struct session *s, uint32_t module, uint64_t offset);

/* session_resolve of N (module, offset) KEYS at once, into OUT: the
 * functions that must be made up for PCs no symbol names are made in one
 * sorted pass per module, in O(n log n), not one insertion each. */
void session_resolve_many(struct session *s, const struct hit_key *keys, size_t n, int64_t *out);

/* The function starting at (MODULE, START), named NAME (copied), made on
 * first use with END as its end: an index into s->funcs. */
int64_t session_func(struct session *s, uint32_t module, uint64_t start, uint64_t end,
                     const char *name);

/* Read the perf maps of the processes that ran anonymous code, when one
 * changed (at most once a second while the program runs, once more at its
 * end): the [JIT] module is made anew from them. */
void session_load_jit(struct session *s);

/* Read a module's image the first time one of its PCs needs a name or a line. */
void session_load_module(struct module *m);

#endif
