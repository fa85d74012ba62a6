/*
 * Call stacks: Self and Total per function, what the stacks hold, and the
 * frames of one (the callers, callees and call tree are calltree.h's).
 * Everything here reads the stack table of session.h; the counts are those
 * since the latest clear.
 */
#ifndef PROFIL_STACKS_H
#define PROFIL_STACKS_H

#include "session/model.h"

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

/* The deepest a stack grows with the functions inlined at its frames: past
 * it, a frame comes without them.  A deep recursion through long inline
 * chains (a .PRF's 4096 frames of 64 levels each) would otherwise make
 * stacks too deep for the reports that print them as nested JSON. */
#define STACKS_MAX_INLINE_DEPTH 4096

/* Intern the stack (PARENT, frame), the frame followed by the functions
 * inlined at its PC (unless --no-inline): the id of the innermost. */
uint32_t session_stack_intern(struct session *s, uint32_t parent, uint32_t module, uint64_t offset);
/* One node as it is, LEVEL included, without looking up the functions
 * inlined at its PC (a file's stacks already hold them). */
uint32_t session_stack_node(struct session *s, uint32_t parent, uint32_t module, uint64_t offset,
                            uint32_t level);

/* The stacks part of session_ingest: a live sample's stack, unwound and
 * counted (its leaf already counted as a hit), and a replayed one. */
void session_count_stack(struct session *s, struct ingest *in, const struct event *ev);
void session_stacks_clear(struct session *s);
void session_stacks_reset(struct session *s);
void session_stacks_free(struct session *s);

/* Count COUNT samples of thread TID with stack ID (the reader: the whole
 * run's, into count). */
void session_thread_stack(struct session *s, uint32_t tid, uint32_t id, uint64_t count);

/* The bins of session.live.unwind_hist. */
#define UNWIND_HIST_BINS 2001

/* The Pth percentile of the live unwinding times, in microseconds. */
double session_unwind_percentile(const struct session *s, double p);

#endif
