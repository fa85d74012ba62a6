#include "config.h"

#include "launcher/prompt.h"
#include "session/xmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

bool prompt_parse_number(const char *s, unsigned long min, unsigned long max, uint32_t *out)
{
    while (isblank((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return false; /* no sign, no empty answer */
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno == ERANGE)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0' || v < min || v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Numbers have nothing to complete; the parameters complete file names. */
static char **prompt_no_completion(const char *text, int start, int end)
{
    rl_attempted_completion_over = 1;
    return NULL;
}

/* Without a terminal, read one byte at a time so that nothing meant for the
 * program's standard input is swallowed by a buffer. */
static int prompt_read_raw(const char *text, char **line)
{
    fputs(text, stdout);
    fflush(stdout);
    size_t len = 0, alloc = 64;
    char *buf = xmalloc(alloc);
    for (;;) {
        char c;
        ssize_t r = read(STDIN_FILENO, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (len == 0) {
                free(buf);
                fputc('\n', stdout);
                return -1;
            }
            break;
        }
        if (c == '\n')
            break;
        if (len + 2 > alloc) {
            alloc *= 2;
            buf = xreallocarray(buf, alloc, 1);
        }
        buf[len++] = c;
    }
    if (len > 0 && buf[len - 1] == '\r')
        len--;
    buf[len] = '\0';
    printf("%s\n", buf); /* the transcript reads as if typed */
    fflush(stdout);
    *line = buf;
    return 0;
}

int prompt_line(const char *text, bool complete_files, char **line)
{
    if (!isatty(STDIN_FILENO))
        return prompt_read_raw(text, line);
    rl_attempted_completion_function = complete_files ? NULL : prompt_no_completion;
    char *l = readline(text);
    if (l == NULL) {
        fputc('\n', stdout);
        return -1;
    }
    if (*l != '\0')
        add_history(l);
    *line = l;
    return 0;
}

int prompt_number(const char *text, unsigned long min, unsigned long max, uint32_t *out)
{
    for (;;) {
        char *line;
        if (prompt_line(text, false, &line) < 0)
            return -1;
        bool ok = prompt_parse_number(line, min, max, out);
        free(line);
        if (ok)
            return 0;
    }
}
