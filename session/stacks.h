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

/* Frames of stack ID, outermost first, into IDS (up to MAX); returns the
 * depth. */
size_t session_stack_frames(const struct session *s, uint32_t id, uint32_t *ids, size_t max);

#endif
