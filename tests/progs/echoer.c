/* echoer.c - copies stdin to stdout uppercased, line by line, until EOF. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* Uppercase each line and flush it at once so interactive use works. */
int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len, i;

    while ((len = getline(&line, &cap, stdin)) >= 0) {
        for (i = 0; i < len; i++)
            line[i] = (char)toupper((unsigned char)line[i]);
        fwrite(line, 1, (size_t)len, stdout);
        fflush(stdout);
    }
    free(line);
    return 0;
}
