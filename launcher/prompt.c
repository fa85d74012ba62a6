#include "config.h"

#include "launcher/prompt.h"
#include "xmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Make DIR and the directories above it that are missing, private (0700). */
static void prompt_mkdirs(char *dir)
{
    for (char *p = dir + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    }
    mkdir(dir, 0700);
}

/* The history directory: $XDG_STATE_HOME/profil/history, else
 * ~/.local/state/profil/history; NULL when there is no home.  Owned. */
static char *prompt_history_dir(void)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (state != NULL && state[0] == '/')
        return xasprintf("%s/profil/history", state);
    if (home != NULL && home[0] == '/')
        return xasprintf("%s/.local/state/profil/history", home);
    return NULL;
}

/* The history file of the prompt TEXT: one file per prompt, so that the
 * bucket sizes, the sample times and the parameters each recall their own. */
static char *prompt_history_file(const char *dir, const char *text)
{
    const char *name = strcmp(text, PROMPT_BUCKET) == 0     ? "bucket"
                       : strcmp(text, PROMPT_INTERVAL) == 0 ? "interval"
                       : strcmp(text, PROMPT_PARAMS) == 0   ? "parameters"
                                                            : "other";
    return xasprintf("%s/%s", dir, name);
}

/* Remember LINE in FILE; any failure is silently ignored: a history is a
 * convenience, never a reason to stop. */
static void prompt_history_save(const char *dir, const char *file, const char *line)
{
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last == NULL || strcmp(last->line, line) != 0)
        add_history(line);
    char *copy = xstrdup(dir);
    prompt_mkdirs(copy);
    free(copy);
    int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    close(fd);
    write_history(file);
}

/* Ask TEXT once, on a terminal with the prompt's own history loaded. */
static int prompt_read(const char *text, bool complete_files, char **line)
{
    if (!isatty(STDIN_FILENO))
        return prompt_read_raw(text, line);
    rl_attempted_completion_function = complete_files ? NULL : prompt_no_completion;
    /* Each prompt recalls its own answers, from earlier runs too. */
    char *dir = prompt_history_dir();
    char *file = dir != NULL ? prompt_history_file(dir, text) : NULL;
    clear_history();
    stifle_history(PROMPT_HISTORY_MAX);
    if (file != NULL)
        read_history(file);
    free(file);
    free(dir);
    char *l = readline(text);
    if (l == NULL) {
        fputc('\n', stdout);
        return -1;
    }
    *line = l;
    return 0;
}

/* Keep an answer to TEXT in its history (on a terminal only). */
static void prompt_remember(const char *text, const char *line)
{
    if (!isatty(STDIN_FILENO) || *line == '\0')
        return;
    char *dir = prompt_history_dir();
    if (dir == NULL) {
        add_history(line);
        return;
    }
    char *file = prompt_history_file(dir, text);
    prompt_history_save(dir, file, line);
    free(file);
    free(dir);
}

int prompt_line(const char *text, bool complete_files, char **line)
{
    if (prompt_read(text, complete_files, line) < 0)
        return -1;
    prompt_remember(text, *line);
    return 0;
}

int prompt_number(const char *text, const char *wanted, unsigned long min, unsigned long max,
                  uint32_t *out)
{
    for (;;) {
        char *line;
        if (prompt_read(text, false, &line) < 0)
            return -1;
        bool ok = prompt_parse_number(line, min, max, out);
        if (ok)
            prompt_remember(text, line); /* only answers worth recalling */
        free(line);
        if (ok)
            return 0;
        printf("%s\n", wanted); /* then PROFIL's own words again */
        fflush(stdout);
    }
}
