#include "config.h"

#include "launcher/prompt.h"
#include "util/files.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

const char *prompt_number_why(const char *s, unsigned long min, unsigned long max, uint32_t *out)
{
    while (isblank((unsigned char)*s))
        s++;
    if (*s == '\0' || *s == '\n')
        return "an empty answer";
    if (!isdigit((unsigned char)*s))
        return "not a whole number"; /* no sign */
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    bool overflow = errno == ERANGE;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return "not a whole number";
    if (overflow || v > max)
        return "too large";
    if (v < min)
        return "too small";
    *out = (uint32_t)v;
    return NULL;
}

bool prompt_parse_number(const char *s, unsigned long min, unsigned long max, uint32_t *out)
{
    return prompt_number_why(s, min, max, out) == NULL;
}

/* Numbers have nothing to complete; the parameters complete file names. */
static char **prompt_no_completion(const char *text, int start, int end)
{
    rl_attempted_completion_over = 1;
    return NULL;
}

/*
 * Without a terminal the answers are read line by line from standard input,
 * which the program inherits: nothing after an answer's newline may be
 * taken from it.  So a line is looked at before it is taken, a block at a
 * time: a regular file is read with pread at the offset and the offset
 * moved past the newline, a pipe is copied with tee(2) into a private
 * pipe, a socket read with MSG_PEEK; then exactly the line is taken.  Any
 * other kind (a character device that is no terminal) is read one byte at a
 * time.  A line is at most PROMPT_LINE_MAX bytes, so an answer costs a few
 * system calls, whatever standard input holds.
 */
enum prompt_kind { PROMPT_FILE, PROMPT_PIPE, PROMPT_SOCKET, PROMPT_BYTES };

static enum prompt_kind prompt_kind_of(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return PROMPT_BYTES;
    if (S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0)
        return PROMPT_FILE;
    if (S_ISFIFO(st.st_mode))
        return PROMPT_PIPE;
    if (S_ISSOCK(st.st_mode))
        return PROMPT_SOCKET;
    return PROMPT_BYTES;
}

/* Wait until FD has something to read (it may be non-blocking). */
static void prompt_wait(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    poll(&p, 1, -1);
}

/* Up to N bytes of what FD holds next, into BUF, without taking them (but
 * PROMPT_BYTES takes its one byte); 0 at the end, -1 on an error.  SCRATCH
 * is a private pipe for tee. */
static ssize_t prompt_peek(int fd, enum prompt_kind kind, char *buf, size_t n, const int scratch[2])
{
    for (;;) {
        ssize_t r;
        off_t at;
        switch (kind) {
        case PROMPT_FILE:
            at = lseek(fd, 0, SEEK_CUR);
            r = at < 0 ? -1 : pread(fd, buf, n, at);
            break;
        case PROMPT_PIPE:
            r = tee(fd, scratch[1], n, 0);
            if (r > 0) {
                /* The scratch pipe was empty: it now holds exactly R bytes. */
                size_t got = 0;
                while (got < (size_t)r) {
                    ssize_t k = read(scratch[0], buf + got, (size_t)r - got);
                    if (k < 0 && errno == EINTR)
                        continue;
                    if (k <= 0)
                        return -1;
                    got += (size_t)k;
                }
            }
            break;
        case PROMPT_SOCKET: r = recv(fd, buf, n, MSG_PEEK); break;
        default: r = read(fd, buf, 1); break;
        }
        if (r >= 0)
            return r;
        if (errno == EAGAIN)
            prompt_wait(fd);
        else if (errno != EINTR)
            return -1;
    }
}

/* Take the N bytes that prompt_peek showed; 0, or -1 on an error. */
static int prompt_take(int fd, enum prompt_kind kind, size_t n)
{
    if (kind == PROMPT_BYTES)
        return 0; /* taken already */
    if (kind == PROMPT_FILE)
        return lseek(fd, (off_t)n, SEEK_CUR) < 0 ? -1 : 0;
    char sink[512];
    while (n > 0) {
        ssize_t r = read(fd, sink, n < sizeof sink ? n : sizeof sink);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN) {
            prompt_wait(fd);
            continue;
        }
        if (r <= 0)
            return -1;
        n -= (size_t)r;
    }
    return 0;
}

/* One line of standard input into BUF (PROMPT_LINE_MAX + 2 bytes), without
 * its newline: its length, -1 at the end of input (or on an error) before
 * any byte, PROMPT_TOO_LONG past PROMPT_LINE_MAX bytes. */
