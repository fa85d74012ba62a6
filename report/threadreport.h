/* Who ran, in the reports (report/threadreport.c). */
#ifndef PROFIL_THREADREPORT_H
#define PROFIL_THREADREPORT_H

#include "session/session.h"

#include <stdbool.h>
#include <stdio.h>

struct cJSON;

/* Who ran (report/threadreport.c): the times without double counting and
 * a row per thread under its process, below a report (with a LIMIT, not 0,
 * that many processes, and threads of each, with the most samples); in a JSON report
 * object, "times", "filter", "processes" and "threads", and with
 * report_json_by_thread on, each function's "by_thread" (the JSON array
 * "functions" made from the ranking ORDER, N long). */
void report_who(struct session *s, FILE *out, size_t limit);
void report_json_who(struct session *s, struct cJSON *o, const size_t *order, size_t n);
void report_json_by_thread(bool on);

#endif
