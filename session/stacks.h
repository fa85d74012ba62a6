/*
 * Call stacks: Self and Total per function, what the stacks hold, and the
 * frames of one (the callers, callees and call tree are calltree.h's).
 * Everything here reads the stack table of session.h; the counts are those
 * since the latest clear.
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

/* The stack table as a tree, to walk it from the root once rather than
 * every stack to the root (a broom of 100,000 stacks 4,096 deep: 409
 * million steps): UNDER is each node's samples and those of the nodes under
 * it, CHILD and NEXT its first child and its next sibling (0: none). */
struct stack_tree {
    uint64_t *under;
    uint32_t *child, *next;
};
void stack_tree_make(const struct session *s, struct stack_tree *t);
void stack_tree_free(struct stack_tree *t);

/* Depth first from the root, over the nodes with samples under them: ENTER
 * on the way down, LEAVE on the way back, each once per node.  Whatever is
 * counted once per sample (a function's Total, a line's, a caller) is
 * counted at the outermost node of a path that has it, UNDER[node] times. */
void stack_tree_walk(const struct session *s, const struct stack_tree *t,
                     void (*enter)(void *arg, uint32_t id), void (*leave)(void *arg, uint32_t id),
                     void *arg);

/* Frames of stack ID, outermost first, into IDS (up to MAX); returns the
 * depth. */
size_t session_stack_frames(const struct session *s, uint32_t id, uint32_t *ids, size_t max);

#endif
