#include "config.h"

#include "launcher/launcher.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel reads this much of a file for its #! line (BINPRM_BUF_SIZE). */
#define SCRIPT_LINE_MAX 256
/* ... and follows this many interpreters that are scripts themselves. */
#define SCRIPT_DEPTH 4

/* The #! line of PATH split as the kernel splits it: the interpreter, and
 * one optional argument (everything after it, trimmed).  1 when PATH does
 * not start with #!, 0 with *INTERP and *ARG (owned, *ARG may be NULL). */
static int script_line(const char *path, char **interp, char **arg)
{
    char buf[SCRIPT_LINE_MAX + 1];
    struct stat st;
    /* Not blocking: a FIFO put in place of a regular file is not read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    ssize_t n = read(fd, buf, SCRIPT_LINE_MAX);
    close(fd);
    if (n < 2 || buf[0] != '#' || buf[1] != '!')
        return 1;
    buf[n] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl != NULL)
        *nl = '\0';
    char *p = buf + 2;
    p += strspn(p, " \t");
    size_t len = strcspn(p, " \t");
    if (len == 0)
        return 1;
    *interp = xstrndup(p, len);
    p += len;
    p += strspn(p, " \t");
    size_t end = strlen(p);
    while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t' || p[end - 1] == '\r'))
        end--;
    *arg = end > 0 ? xstrndup(p, end) : NULL;
    return 0;
}

int launcher_interpreter(const char *path, char **interp, char **cause)
{
    char *cur = xstrdup(path);
    int depth = 0, r = 1;
    *interp = NULL;
    for (;;) {
        char *next = NULL, *arg = NULL;
        if (script_line(cur, &next, &arg) != 0)
            break;
        if (++depth > SCRIPT_DEPTH) {
            *cause = xasprintf("%s: more than %d interpreters in a row", path, SCRIPT_DEPTH);
            free(next);
            free(arg);
            r = -1;
            break;
        }
        /* #!/usr/bin/env NAME runs NAME from PATH: its code is what runs. */
        const char *base = strrchr(next, '/') ? strrchr(next, '/') + 1 : next;
        if (strcmp(base, "env") == 0 && arg != NULL) {
            const char *word = arg;
            if (strncmp(word, "-S", 2) == 0)
                word += 2 + strspn(word + 2, " \t");
            if (word[0] != '-' && strchr(word, '=') == NULL) {
                char *name = xstrndup(word, strcspn(word, " \t"));
                char *found = launcher_resolve(name);
                if (found != NULL) {
                    free(next);
                    next = found;
                }
                free(name);
            }
        }
        free(arg);
        if (access(next, X_OK) != 0) {
            *cause = xasprintf("%s: its interpreter %s: %s", path, next, strerror(errno));
            free(next);
            r = -1;
            break;
        }
        struct stat st;
        if (stat(next, &st) == 0 && !S_ISREG(st.st_mode)) {
            *cause = xasprintf("%s: its interpreter %s: not a regular file", path, next);
            free(next);
            r = -1;
            break;
        }
        free(cur);
        cur = next;
        r = 0;
    }
    if (r == 0)
        *interp = cur;
    else
        free(cur);
    return r;
}
