/* PROFIL's prompts, through readline on a terminal and line by line otherwise. */
#ifndef PROFIL_PROMPT_H
#define PROFIL_PROMPT_H

#include <stdbool.h>
#include <stdint.h>

/* PROFIL's words, and the answer Enter gives in brackets. */
#define PROMPT_BUCKET   "Number of paragraphs (16 bytes) per bucket [1]? "
#define PROMPT_INTERVAL "Sample time (micro-sec) >= 60 [1000]? "
#define PROMPT_PARAMS   "Parameters to program []? "

/* What Enter answers, and what -p takes without asking. */
#define BUCKET_DEFAULT   1
#define INTERVAL_DEFAULT 1000

/* What '?' answers: what the question means, in one line. */
#define PROMPT_BUCKET_HELP                                                                         \
    "how finely the histogram divides the program's code: 1 paragraph (16 bytes) a bucket "        \
    "is the finest; Enter takes 1"
#define PROMPT_INTERVAL_HELP                                                                       \
    "how often the clock samples, in microseconds: 1000 is a thousand times a second; less "       \
    "is finer and costs more; Enter takes 1000"
#define PROMPT_PARAMS_HELP                                                                         \
    "the program's arguments, split as a shell splits them (quotes, < > >> redirect); Enter "      \
    "runs it with none; \"?\" in quotes is a ?"

/* What a wrong answer is told, on its own line, before the prompt comes again. */
#define PROMPT_BUCKET_WANTED   "a whole number 1..65535"
#define PROMPT_INTERVAL_WANTED "a whole number of microseconds, 60..1000000"

/* Answers each prompt's history keeps. */
#define PROMPT_HISTORY_MAX 100

#define BUCKET_MIN   1
#define BUCKET_MAX   65535
#define INTERVAL_MIN 60
#define INTERVAL_MAX 1000000

/* Without a terminal, an answer is a line of at most this many bytes ... */
#define PROMPT_LINE_MAX 4096
/* ... and after this many wrong answers to one prompt profil gives up. */
#define PROMPT_TRIES 3
/* What the prompts return when they gave up (after saying why in one line
 * on stderr); profil then exits 2.  -1 is the end of input. */
#define PROMPT_GAVE_UP  (-2)
#define PROMPT_TOO_LONG (-3) /* internal: a line past PROMPT_LINE_MAX */

/* A whole decimal number in [MIN, MAX], blanks around it allowed; nothing else. */
bool prompt_parse_number(const char *s, unsigned long min, unsigned long max, uint32_t *out);

/* The same, saying why not: NULL when S is such a number (in *OUT), else
 * "an empty answer", "not a whole number", "too small" or "too large". */
const char *prompt_number_why(const char *s, unsigned long min, unsigned long max, uint32_t *out);

/* Ask TEXT until the answer is such a number, saying WANTED on its own line
 * after each wrong answer; an empty answer (Enter) is DEF, and '?' says HELP
 * and asks again.  0, -1 at end of input, or PROMPT_GAVE_UP. */
int prompt_number(const char *text, const char *wanted, const char *help, unsigned long min,
                  unsigned long max, uint32_t def, uint32_t *out);

/* Whether ANSWER is a question mark alone (blanks around it allowed): the
 * prompt's help is wanted. */
bool prompt_is_help(const char *answer);

/* ANSWER was refused because WHY: without a terminal, say so on stderr,
 * count it in *WRONG, and return true, after one line more, when that was
 * the PROMPT_TRIES-th (the caller gives up).  On a terminal, false. */
bool prompt_refused(const char *why, const char *answer, int *wrong);

/* Ask TEXT once; *LINE is owned by the caller.  0, -1 at end of input, or
 * PROMPT_GAVE_UP (a line too long without a terminal).
 * On a terminal each prompt has its own readline history, kept between runs
 * in $XDG_STATE_HOME/profil/history/ (default ~/.local/state/profil/history/),
 * one file per prompt; failing to keep it is silently ignored. */
int prompt_line(const char *text, bool complete_files, char **line);

#endif
