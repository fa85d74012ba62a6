/* --export and --diff: a session file, or two, written for other tools or compared. */
#include "config.h"

#include "analysis/diff.h"
#include "export/export.h"
#include "launcher/launcher.h"
#include "prf/classic.h"
#include "prf/prf.h"
#include "report/report.h"
#include "analysis/calltree.h"
#include "session/view.h"
#include "util/quote.h"
#include "util/save.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write LEN bytes of DATA to the export OUT: into it when it is a FIFO or
 * a character device (/dev/stdout), else a file replaced whole or not at
 * all (keeping the previous one as OUT.old when KEEP_OLD): 0, or 1 after
 * one line.  In a sticky directory where another user had taken the name,
 * the file goes to another one, which is said. */
static int main_save(const char *out, const uint8_t *data, size_t len, bool keep_old)
{
    bool kept;
    char *as = NULL, *cause = NULL;
    unsigned flags = SAVE_THROUGH | (keep_old ? SAVE_KEEP_OLD : 0);
    int r = save_write(out, data, len, flags, &kept, &as, &cause);
    if (kept)
        fprintf(stderr, "profil: kept the previous %s as %s.old\n", out, out);
    if (r < 0) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        return 1;
    }
    if (strcmp(as, out) != 0)
        fprintf(stderr, "profil: %s was taken: written to %s\n", out, as);
    free(as);
    return 0;
}

/* Write LEN bytes of DATA to -o: '-' is standard output, a file is
 * replaced whole or not at all. */
static int main_export_write(const struct options *o, const uint8_t *data, size_t len)
{
    if (strcmp(o->output, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            fprintf(stderr, "profil: standard output: %s\n", strerror(errno));
            return 1;
        }
        return 0;
    }
    return main_save(o->output, data, len, false);
}

/* --diff BEFORE AFTER: their routines compared, as text or JSON, or as a
 * page (--export=html). */
int launcher_diff(struct options *o)
{
    char *cause = NULL;
    if (o->export_format != NULL &&
        (launcher_refuse_same(o->output, o->diff_before, "the input file") != 0 ||
         launcher_refuse_same(o->output, o->diff_after, "the input file") != 0))
        return 2;
    if (o->export_format != NULL && strcmp(o->output, "-") != 0 &&
        save_check(o->output, SAVE_THROUGH, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        return 1;
    }
    struct session *a = launcher_read(o->diff_before, o);
    struct session *b = a != NULL ? launcher_read(o->diff_after, o) : NULL;
    if (b == NULL) {
        session_free(a);
        return 1;
    }
    if (o->export_format != NULL) { /* html: AFTER's flame graph, coloured by the diff */
        char *text = export_html(b, o->diff_after, a, o->diff_before);
        session_free(a);
        session_free(b);
        int r = main_export_write(o, (const uint8_t *)text, strlen(text));
        free(text);
        return r;
    }
    struct diff *d = diff_sessions(a, b);
    if (o->json) {
        char *text = diff_json(d, o->diff_before, o->diff_after);
        printf("%s\n", text);
        free(text);
    } else {
        diff_print(d, o->diff_before, o->diff_after, stdout);
    }
    diff_free(d);
    session_free(a);
    session_free(b);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* Write a text export of S to -o, as main_export_write. */
static int main_export_text(const struct options *o, struct session *s,
                            void (*write)(struct session *, FILE *))
{
    char *data = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&data, &len);
    if (mem == NULL) {
        fprintf(stderr, "profil: %s\n", strerror(errno));
        session_free(s);
        return 1;
    }
    write(s, mem);
    fclose(mem);
    session_free(s);
    int r = main_export_write(o, (const uint8_t *)data, len);
    free(data);
    return r;
}

int launcher_export(const struct options *o)
{
    char *cause = NULL;
    if (launcher_refuse_same(o->output, o->target, "the input file") != 0)
        return 2;
    if (strcmp(o->output, "-") != 0 && save_check(o->output, SAVE_THROUGH, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        return 1;
    }
    struct session *s = launcher_read(o->target, o);
    if (s == NULL)
        return 1;
    uint32_t cap = strcmp(o->export_format, "classic") != 0 ? session_depth_cap(s, true) : 0;
    if (cap > 0)
        fprintf(stderr,
                "profil: %s: stacks deeper than %u frames are cut to their innermost %u, under "
                "[truncated]: in full the export would cost more than the file allows\n",
                quote(o->target), cap, cap);
    if (strcmp(o->export_format, "folded") == 0) {
        if (!s->has_stacks) {
            fprintf(stderr,
                    "profil: %s: this session has no stacks (recorded with --no-stacks, "
                    "or by an older profil): nothing to fold\n",
                    o->target);
            session_free(s);
            return 1;
        }
        return main_export_text(o, s, export_folded);
    }
    if (strcmp(o->export_format, "pprof") == 0) {
        uint8_t *data = NULL;
        size_t len = 0;
        int r = export_pprof(s, &data, &len, &cause);
        session_free(s);
        if (r < 0) {
            fprintf(stderr, "profil: %s\n", quote(cause));
            free(cause);
            return 1;
        }
        r = main_export_write(o, data, len);
        free(data);
        return r;
    }
    if (strcmp(o->export_format, "callgrind") == 0)
        return main_export_text(o, s, export_callgrind);
    if (strcmp(o->export_format, "html") == 0) {
        char *text = export_html(s, o->target, NULL, NULL);
        session_free(s);
        int r = main_export_write(o, (const uint8_t *)text, strlen(text));
        free(text);
        return r;
    }
    if (strcmp(o->export_format, "speedscope") == 0) {
        char *text = export_speedscope(s);
        session_free(s);
        int r = main_export_write(o, (const uint8_t *)text, strlen(text));
        free(text);
        return r;
    }
    uint8_t *data;
    size_t len;
    const char *saturated;
    classic_write_buffer(s, &data, &len, &saturated);
    int r = main_save(o->output, data, len, true);
    free(data);
    if (r == 0 && saturated != NULL)
        fprintf(stderr,
                "profil: %s: %s and perhaps other values did not fit in 16 bits: "
                "saturated at 65535\n",
                o->output, saturated);
    if (r == 0 && s->view.nbuckets > 65535)
        fprintf(stderr, "profil: %s: only the first 65535 of %zu buckets fit\n", o->output,
                s->view.nbuckets);
    session_free(s);
    return r;
}
