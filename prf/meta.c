#include "config.h"

#include "prf/meta.h"
#include "session/limits.h"
#include "session/session.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

/* Replace KEY in OBJ. */
static void meta_set(cJSON *obj, const char *key, cJSON *value)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, value);
    else
        cJSON_AddItemToObject(obj, key, value);
}

static cJSON *meta_string_or_null(const char *s)
{
    return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* How the program ended, in a word: null while it ran on, as a program
 * profil started does when the session is saved before its end; an
 * attached one says "running" (profil let go of it) or "exited" (it ended,
 * how is not known). */
static cJSON *meta_exit_status(const struct session *s)
{
    if (s->exit_kind == EXIT_ABORTED)
        return cJSON_CreateString("aborted");
    if (s->exit_kind == EXIT_TERMINATED)
        return cJSON_CreateString("terminated");
    if (s->exit_unknown)
        return cJSON_CreateString("exited");
    return s->attached ? cJSON_CreateString("running") : cJSON_CreateNull();
}

/* An attached session says so, and when, and what it could not see. */
static void meta_attached(const struct session *s, cJSON *obj)
{
    if (!s->attached)
        return;
    char date[64] = "";
    time_t t = (time_t)s->attached_at;
    struct tm tm;
    if (s->attached_at != 0 && gmtime_r(&t, &tm) != NULL)
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta_set(obj, "attached", cJSON_CreateBool(true));
    meta_set(obj, "attached_at", date[0] ? cJSON_CreateString(date) : cJSON_CreateNull());
    meta_set(obj, "attached_note",
             cJSON_CreateString("profil attached to a running process: its start was not seen"));
}

/* The attached facts of a file's metadata, as meta_attached wrote them. */
static void meta_get_attached(struct session *s, const cJSON *obj)
{
    s->attached = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "attached"));
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(obj, "attached_at");
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (s->attached && cJSON_IsString(at) && at->valuestring != NULL &&
        strptime(at->valuestring, "%Y-%m-%dT%H:%M:%SZ", &tm) != NULL)
        s->attached_at = (int64_t)timegm(&tm);
    const cJSON *exit = cJSON_GetObjectItemCaseSensitive(obj, "exit");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(exit, "status");
    s->exit_unknown = s->exit_kind == EXIT_NONE && cJSON_IsString(status) &&
                      status->valuestring != NULL && strcmp(status->valuestring, "exited") == 0;
}

char *meta_to_json(const struct session *s)
{
    /* A session read from a file keeps the facts of the machine it ran on. */
    cJSON *obj = s->meta_json != NULL ? cJSON_Parse(s->meta_json) : NULL;
    if (obj == NULL || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        obj = cJSON_CreateObject();
        struct utsname u;
        if (uname(&u) == 0) {
            meta_set(obj, "host", cJSON_CreateString(u.nodename));
            meta_set(obj, "kernel", cJSON_CreateString(u.release));
            meta_set(obj, "machine", cJSON_CreateString(u.machine));
        }
        meta_set(obj, "profil_version", cJSON_CreateString(PACKAGE_VERSION));
    }
    meta_set(obj, "program", meta_string_or_null(s->program));
    cJSON *args = cJSON_CreateArray();
    for (size_t i = 0; i < s->nargs; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(s->args[i]));
    meta_set(obj, "args", args);
    meta_set(obj, "comment", meta_string_or_null(s->comment));
    meta_set(obj, "interpreter", meta_string_or_null(s->interpreter));
    const char *kernel_note = s->kernel_module != UINT32_MAX && s->kernel_module < s->nmodules
                                  ? s->modules[s->kernel_module]->load_error
                                  : NULL;
    meta_set(obj, "kernel_note",
             kernel_note ? cJSON_CreateString(kernel_note) : cJSON_CreateNull());
    char date[64] = "";
    time_t t = (time_t)s->start_time;
    struct tm tm;
    if (s->start_time != 0 && gmtime_r(&t, &tm) != NULL)
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta_set(obj, "date", date[0] ? cJSON_CreateString(date) : cJSON_CreateNull());
    meta_set(obj, "driver", meta_string_or_null(s->driver));
    meta_set(obj, "clock", cJSON_CreateString(s->clock == CLOCK_KIND_CPU ? "cpu" : "wall"));
    meta_set(obj, "interval_us", cJSON_CreateNumber(s->interval_us));
    meta_set(obj, "jitter_pct",
             s->jitter_known ? cJSON_CreateNumber(s->jitter_pct) : cJSON_CreateNull());
    meta_set(
        obj, "bucket_paragraphs",
        cJSON_CreateNumber(s->asked_paragraphs ? s->asked_paragraphs : s->view.bucket_paragraphs));
    meta_set(obj, "pid", cJSON_CreateNumber(s->pid));
    meta_set(obj, "threads", cJSON_CreateNumber(s->max_threads));
    meta_set(obj, "duration_s", cJSON_CreateNumber(s->duration_s));
    cJSON *exit = cJSON_CreateObject();
    cJSON_AddItemToObject(exit, "status", meta_exit_status(s));
    cJSON_AddItemToObject(exit, "code",
                          s->exit_kind == EXIT_TERMINATED ? cJSON_CreateNumber(s->exit_code)
                                                          : cJSON_CreateNull());
    cJSON_AddItemToObject(exit, "signal",
                          s->exit_kind == EXIT_ABORTED
                              ? cJSON_CreateString(session_signal_name(s->exit_signal))
                              : cJSON_CreateNull());
    meta_set(obj, "exit", exit);
    meta_attached(s, obj);
    if (s->unwinds > 0) { /* a live run: what unwinding cost the front end */
        cJSON *u = cJSON_CreateObject();
        cJSON_AddNumberToObject(u, "stacks", (double)s->unwinds);
        cJSON_AddNumberToObject(u, "median_us", session_unwind_percentile(s, 50));
        cJSON_AddNumberToObject(u, "p99_us", session_unwind_percentile(s, 99));
        meta_set(obj, "unwind", u);
    }
    if (s->nmarks > 0) {
        cJSON *marks = cJSON_CreateArray();
        for (size_t i = 0; i < s->nmarks; i++) {
            cJSON *m = cJSON_CreateObject();
            cJSON_AddNumberToObject(m, "t_s", s->marks[i].t_s);
            cJSON_AddStringToObject(m, "text", s->marks[i].text);
            cJSON_AddItemToArray(marks, m);
        }
        meta_set(obj, "marks", marks);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "marks");
    }
    if (s->classic) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddNumberToObject(c, "dos_pa", s->classic_dos_pa);
        cJSON_AddNumberToObject(c, "prog_high_pa", s->classic_high_pa);
        meta_set(obj, "classic", c);
    }
    char *text = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    if (text == NULL)
        return xstrdup("{}");
    char *copy = xstrdup(text);
    cJSON_free(text);
    return copy;
}

