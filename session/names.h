/*
 * A session's functions named (names.c): the function table brought up to
 * date with the hits, each hit's Self given to the innermost function
 * inlined at its PC, and the debug files that came while the program ran.
 * Above resolve.c (a PC's function) and lines.c (what is inlined there).
 */
#ifndef PROFIL_SESSION_NAMES_H
#define PROFIL_SESSION_NAMES_H

#include "session/model.h"

#include <stdbool.h>

/* Bring the function table up to date with the hit table. */
void session_rank(struct session *s);

/* A live run asks debuginfod in the background (debuginfo_background): a
 * module whose debug file is on its way leaves its PCs unnamed until it
 * comes.  Poll: take what came, and true when the names may have changed
 * (ranked again at the next session_rank).  Wait: for all of it, as the
 * run ends, so that the file has the names, unless GIVE_UP (asked every
 * 100 ms, may be NULL) says the user will not: then false, and what did
 * not come is named from the images alone. */
bool session_debuginfo_poll(struct session *s);
bool session_debuginfo_wait(struct session *s, bool (*give_up)(void *arg), void *arg);

#endif
