/*
 * The scopes around a PC in a CU, without dwarf_getscopes: it walks the
 * CU's whole tree for every PC, which a CU of thousands of functions (or a
 * function of thousands of blocks) makes quadratic.  Each CU's functions
 * are indexed by address on the first lookup in the CU, and each function's
 * scopes on the first lookup in the function.  Knows libdw, nothing of
 * sessions: session/lines_dwarf.c makes inline chains of what it finds.
 */
#ifndef PROFIL_SCOPES_H
#define PROFIL_SCOPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A scope of a function that holds code: the function itself (index 0), a
 * block, an inlined instance, a nested function. */
struct scopes_scope {
    Dwarf_Die die;
    uint32_t parent; /* the enclosing scope's index (0's own is 0) */
    int tag;
};

/* One range of a scope's code. */
struct scopes_scope_range {
    Dwarf_Addr lo, hi;
    uint32_t scope;
    uint32_t depth;
};

/* A function's scopes by address, made on the first lookup in it: a walk
 * down its tree for every PC is long in a function of thousands of blocks. */
struct scopes_fn {
    Dwarf_Die die;
    struct scopes_scope *sc;
    size_t nsc;
    struct scopes_scope_range *r; /* sorted by lo, the deeper after */
    size_t nr;
    bool built;
};

/* One range of a function's code, in its CU's index. */
struct scopes_fn_range {
    Dwarf_Addr lo, hi;
    uint32_t fn; /* index into its scopes_cu's fns */
};

/* A CU's functions sorted by address, made on the first lookup in the CU:
 * dwarf_getscopes walks the CU's whole tree for every PC, which a CU of
 * thousands of functions makes quadratic. */
struct scopes_cu {
    const void *key; /* the CU DIE's addr */
    struct scopes_fn_range *r;
    size_t n;
    struct scopes_fn *fns;
    size_t nfns;
};

/* One module's index: its CUs', sorted by key, made as lookups need them.
 * Zeroed is empty. */
struct scopes {
    struct scopes_cu *cus;
    size_t ncus;
};

/* The index of CU in D, made on first use. */
const struct scopes_cu *scopes_cu_of(struct scopes *d, Dwarf_Die *cu);

/* The innermost function of C whose code holds ADDR, or NULL. */
struct scopes_fn *scopes_cu_func(const struct scopes_cu *c, Dwarf_Addr addr);

/* The innermost scope of F holding ADDR (0: the function itself), an index
 * into F's sc, whose parents lead out to the function. */
uint32_t scopes_fn_scope(struct scopes_fn *f, Dwarf_Addr addr);

/* Free what D holds. */
void scopes_fini(struct scopes *d);

#endif
