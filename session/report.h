/* Reports of a session: the Dr. Dobb's PROF layout as text, and JSON. */
#ifndef PROFIL_REPORT_H
#define PROFIL_REPORT_H

#include "session/session.h"

#include <stdio.h>

/* "mm:ss.mmm" for SAMPLES ticks of INTERVAL_US; BUF holds at least 32 bytes. */
const char *report_time(char *buf, size_t size, uint64_t samples, uint32_t interval_us);

/* Print the PROF report of S to OUT; TITLE names the file, may be NULL;
 * LIMIT caps the routines listed (0: all). */
void report_text(struct session *s, const char *title, FILE *out, size_t limit);

/* The JSON report of S (schema in docs/prf-format.md); the caller owns it. */
char *report_json(struct session *s);

/* The one-line termination message PROFIL printed, into BUF. */
const char *report_termination(const struct session *s, char *buf, size_t size);

#endif
