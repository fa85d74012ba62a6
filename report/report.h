/* Reports of a session: the Dr. Dobb's PROF layout as text, and JSON. */
#ifndef PROFIL_REPORT_H
#define PROFIL_REPORT_H

#include "report/linereport.h"
#include "report/threadreport.h"
#include "session/session.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Above this share of lost ticks the report warns that the shares may be biased. */
#define REPORT_LOST_WARN_PCT 1.0

/* The share of the ticks that were lost: lost / (total + lost) x 100, 0 when none. */
double report_lost_pct(const struct counters *c);

/* Whether the K-th routine of the ranking ORDER (indices into s->funcs, N
 * long) cannot be told from the one above or below it: their 95 % intervals
 * overlap (the report's '~', the Functions view's).  Routines with no
 * samples of their own are not marked, nor compared with. */
bool report_indistinct(const struct session *s, const size_t *order, size_t n, size_t k);

/* Print the PROF report of S to OUT; TITLE names the file, may be NULL;
 * LIMIT caps the routines listed (0: all). */
void report_text(struct session *s, const char *title, FILE *out, size_t limit);

/* The JSON report of S (schema in docs/prf-format.md); the caller owns it. */
char *report_json(struct session *s);

/* The same with "tree": the call tree, top-down or INVERTED, without the
 * paths under PERCENT_LIMIT % of the samples. */
char *report_json_tree(struct session *s, bool inverted, double percent_limit);

/* The JSON report with any of: the call tree (TREE, INVERTED, PERCENT_LIMIT
 * as above) and LINES, every line with samples of its own. */
char *report_json_full(struct session *s, bool tree, bool inverted, double percent_limit,
                       bool lines);

/* Print the call tree as perf report --stdio --children does: each path's
 * Total and Self, indented by depth, down to PERCENT_LIMIT %. */
void report_tree(struct session *s, FILE *out, bool inverted, double percent_limit);

/* The widest bar of a bucket histogram, in stars. */
#define REPORT_BAR_WIDTH 40

/* Print S's bucket histogram as PROHST did: per bucket its address, the
 * function that labels it (session_bucket_label; none in a classic file),
 * its count and a bar of stars scaled to the largest.  Empty buckets only
 * when ALL. */
void report_hist(struct session *s, FILE *out, bool all);

/* The same as JSON (schema in docs/prf-format.md); the caller owns it. */
char *report_hist_json(struct session *s, bool all);

/* The one-line termination message PROFIL printed, into BUF. */
const char *report_termination(const struct session *s, char *buf, size_t size);

/* Too few samples to rely on (fewer than 100, or the top routine's share
 * wider than +-5 points): about how many in all would make the top share
 * +-1 point; 0 when there are enough, or none at all yet. */
uint64_t report_samples_wanted(const struct session *s);

#endif
