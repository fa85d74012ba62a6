/* PROFIL's prompts, through readline on a terminal and line by line otherwise. */
#ifndef PROFIL_PROMPT_H
#define PROFIL_PROMPT_H

#include <stdbool.h>
#include <stdint.h>

#define PROMPT_BUCKET "Number of paragraphs (16 bytes) per bucket? "
#define PROMPT_INTERVAL "Sample time (micro-sec) >= 60 ? "
#define PROMPT_PARAMS "Parameters to program? "

#define BUCKET_MIN 1
#define BUCKET_MAX 65535
#define INTERVAL_MIN 60
#define INTERVAL_MAX 1000000

/* A whole decimal number in [MIN, MAX], blanks around it allowed; nothing else. */
bool prompt_parse_number(const char *s, unsigned long min, unsigned long max, uint32_t *out);

/* Ask TEXT until the answer is such a number.  0, or -1 at end of input. */
int prompt_number(const char *text, unsigned long min, unsigned long max, uint32_t *out);

/* Ask TEXT once; *LINE is owned by the caller.  0, or -1 at end of input. */
int prompt_line(const char *text, bool complete_files, char **line);

#endif
