#include "config.h"

#include "launcher/args.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* A word being built. */
struct word {
    char *s;
    size_t len, alloc;
    bool started; /* "" is a word: quotes start one even when empty */
};

static void word_add(struct word *w, char c)
{
    if (w->len + 2 > w->alloc) {
        w->alloc = w->alloc ? 2 * w->alloc : 32;
        w->s = xreallocarray(w->s, w->alloc, 1);
    }
    w->s[w->len++] = c;
    w->s[w->len] = '\0';
    w->started = true;
}

static char *word_take(struct word *w)
{
    char *s = w->s ? w->s : xstrdup("");
    *w = (struct word){0};
    return s;
}

enum redir { REDIR_NONE, REDIR_IN, REDIR_OUT, REDIR_APPEND, REDIR_ERR };

/* Hand a finished word to its place: the argument list or a pending redirection. */
static void args_push(struct args *out, struct word *w, enum redir *pending)
{
    char *s = word_take(w);
    switch (*pending) {
    case REDIR_NONE:
        out->argv = xreallocarray(out->argv, out->argc + 2, sizeof *out->argv);
        out->argv[out->argc++] = s;
        out->argv[out->argc] = NULL;
        return;
    case REDIR_IN:
        free(out->stdin_path);
        out->stdin_path = s;
        break;
    case REDIR_OUT:
    case REDIR_APPEND:
        free(out->stdout_path);
        out->stdout_path = s;
        out->stdout_append = *pending == REDIR_APPEND;
        break;
    case REDIR_ERR:
        free(out->stderr_path);
        out->stderr_path = s;
        break;
    }
    *pending = REDIR_NONE;
}

int args_split(const char *line, struct args *out, char **cause)
{
    memset(out, 0, sizeof *out);
    out->argv = xcalloc(1, sizeof *out->argv);
    struct word w = {0};
    enum redir pending = REDIR_NONE;
    const char *p = line;
    while (*p != '\0') {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n') {
            if (w.started)
                args_push(out, &w, &pending);
            p++;
        } else if (c == '\\') {
            if (p[1] != '\0') {
                word_add(&w, p[1]);
                p += 2;
            } else {
                p++;
            }
        } else if (c == '\'') {
            const char *q = strchr(p + 1, '\'');
            if (q == NULL) {
                *cause = xstrdup("unterminated ' quote");
                goto fail;
            }
            w.started = true;
            for (p++; p < q; p++)
                word_add(&w, *p);
            p++;
        } else if (c == '"') {
            w.started = true;
            for (p++; *p != '"'; p++) {
                if (*p == '\0') {
                    *cause = xstrdup("unterminated \" quote");
                    goto fail;
                }
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
                    p++;
                word_add(&w, *p);
            }
            p++;
        } else if ((c == '<' || c == '>' || (c == '2' && p[1] == '>' && !w.started))) {
            if (w.started)
                args_push(out, &w, &pending);
            if (pending != REDIR_NONE) {
                *cause = xstrdup("a redirection needs a file name");
                goto fail;
            }
            if (c == '<') {
                pending = REDIR_IN;
                p++;
            } else if (c == '2') {
                pending = REDIR_ERR;
                p += 2;
            } else if (p[1] == '>') {
                pending = REDIR_APPEND;
                p += 2;
            } else {
                pending = REDIR_OUT;
                p++;
            }
        } else {
            word_add(&w, c);
            p++;
        }
    }
    if (w.started)
        args_push(out, &w, &pending);
    if (pending != REDIR_NONE) {
        *cause = xstrdup("a redirection needs a file name");
        goto fail;
    }
    return 0;
fail:
    free(w.s);
    args_free(out);
    return -1;
}

void args_free(struct args *a)
{
    for (size_t i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
    free(a->stdin_path);
    free(a->stdout_path);
    free(a->stderr_path);
    memset(a, 0, sizeof *a);
}
