/* Reports by line (report/linereport.c): the hottest lines below the
 * ranking (--report --lines), as JSON, and the Multics profile listing of
 * one source file (--list). */
#ifndef PROFIL_LINEREPORT_H
#define PROFIL_LINEREPORT_H

#include "session/session.h"

#include <stdint.h>
#include <stdio.h>

/* Add every line with samples of its own to a JSON report object. */
struct cJSON;
void report_json_add_lines(struct session *s, struct cJSON *o);

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

#endif