static ssize_t prompt_getline(char *buf)
{
    enum prompt_kind kind = prompt_kind_of(STDIN_FILENO);
    int scratch[2] = {-1, -1};
    if (kind == PROMPT_PIPE && pipe2(scratch, O_CLOEXEC) < 0)
        kind = PROMPT_BYTES;
    size_t len = 0;
    ssize_t result;
    for (;;) {
        /* One byte more than a line may hold: it says the line is too long. */
        ssize_t n = prompt_peek(STDIN_FILENO, kind, buf + len, PROMPT_LINE_MAX + 1 - len, scratch);
        if (n <= 0) {
            result = len > 0 ? (ssize_t)len : -1; /* a last line without its newline */
            break;
        }
        char *nl = memchr(buf + len, '\n', (size_t)n);
        size_t take = nl != NULL ? (size_t)(nl - (buf + len)) + 1 : (size_t)n;
        if (prompt_take(STDIN_FILENO, kind, take) < 0) {
            result = -1;
            break;
        }
        if (nl != NULL) {
            result = (ssize_t)(len + take - 1);
            break;
        }
        len += take;
        if (len > PROMPT_LINE_MAX) {
            result = PROMPT_TOO_LONG;
            break;
        }
    }
    if (scratch[0] >= 0) {
        close(scratch[0]);
        close(scratch[1]);
    }
    if (result >= 0)
        buf[result] = '\0';
    return result;
}

/* Ask TEXT once without a terminal: 0, -1 at the end of input, or
 * PROMPT_GAVE_UP after saying that the line was too long. */
static int prompt_read_raw(const char *text, char **line)
{
    fputs(text, stdout);
    fflush(stdout);
    char *buf = xmalloc(PROMPT_LINE_MAX + 2);
    ssize_t len = prompt_getline(buf);
    if (len < 0) {
        free(buf);
        fputc('\n', stdout);
        fflush(stdout);
        if (len == PROMPT_TOO_LONG)
            fprintf(stderr,
                    "profil: standard input: an answer longer than %d bytes: nothing "
                    "was run (longer parameters go after the program, or in --args)\n",
                    PROMPT_LINE_MAX);
        return len == PROMPT_TOO_LONG ? PROMPT_GAVE_UP : -1;
    }
    if (len > 0 && buf[len - 1] == '\r')
        buf[--len] = '\0';
    quote_fputs(buf, stdout); /* the transcript reads as if typed */
    fputc('\n', stdout);
    fflush(stdout);
    *line = buf;
    return 0;
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
    files_mkdirs(dir);
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
    int r = prompt_read(text, complete_files, line);
    if (r < 0)
        return r;
    prompt_remember(text, *line);
    return 0;
}

bool prompt_refused(const char *why, const char *answer, int *wrong)
{
    if (isatty(STDIN_FILENO))
        return false; /* someone is typing: ask again, as PROFIL did */
    ++*wrong;
    fprintf(stderr, "profil: answer '%s' refused (%d of %d): %s\n", quote(answer), *wrong,
            PROMPT_TRIES, why);
    if (*wrong < PROMPT_TRIES)
        return false;
    fprintf(stderr,
            "profil: %d wrong answers and standard input is not a terminal: nothing "
            "was run\n",
            PROMPT_TRIES);
    return true;
}

bool prompt_is_help(const char *answer)
{
    while (isblank((unsigned char)*answer))
        answer++;
    if (*answer++ != '?')
        return false;
    while (isspace((unsigned char)*answer))
        answer++;
    return *answer == '\0';
}

/* Whether ANSWER is empty but for blanks. */
static bool prompt_is_empty(const char *answer)
{
    while (isspace((unsigned char)*answer))
        answer++;
    return *answer == '\0';
}

int prompt_number(const char *text, const char *wanted, const char *help, unsigned long min,
                  unsigned long max, uint32_t def, uint32_t *out)
{
    int wrong = 0;
    for (;;) {
        char *line;
        int r = prompt_read(text, false, &line);
        if (r < 0)
            return r;
        if (prompt_is_empty(line)) {
            *out = def;
            free(line);
            return 0;
        }
        if (prompt_is_help(line)) {
            printf("%s\n", help);
            fflush(stdout);
            free(line);
            continue;
        }
        const char *why = prompt_number_why(line, min, max, out);
        if (why == NULL) {
            prompt_remember(text, line); /* only answers worth recalling */
            free(line);
            return 0;
        }
        printf("%s\n", wanted); /* then PROFIL's own words again */
        fflush(stdout);
        bool give_up = prompt_refused(why, line, &wrong);
        free(line);
        if (give_up)
            return PROMPT_GAVE_UP;
    }
}
