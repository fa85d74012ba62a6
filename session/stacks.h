/*
 * Call stacks: Self and Total per function, the callers and callees of one,
 * and the call tree top-down or bottom-up.  Everything here reads the stack
 * table of session.h; the counts are those since the latest clear.
 */
#ifndef PROFIL_STACKS_H
#define PROFIL_STACKS_H

#include "session/session.h"

/* Bring every function's total up to date (and samples, as session_rank). */
void session_totals(struct session *s);

/* The function of stack node ID's frame, or -1 when it has none yet. */
int64_t session_stack_func(struct session *s, uint32_t id);

/* Samples whose stack ends in [unknown] (the unwinder gave out) or in
 * [truncated] (cut at the depth limit or the end of the stack copy), and
 * all samples that carry a stack. */
struct stack_stats {
    uint64_t samples;
    uint64_t unknown;
    uint64_t truncated;
    uint32_t max_depth;
};
struct stack_stats session_stack_stats(const struct session *s);

/* A neighbour of a function: a caller or a callee, and the samples in which
 * it is one (each sample once).  func -1 stands for "no caller" (the
 * function is outermost) or "no callee" (the function itself is running:
 * its self time). */
struct func_link {
    int64_t func;
    uint64_t samples;
};

/* The callers, or callees, of function F, most samples first; the caller
 * frees the array.  *N is set to how many. */
struct func_link *session_callers(struct session *s, int64_t f, size_t *n);
struct func_link *session_callees(struct session *s, int64_t f, size_t *n);

/* The call tree: node 0 is the root (func -1, every sample); each other node
 * is a function reached by one path of calls.  Top-down, a node's children
 * are what it called; inverted (bottom-up), a node's children are its
 * callers, and the root's children the functions where samples ended. */
struct calltree_node {
    int64_t func;
    uint32_t parent;
    uint32_t child; /* first child, 0 for none */
    uint32_t next;  /* next sibling, 0 for none */
    uint32_t depth; /* 0 for the root */
    uint64_t total; /* samples on this path and under it */
    uint64_t self;  /* samples that ended exactly here */
};

struct calltree {
    struct calltree_node *nodes;
    size_t n;
    size_t alloc;
    bool inverted;
};

/* Build the tree (children sorted by total, most first); NULL when the
 * session has no stacks. */
struct calltree *session_calltree(struct session *s, bool inverted);
void calltree_free(struct calltree *t);

/* Frames of stack ID, outermost first, into IDS (up to MAX); returns the
 * depth. */
size_t session_stack_frames(const struct session *s, uint32_t id, uint32_t *ids, size_t max);

#endif
