/* Runs of one program added up into one session, as Multics `profile`
 * accumulated runs until -reset: counters, buckets, hits, stacks, symbols
 * and source places, the timelines one after another. */
#ifndef PROFIL_ANALYSIS_MERGE_H
#define PROFIL_ANALYSIS_MERGE_H

#include "session/session.h"

#include <stdbool.h>

/* Add RUNS[0..N) into OUT, which must be a second reading of RUNS[0]'s
 * file (it keeps that run's program, modules and symbols; its counts are
 * made again from every run's timeline).  NAMES are the files, for the
 * messages and the record of what was merged.  Runs of another build of
 * the program, another sample time or another clock are refused unless
 * FORCE.  Returns 0, or -1 with *cause set (owned, one line).  The runs
 * may lose modules to OUT: free them, do not use them after. */
int merge_sessions(struct session *out, struct session **runs, const char *const *names, size_t n,
                   bool force, char **cause);

#endif
