/* Reports of a session: the Dr. Dobb's PROF layout as text, and JSON. */
#ifndef PROFIL_REPORT_H
#define PROFIL_REPORT_H

#include "session/session.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* "mm:ss.mmm" for SAMPLES ticks of INTERVAL_US; BUF holds at least 32 bytes. */
const char *report_time(char *buf, size_t size, uint64_t samples, uint32_t interval_us);

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

/* Add those lines to a JSON report object. */
struct cJSON;
void report_json_add_lines(struct session *s, struct cJSON *o);

/* Who ran (session/threadreport.c): the times without double counting and
 * a row per thread under its process, below a report (with a LIMIT, not 0,
 * that many processes, and threads of each, with the most samples); in a JSON report
 * object, "times", "filter", "processes" and "threads", and with
 * report_json_by_thread on, each function's "by_thread" (the JSON array
 * "functions" made from the ranking ORDER, N long). */
void report_who(struct session *s, FILE *out, size_t limit);
void report_json_who(struct session *s, struct cJSON *o, const size_t *order, size_t n);
void report_json_by_thread(bool on);

/* Print the hottest lines of S below a report: where, in which function,
 * Self and Total; the first LIMIT (0: all). */
void report_lines(struct session *s, FILE *out, size_t limit);

/* A source line: file id (0 unknown) and line. */
struct report_place {
    uint32_t file;
    uint32_t line;
};

/* The line of each bucket's hottest address (its hit with the most
 * samples), by bucket; the caller frees. */
struct report_place *report_bucket_places(struct session *s);

/* "file.c:31" for P (the file's last component), "-" when unknown. */
const char *report_place_text(const struct session *s, const struct report_place *p, char *buf,
                              size_t size);

/* The Multics star column for a line with PCT % of the samples: 0 to 4. */
int report_stars(double pct);

/* The file id of the session's file NAME stands for: its whole path, or a
 * tail of it at a '/', among the files with samples; -1 and *CAUSE (owned)
 * when none or several are. */
long report_list_file(struct session *s, const char *name, char **cause);

/* What a listing leaves out (--exclude), as Multics profile -list did. */
enum {
    LISTING_LINE = 1 << 0,
    LISTING_COUNT = 1 << 1,
    LISTING_TIME = 1 << 2,
    LISTING_STARS = 1 << 3,
    LISTING_CALLS = 1 << 4,
};

struct listing_opts {
    const char *session; /* the .PRF's name, for the heading */
    const char *where;   /* where the source was looked for, when it was not found */
    unsigned exclude;    /* LISTING_* */
    size_t line_length;  /* columns, 0: 132 */
    uint32_t from, to;   /* the lines listed, 0: the first, the last */
};

struct source_file;

/* Print the Multics profile listing of file id FILE: every line of SRC (NULL
 * when its text was not found: the counted lines then) with its line number,
 * samples, time, share, with stacks the share of the samples with the line
 * on their stack, and the star column. */
void report_listing(struct session *s, uint32_t file, const struct source_file *src,
                    const struct listing_opts *lo, FILE *out);

/* How many --report --lines prints. */
#define REPORT_LINES_SHOWN 30

/* Print the call tree as perf report --stdio --children does: each path's
 * Total and Self, indented by depth, down to PERCENT_LIMIT %. */
void report_tree(struct session *s, FILE *out, bool inverted, double percent_limit);

/* Write S's stacks as collapsed stacks, "main;work;leaf 700" a line, the
 * input of flamegraph.pl and inferno. */
void report_folded(struct session *s, FILE *out);

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
