/*
 * The session: everything profil knows about one run.  Live samples from a
 * clock driver and a replayed .PRF enter through the same function,
 * session_ingest, so nothing downstream can tell them apart.  This is what
 * the rest of profil includes: the model (model.h) and what makes, feeds,
 * clears and frees a whole session (session.c).
 */
#ifndef PROFIL_SESSION_H
#define PROFIL_SESSION_H

#include "session/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A new session for PROGRAM (its module must load: the program area comes
 * from its executable segments).  NULL and *cause on failure. */
struct session *session_new(const char *program, uint32_t bucket_paragraphs, uint32_t interval_us,
                            char **cause);

void session_free(struct session *s);

/* Take one event from a live driver or a replay. */
void session_ingest(struct session *s, const struct event *ev);

/* Clear what the views show (OS/2's PRF_CM_CLEAR): every counter, bucket,
 * hit and function starts again from 0.  Nothing is thrown away: the counts
 * move to the before_clear fields, and a new frame marked cleared goes at the
 * end of the timeline, so that a replay clears there and ends in the same
 * state as the screen did. */
void session_clear(struct session *s);

/* Forget every count and every clear, keeping the program, modules and
 * symbols (a replay starts from this). */
void session_reset(struct session *s);

/* Sort FUNCS indices by samples (Self), most first: every function with
 * samples of its own or on a stack (Total); the caller owns the array. */
size_t *session_ranking(struct session *s, size_t *n);
/* The same by Total when BY_TOTAL. */
size_t *session_ranking_by(struct session *s, bool by_total, size_t *n);

/* The name that labels bucket I, as PROHST did: the function with the most
 * samples in the bucket (ties: the lower address), with *OTHERS the number of
 * other functions that have samples there.  A bucket without samples is
 * labelled by the function that covers or starts in it (*OTHERS 0); NULL when
 * none is known (a classic file has no symbols).  Borrowed from the program's
 * module, valid until its symbols change.  It orders the program's hits for
 * this one call: to label many buckets, keep a struct hitorder (hitorder.h)
 * or use session_bucket_labels. */
const char *session_bucket_label(const struct session *s, size_t i, size_t *others);

/* Record how the program ended, from its wait status. */
void session_set_exit(struct session *s, int wstatus);

#endif
