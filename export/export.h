/*
 * Exports of a session for other tools: pprof's profile.proto (gzipped),
 * speedscope's JSON, callgrind's format and a flame graph in HTML
 * (docs/exports.md).  All write the same samples, the counts since the
 * latest clear (a file's: the whole run): each distinct call stack once,
 * then, for samples that carry no stack, one frame of their function, and
 * one [unaccounted] frame for those in no function.  A session without
 * stacks exports flat that way.
 */
#ifndef PROFIL_EXPORT_H
#define PROFIL_EXPORT_H

#include "session/session.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One frame of an exported sample.  FUNC indexes session.funcs (-1: no
 * function, named after its module); MODULE is UINT32_MAX only for the
 * [unaccounted] frame, EXPORT_TRUNCATED for a cut stack's [truncated]. */
struct export_frame {
    uint32_t module;
    uint64_t offset; /* file offset; the address for kernel and anonymous code */
    int64_t func;
    uint32_t level; /* 0 a frame; N the Nth function inlined at its PC, which the
                     * frames before it (level N - 1 down to 0) share */
};

/* The module of the [truncated] frame under a stack the export cut (see
 * session_depth_cap) when the session has no [truncated] module of its own. */
#define EXPORT_TRUNCATED (UINT32_MAX - 1)

/* Called once per exported sample with its frames, outermost first, and its
 * count; FRAMES is borrowed for the call. */
typedef void (*export_sample_cb)(const struct export_frame *frames, size_t n, uint64_t count,
                                 void *arg);

/* Walk S's samples as the exports write them; returns their sum, which is
 * s->c.total unless the stacks and the counters disagree.  Stacks deeper
 * than session_depth_cap (stacks.h) come cut to their innermost frames
 * under one [truncated] frame. */
uint64_t export_walk(struct session *s, export_sample_cb cb, void *arg);

/* Called once per thread and stack with that thread's samples of it. */
typedef void (*export_thread_cb)(uint32_t tid, const struct export_frame *frames, size_t n,
                                 uint64_t count, void *arg);

/* Walk each thread's samples that carry a stack (speedscope's per-thread
 * profiles), cut as export_walk cuts them, in no particular order. */
void export_walk_threads(struct session *s, export_thread_cb cb, void *arg);

/* How many distinct function keys export_key gives: one per function, one
 * per module (its code without a function), [unaccounted] and [truncated]. */
size_t export_nkeys(const struct session *s);

/* A dense index for the function FR stands for, below export_nkeys. */
size_t export_key(const struct session *s, const struct export_frame *fr);

/* The name FR is shown by, and the file it comes from (NULL: none); both
 * borrowed from S. */
const char *export_frame_name(const struct session *s, const struct export_frame *fr);
const char *export_frame_file(const struct session *s, const struct export_frame *fr);

/* The source file FR's function is declared in, and its line in *LINE; NULL
 * when not known.  Borrowed from S. */
const char *export_frame_source(struct session *s, const struct export_frame *fr, uint32_t *line);

/* S as a gzipped perftools.profiles.Profile into *DATA (the caller frees),
 * *LEN bytes.  0, or -1 with *CAUSE (owned, one line). */
int export_pprof(struct session *s, uint8_t **data, size_t *len, char **cause);

/* S as speedscope's JSON file format: one sampled profile of the whole
 * program, then one per thread (its samples that carry a stack); the caller
 * owns the text. */
char *export_speedscope(struct session *s);

/* S in callgrind's format to OUT, for callgrind_annotate and KCachegrind:
 * self samples by source line, and calls whose counts are the samples they
 * appear in and whose costs count each function once a sample
 * (docs/exports.md). */
void export_callgrind(struct session *s, FILE *out);

/* S as one self-contained HTML page: a flame graph drawn by the script of
 * export/flame.html from the samples as JSON (docs/exports.md).  TITLE
 * names the file it came from.  When DIFF_BASE is not NULL, the page
 * compares: S's frames coloured by the change of their function's share
 * from DIFF_BASE's, where --diff's test finds it significant, and
 * DIFF_BASE's own profile to swap to; BASE_TITLE names its file.  The
 * caller owns the text. */
char *export_html(struct session *s, const char *title, struct session *diff_base,
                  const char *base_title);

/* Write S's stacks as collapsed stacks, "main;work;leaf 700" a line, the
 * input of flamegraph.pl and inferno. */
void export_folded(struct session *s, FILE *out);

#endif
