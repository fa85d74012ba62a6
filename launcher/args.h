/* Splitting PROFIL's "Parameters to program?" answer the way a shell would. */
#ifndef PROFIL_ARGS_H
#define PROFIL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

struct args {
    char **argv; /* owned, NULL-terminated */
    size_t argc;
    char *stdin_path;  /* from "< file", or NULL */
    char *stdout_path; /* from "> file" or ">> file" */
    bool stdout_append;
    char *stderr_path; /* from "2> file" */
};

/* Split LINE into words: single and double quotes, backslash escapes, and the
 * redirections < > >> 2>.  0, or -1 with *cause (owned) for an unterminated
 * quote or a redirection without a file. */
int args_split(const char *line, struct args *out, char **cause);

void args_free(struct args *a);

#endif