/* A string member, or NULL when absent or null; any other type is an error. */
static int meta_get_string(const cJSON *obj, const char *key, char **out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (item == NULL || cJSON_IsNull(item))
        return 0;
    if (!cJSON_IsString(item) || item->valuestring == NULL)
        return -1;
    free(*out);
    *out = xstrdup(item->valuestring);
    return 0;
}

/* Why the kernel has no names, saved with its module: where the reader
 * finds the kernel module (MODS comes before META). */
static int meta_get_kernel_note(struct session *s, const cJSON *obj)
{
    char *note = NULL;
    if (meta_get_string(obj, "kernel_note", &note) < 0)
        return -1;
    if (note != NULL && s->kernel_module < s->nmodules) {
        free(s->modules[s->kernel_module]->load_error);
        s->modules[s->kernel_module]->load_error = note;
    } else {
        free(note);
    }
    return 0;
}

/* The latest time a mark of S may have: the run's duration (read from the
 * header before the metadata), and LIMIT_MARK_SLACK_S; LIMIT_FRAMES frames
 * when the file does not say how long the run was. */
static double meta_marks_end(const struct session *s)
{
    if (s->duration_s > 0 && isfinite(s->duration_s))
        return s->duration_s + LIMIT_MARK_SLACK_S;
    return (double)LIMIT_FRAMES * ((double)SESSION_FRAME_NS / 1e9) + LIMIT_MARK_SLACK_S;
}

/* The marks of the run: an array of {t_s, text}, at most LIMIT_MARKS of
 * them, each text at most LIMIT_MARK_TEXT bytes, each time a finite
 * number of seconds within the run: a mark at 1e308 s made the report's
 * times overflow.  0, or -1 with *cause. */
static int meta_get_marks(struct session *s, const cJSON *obj, char **cause)
{
    const cJSON *marks = cJSON_GetObjectItemCaseSensitive(obj, "marks");
    if (marks == NULL || cJSON_IsNull(marks))
        return 0;
    if (!cJSON_IsArray(marks)) {
        *cause = xstrdup("metadata \"marks\" is not an array");
        return -1;
    }
    if (cJSON_GetArraySize(marks) > LIMIT_MARKS) {
        *cause = xasprintf("metadata holds %d marks; the limit is %u", cJSON_GetArraySize(marks),
                           LIMIT_MARKS);
        return -1;
    }
    session_marks_free(s);
    const cJSON *m;
    cJSON_ArrayForEach (m, marks) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "t_s");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(m, "text");
        if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0 ||
            !cJSON_IsString(text) || text->valuestring == NULL ||
            strlen(text->valuestring) > LIMIT_MARK_TEXT) {
            session_marks_free(s);
            *cause = xasprintf("metadata has a mark that is not {\"t_s\": seconds, \"text\": "
                               "at most %u bytes}",
                               LIMIT_MARK_TEXT);
            return -1;
        }
        if (t->valuedouble > meta_marks_end(s)) {
            session_marks_free(s);
            *cause = s->duration_s > 0
                         ? xasprintf("metadata is damaged: a mark at %g s, after the end of "
                                     "a run of %.3f s",
                                     t->valuedouble, s->duration_s)
                         : xasprintf("metadata is damaged: a mark at %g s, later than a "
                                     "session may last",
                                     t->valuedouble);
            return -1;
        }
        session_mark_add(s, t->valuedouble, text->valuestring);
    }
    return 0;
}

