/*
 * profil --list SOURCE [FILE.PRF]: Multics profile -list, a source file with
 * each line's samples, time, share and column of stars, written to NAME.list
 * in the current directory (or -o OUT).
 */
#include "config.h"

#include "elf/source.h"
#include "launcher/launcher.h"
#include "prf/prf.h"
#include "report/report.h"
#include "session/lines.h"
#include "util/quote.h"
#include "util/save.h"
#include "util/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The session read from PATH, and in *FILE the id of SOURCE in it; NULL
 * (with *CAUSE) when it cannot be read or has no samples in SOURCE. */
static struct session *list_open(const char *path, const char *source, long *file, char **cause)
{
    char *why = NULL;
    struct session *s = prf_read_file(path, &why);
    if (s == NULL) {
        *cause = why;
        return NULL;
    }
    *file = report_list_file(s, source, &why);
    if (*file < 0) {
        *cause = xasprintf("%s: %s", path, why);
        free(why);
        session_free(s);
        return NULL;
    }
    return s;
}

/* No session named: the newest .PRF here whose lines include SOURCE. */
static char *list_find_session(const char *source, char **cause)
{
    DIR *d = opendir(".");
    if (d == NULL) {
        *cause = xasprintf(".: %s", strerror(errno));
        return NULL;
    }
    char *best = NULL;
    time_t best_mtime = 0;
    size_t seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        struct stat st;
        if (n < 5 || strcasecmp(e->d_name + n - 4, ".PRF") != 0 || stat(e->d_name, &st) < 0 ||
            !S_ISREG(st.st_mode))
            continue;
        seen++;
        if (best != NULL && st.st_mtime <= best_mtime)
            continue;
        char *why = NULL;
        long file;
        struct session *s = list_open(e->d_name, source, &file, &why);
        free(why);
        if (s == NULL)
            continue;
        session_free(s);
        free(best);
        best = xstrdup(e->d_name);
        best_mtime = st.st_mtime;
    }
    closedir(d);
    if (best == NULL)
        *cause = seen ? xasprintf("no session here has samples in %s (name one: profil --list "
                                  "%s FILE.PRF)",
                                  source, source)
                      : xasprintf("no .PRF file here to list %s from (name one: profil --list "
                                  "%s FILE.PRF)",
                                  source, source);
    return best;
}

/* NAME.list for SOURCE: its last component without its suffix, as Multics
 * made quad.list of quad.fortran. */
static char *list_output_name(const char *source)
{
    const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
    const char *dot = strrchr(base, '.');
    size_t n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
    return xasprintf("%.*s.list", (int)n, base);
}

int launcher_list(const struct options *o)
{
    char *cause = NULL, *path = o->target ? xstrdup(o->target) : list_find_session(o->list, &cause);
    char *out_name = o->output != NULL ? xstrdup(o->output) : list_output_name(o->list);
    /* The listing never replaces what it is made from. */
    if (path != NULL && (launcher_refuse_same(out_name, path, "the input file") != 0 ||
                         launcher_refuse_same(out_name, o->list, "the source file") != 0)) {
        free(out_name);
        free(path);
        return 2;
    }
    if (path != NULL && strcmp(out_name, "-") != 0 &&
        save_check(out_name, SAVE_THROUGH, &cause) < 0) {
        free(path);
        path = NULL; /* said below */
    }
    long file = -1;
    struct session *s = path != NULL ? list_open(path, o->list, &file, &cause) : NULL;
    if (s == NULL) {
        free(out_name);
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        free(path);
        return 1;
    }
    s->raw_names = o->no_demangle;
    char *where = NULL;
    const struct source_file *src = lines_source(s, (uint32_t)file, &where);
    if (src == NULL && access(o->list, R_OK) == 0) {
        /* The user named a file that is there: that is where it is. */
        char *again = NULL;
        src = source_find(o->list, NULL, &again);
        free(again);
    }
    struct listing_opts lo = {path, where, o->exclude, o->line_length, o->from, o->to};
    bool to_stdout = strcmp(out_name, "-") == 0;
    /* A file is written as a session is: whole or not at all, with the mode
     * of the listing it replaces, never over another user's in /tmp. */
    char *text = NULL;
    size_t len = 0;
    FILE *out = to_stdout ? stdout : open_memstream(&text, &len);
    int status = 0;
    if (out == NULL) {
        fprintf(stderr, "profil: cannot write %s: %s\n", out_name, strerror(errno));
        status = 1;
    } else {
        report_listing(s, (uint32_t)file, src, &lo, out);
        char *as = NULL;
        bool kept;
        if (to_stdout) {
            status = fflush(stdout) == 0 ? 0 : 1;
        } else if (fclose(out) != 0) {
            fprintf(stderr, "profil: cannot write %s: %s\n", out_name, strerror(errno));
            status = 1;
        } else if (save_write(out_name, (const uint8_t *)text, len, SAVE_THROUGH, &kept, &as,
                              &cause) < 0) {
            fprintf(stderr, "profil: %s\n", cause);
            free(cause);
            status = 1;
        } else {
            fprintf(stderr, "profil: listing of %s written to %s\n",
                    quote(lines_file(s, (uint32_t)file)), quote(as));
        }
        free(as);
    }
    free(text);
    if (src == NULL && status == 0)
        fprintf(stderr, "profil: source %s\n", where ? quote(where) : "not found");
    free(out_name);
    free(where);
    free(path);
    session_free(s);
    return status;
}
