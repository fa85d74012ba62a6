/*
 * The callers and callees of one function, and the call tree top-down or
 * bottom-up (analysis/calltree.c), from the stack table of session.h; the
 * counts are those since the latest clear.
 */
#ifndef PROFIL_CALLTREE_H
#define PROFIL_CALLTREE_H

#include "session/session.h"

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
    uint32_t *index; /* while it is built: (parent, func) to node, 0 for none */
    size_t index_alloc;
};

/* Build the tree (children sorted by total, most first); NULL when the
 * session has no stacks. */
struct calltree *session_calltree(struct session *s, bool inverted);
void calltree_free(struct calltree *t);

/* The depth to cut every stack at so that walking all the stacks with
 * samples (with THREADS, each thread's too) costs at most
 * LIMIT_WALK_FRAMES + LIMIT_WALK_PER_NODE a stack node (session/limits.h);
 * 0 when they fit whole, as a real run's do. */
uint32_t session_depth_cap(const struct session *s, bool threads);

#endif