/* Whether JSON is small enough to parse: at most LIMIT_META_DEPTH deep and
 * LIMIT_META_VALUES values, counted before cJSON makes a node of each (a
 * 4 MiB array of zeros is two million nodes, 160 MB).  0, or -1 with *cause. */
static int meta_check_size(const char *json, char **cause)
{
    size_t depth = 0, values = 1;
    bool in_string = false;
    for (const char *p = json; *p != '\0'; p++) {
        if (in_string) {
            if (*p == '\\' && p[1] != '\0')
                p++;
            else if (*p == '"')
                in_string = false;
            continue;
        }
        switch (*p) {
        case '"': in_string = true; break;
        case '[':
        case '{':
            if (++depth > LIMIT_META_DEPTH) {
                *cause =
                    xasprintf("metadata chunk: JSON nested more than %d deep", LIMIT_META_DEPTH);
                return -1;
            }
            values++;
            break;
        case ']':
        case '}':
            if (depth > 0)
                depth--;
            break;
        case ',': values++; break;
        default: break;
        }
    }
    if (values > LIMIT_META_VALUES) {
        *cause = xasprintf("metadata chunk: about %zu JSON values; the limit is %u", values,
                           LIMIT_META_VALUES);
        return -1;
    }
    return 0;
}

int meta_from_json(struct session *s, const char *json, char **cause)
{
    if (meta_check_size(json, cause) < 0)
        return -1;
    cJSON *obj = cJSON_Parse(json);
    if (obj == NULL || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        *cause = xstrdup("metadata is not a JSON object");
        return -1;
    }
    int r = -1;
    if (meta_get_string(obj, "program", &s->program) < 0 ||
        meta_get_string(obj, "comment", &s->comment) < 0 ||
        meta_get_string(obj, "interpreter", &s->interpreter) < 0 ||
        meta_get_kernel_note(s, obj) < 0 || meta_get_string(obj, "driver", &s->driver) < 0) {
        *cause = xstrdup("metadata has a field of the wrong type");
        goto out;
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(obj, "args");
    if (args != NULL && !cJSON_IsNull(args)) {
        if (!cJSON_IsArray(args)) {
            *cause = xstrdup("metadata \"args\" is not an array");
            goto out;
        }
        size_t n = (size_t)cJSON_GetArraySize(args);
        char **v = xcalloc(n + 1, sizeof *v);
        size_t k = 0;
        const cJSON *a;
        cJSON_ArrayForEach (a, args) {
            if (!cJSON_IsString(a) || a->valuestring == NULL)
                break;
            v[k++] = xstrdup(a->valuestring);
        }
        if (k != n) {
            for (size_t i = 0; i < k; i++)
                free(v[i]);
            free(v);
            *cause = xstrdup("metadata \"args\" holds something other than strings");
            goto out;
        }
        for (size_t i = 0; i < s->nargs; i++)
            free(s->args[i]);
        free(s->args);
        s->args = v;
        s->nargs = n;
    }
    meta_get_attached(s, obj);
    const cJSON *jitter = cJSON_GetObjectItemCaseSensitive(obj, "jitter_pct");
    if (cJSON_IsNumber(jitter) && jitter->valuedouble >= 0 && jitter->valuedouble < 100) {
        s->jitter_pct = jitter->valuedouble;
        s->jitter_known = true;
    }
    if (meta_get_marks(s, obj, cause) < 0)
        goto out;
    /* A 1983 file saved again keeps PROFIL's own words, and stays without hits. */
    const cJSON *classic = cJSON_GetObjectItemCaseSensitive(obj, "classic");
    if (cJSON_IsObject(classic)) {
        const cJSON *dos = cJSON_GetObjectItemCaseSensitive(classic, "dos_pa");
        const cJSON *high = cJSON_GetObjectItemCaseSensitive(classic, "prog_high_pa");
        s->classic = true;
        if (cJSON_IsNumber(dos) && dos->valuedouble >= 0 && dos->valuedouble <= 65535)
            s->classic_dos_pa = (uint16_t)dos->valuedouble;
        if (cJSON_IsNumber(high) && high->valuedouble >= 0 && high->valuedouble <= 65535)
            s->classic_high_pa = (uint16_t)high->valuedouble;
    }
    free(s->meta_json);
    s->meta_json = xstrdup(json);
    r = 0;
out:
    cJSON_Delete(obj);
    return r;
}
