/*
 * The .PRF chunk decoders, which prf_read_buffer (prf.c) calls with a
 * chunk's payload, checked and inflated: each reads C into S, and returns
 * 0, or -1 with *CAUSE (owned) what is wrong.  None trusts a count, length
 * or id from the file.
 */
#ifndef PROFIL_PRF_PRF_PARSE_H
#define PROFIL_PRF_PRF_PARSE_H

#include "prf/cursor.h"
#include "session/session.h"

#include <stdint.h>

/* HEAD: the interval, the bucket size, the area, the run's counters, how it ended. */
int prf_parse_head(struct session *s, struct cursor *c, char **cause);

/* BUCK: a count per bucket, as many as the header says. */
int prf_parse_buckets(struct session *s, struct cursor *c, char **cause);

/* MODS: the modules, their segments and their symbols. */
int prf_parse_modules(struct session *s, struct cursor *c, char **cause);

/* HITS (after MODS): the hit table. */
int prf_parse_hits(struct session *s, struct cursor *c, char **cause);

/* TIME (after MODS): the timeline's frames and its clear marks. */
int prf_parse_timeline(struct session *s, struct cursor *c, char **cause);

/* LINE (1.4, after MODS): the files, inlined functions and places. */
int prf_parse_lines(struct session *s, struct cursor *c, char **cause);

/* SRCE: the embedded source texts. */
int prf_parse_sources(struct session *s, struct cursor *c, char **cause);

/* STCK (1.3, after MODS): the stack table and each frame's stacks. */
int prf_parse_stacks(struct session *s, struct cursor *c, char **cause);

/* THRD (1.5, after HITS): the processes, threads and their hits. */
int prf_parse_threads(struct session *s, struct cursor *c, char **cause);

/* The most frames S's timeline may have, which bounds TIME and what it may
 * inflate to. */
uint64_t prf_parse_frames_for(const struct session *s);

#endif
