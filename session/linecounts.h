/* Samples by source line (linecounts.c). */
#ifndef PROFIL_SESSION_LINECOUNTS_H
#define PROFIL_SESSION_LINECOUNTS_H

#include "session/session.h"

#include <stddef.h>
#include <stdint.h>

/* A line's samples: Self (PCs on it) and Total (samples with it anywhere on
 * their stack, once each). */
struct line_count {
    uint32_t file;
    uint32_t line;
    uint64_t self;
    uint64_t total;
    int64_t func; /* the function the line is in: the innermost one */
};

/* The lines of function F with samples (F < 0: of every function), sorted
 * by file then line; the caller frees. */
struct line_count *line_counts(struct session *s, int64_t f, size_t *n);

#endif
