#include "config.h"

#include "elf/source.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why a place was passed over: one of these, or a negative errno (0 when it
 * was not: the file was read). */
enum {
    SOURCE_ABSENT = 1,
    SOURCE_NOT_REGULAR = 2,
    SOURCE_TOO_LARGE = 3,
    SOURCE_TOO_MANY_LINES = 4,
};

/* A string-keyed table: open addressing, linear probing, at most half full. */
struct source_slot {
    char *key; /* owned; NULL in an empty slot */
    uint64_t hash;
    void *value;
};

struct source_table {
    struct source_slot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t n;
};

/* A source file with the copy its lines point into. */
struct source_owned {
    struct source_file f;
    char *copy;
};

struct source_dir {
    char *dir;
    char *note; /* "--source-dir DIR", for the where line */
};

struct source_map {
    char *from; /* resolved: no trailing '/', except "/" itself */
    char *to;
    char *note; /* "--prefix-map SPEC" */
};

/* A text a .PRF carried, until it is asked for and becomes a file. */
struct source_text {
    char *text; /* owned; NULL once FILE has it, or when refused */
    size_t len;
    int why; /* 0, or why it is refused */
    struct source_file *file;
};

/* What source_find answers for one resolved name. */
struct source_answer {
    struct source_file *file; /* NULL: none found */
    char *where;
};

/* One place looked at, for the where line. */
struct source_try {
    char *path;
    int why;
    const char *note; /* the option that made it, or NULL */
};

struct source_tries {
    struct source_try *t;
    size_t n;
    size_t alloc;
};

static struct source_dir *source_dirs;
static size_t source_ndirs;
static struct source_map *source_maps;
static size_t source_nmaps;
static struct source_table source_texts;   /* resolved name -> struct source_text */
static struct source_table source_answers; /* resolved name -> struct source_answer */
static struct source_owned **source_files; /* every file handed out, until source_reset */
static size_t source_nfiles;
static size_t source_files_alloc;

static uint64_t source_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

/* The slot holding KEY, or the empty one where it would go. */
static struct source_slot *source_table_slot(const struct source_table *t, const char *key,
                                             uint64_t h)
{
    size_t mask = t->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct source_slot *s = &t->slots[i];
        if (s->key == NULL || (s->hash == h && strcmp(s->key, key) == 0))
            return s;
    }
}

static void *source_table_get(const struct source_table *t, const char *key)
{
    if (t->cap == 0)
        return NULL;
    struct source_slot *s = source_table_slot(t, key, source_hash(key));
    return s->key != NULL ? s->value : NULL;
}

/* Set KEY (copied) to VALUE; returns the value it had, or NULL. */
static void *source_table_put(struct source_table *t, const char *key, void *value)
{
    if (2 * (t->n + 1) > t->cap) {
        struct source_table bigger = {xcalloc(t->cap ? 2 * t->cap : 16, sizeof *t->slots),
                                      t->cap ? 2 * t->cap : 16, t->n};
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].key != NULL)
                *source_table_slot(&bigger, t->slots[i].key, t->slots[i].hash) = t->slots[i];
        free(t->slots);
        *t = bigger;
    }
    uint64_t h = source_hash(key);
    struct source_slot *s = source_table_slot(t, key, h);
    if (s->key != NULL) {
        void *old = s->value;
        s->value = value;
        return old;
    }
    *s = (struct source_slot){xstrdup(key), h, value};
    t->n++;
    return NULL;
}

/* Empty T, handing each value to FREE_VALUE. */
static void source_table_clear(struct source_table *t, void (*free_value)(void *))
{
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].key != NULL) {
            free(t->slots[i].key);
            free_value(t->slots[i].value);
        }
    }
    free(t->slots);
    *t = (struct source_table){NULL, 0, 0};
}

static void source_answer_free(void *p)
{
    struct source_answer *a = p;
    free(a->where);
    free(a);
}

/* The files an answer gave stay with source_files: only the answers go. */
static void source_text_free(void *p)
{
    struct source_text *e = p;
    free(e->text);
    free(e);
}

/* Settings changed: what was not found may be found now, and the reverse. */
static void source_forget_answers(void)
{
    source_table_clear(&source_answers, source_answer_free);
}

/* PATH made whole: joined to DIR when relative (DIR may be NULL), empty and
 * "." components dropped, each ".." taking the component before it away
 * where there is one ("/.." is "/"; a relative name keeps its leading
 * ".."s).  Lexical, as gdb's rewrite_source_path is.  The caller owns it. */
static char *source_resolve(const char *dir, const char *path)
{
    bool join = path[0] != '/' && dir != NULL && dir[0] != '\0';
    const char *part[2] = {join ? dir : path, join ? path : NULL};
    char *out = xmalloc((join ? strlen(dir) : 0) + strlen(path) + 3);
    bool absolute = part[0][0] == '/';
    size_t o = 0;
    if (absolute)
        out[o++] = '/';
    size_t base = o;
    for (int k = 0; k < 2 && part[k] != NULL; k++) {
        const char *p = part[k];
        while (*p != '\0') {
            while (*p == '/')
                p++;
            const char *c = p;
            while (*p != '\0' && *p != '/')
                p++;
            size_t n = (size_t)(p - c);
            if (n == 0 || (n == 1 && c[0] == '.'))
                continue;
            if (n == 2 && c[0] == '.' && c[1] == '.') {
                size_t last = o;
                while (last > base && out[last - 1] != '/')
                    last--;
                bool dotdot = o - last == 2 && out[last] == '.' && out[last + 1] == '.';
                if (o > base && !dotdot) {
                    o = last > base ? last - 1 : base;
                    continue;
                }
                if (absolute)
                    continue;
            }
            if (o > base)
                out[o++] = '/';
            memcpy(out + o, c, n);
            o += n;
        }
    }
    if (o == 0)
        out[o++] = '.';
    out[o] = '\0';
    return out;
}

void source_add_dir(const char *dir)
{
    source_dirs = xreallocarray(source_dirs, source_ndirs + 1, sizeof *source_dirs);
    source_dirs[source_ndirs++] =
        (struct source_dir){xstrdup(dir), xasprintf("--source-dir %s", dir)};
    source_forget_answers();
}

int source_add_prefix_map(const char *spec, char **cause)
{
    const char *eq = strchr(spec, '=');
    if (eq == NULL || eq == spec) {
        *cause = xasprintf("--prefix-map wants OLD=NEW with OLD not empty, not '%s'", quote(spec));
        return -EINVAL;
    }
    char *from = xstrndup(spec, (size_t)(eq - spec));
    source_maps = xreallocarray(source_maps, source_nmaps + 1, sizeof *source_maps);
    source_maps[source_nmaps++] = (struct source_map){
        source_resolve(NULL, from),
        xstrdup(eq + 1),
        xasprintf("--prefix-map %s", spec),
    };
    free(from);
    source_forget_answers();
    return 0;
}

void source_add_embedded(const char *path, const char *text, size_t len)
{
    struct source_text *e = xcalloc(1, sizeof *e);
    if (len > SOURCE_MAX_BYTES) {
        e->why = SOURCE_TOO_LARGE;
    } else {
        e->text = xmalloc(len + 1);
        memcpy(e->text, text, len);
        e->text[len] = '\0';
        e->len = len;
    }
    char *name = source_resolve(NULL, path);
    struct source_text *old = source_table_put(&source_texts, name, e);
    if (old != NULL)
        source_text_free(old);
    free(name);
    source_forget_answers();
}

/* Split F's text into lines: 0, or SOURCE_TOO_MANY_LINES before anything is
 * allocated.  The copy holds every line and its NUL: no more than the text
 * and its NUL, since each line's NUL takes its newline's place, but for the
 * last line's when the text does not end with one. */
static int source_split(struct source_owned *o)
{
    struct source_file *f = &o->f;
    const char *p = f->text, *end = f->text + f->len;
    size_t n = 0;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
        if (++n > SOURCE_MAX_LINES)
            return SOURCE_TOO_MANY_LINES;
    if (f->len > 0 && end[-1] != '\n')
        n++;
    if (n > SOURCE_MAX_LINES)
        return SOURCE_TOO_MANY_LINES;
    o->copy = xmalloc(f->len + 1);
    f->lines = xreallocarray(NULL, n + 1, sizeof *f->lines);
    char *out = o->copy;
    size_t k = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t m = (size_t)((nl != NULL ? nl : end) - p);
        if (nl != NULL && m > 0 && p[m - 1] == '\r')
            m--;
        f->lines[k++] = out;
        memcpy(out, p, m);
        out += m;
        *out++ = '\0';
        p = nl != NULL ? nl + 1 : end;
    }
    f->lines[k] = out;
    f->nlines = (uint32_t)k;
    return 0;
}

/* Hand out O until source_reset. */
static struct source_file *source_keep(struct source_owned *o)
{
    if (source_nfiles == source_files_alloc) {
        source_files_alloc = source_files_alloc ? 2 * source_files_alloc : 16;
        source_files = xreallocarray(source_files, source_files_alloc, sizeof *source_files);
    }
    source_files[source_nfiles++] = o;
    return &o->f;
}

static void source_owned_free(struct source_owned *o)
{
    if (o == NULL)
        return;
    free(o->f.path);
    free(o->f.text);
    free(o->f.lines);
    free(o->copy);
    free(o);
}

/* Make E, a text a .PRF carried under NAME, a file: 0, or why not. */
static int source_from_text(struct source_text *e, const char *name)
{
    if (e->file != NULL || e->why != 0)
        return e->why;
    struct source_owned *o = xcalloc(1, sizeof *o);
    o->f.text = e->text;
    o->f.len = e->len;
    e->text = NULL;
    e->why = source_split(o);
    if (e->why != 0) {
        source_owned_free(o);
        return e->why;
    }
    o->f.path = xstrdup(name);
    o->f.embedded = true;
    e->file = source_keep(o);
    return 0;
}

/* Why a name cannot be opened, in the terms of the where line. */
static int source_open_error(int err)
{
    if (err == ENOENT || err == ENOTDIR)
        return SOURCE_ABSENT;
    if (err == ENXIO) /* a socket, or a FIFO's write end */
        return SOURCE_NOT_REGULAR;
    return -err;
}

/* Read the regular file at PATH whole into *OUT: 0, or why not.  stat comes
 * first, so that nothing but a regular file is ever opened (opening a device
 * can do things); the open does not block and is checked again, in case the
 * name changed between the two. */
static int source_read(const char *path, struct source_owned **out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return source_open_error(errno);
    if (!S_ISREG(st.st_mode))
        return SOURCE_NOT_REGULAR;
    if ((uint64_t)st.st_size > SOURCE_MAX_BYTES)
        return SOURCE_TOO_LARGE;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return source_open_error(errno);
    int r = 0;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        r = -errno;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        r = SOURCE_NOT_REGULAR;
        goto out;
    }
    if ((uint64_t)st.st_size > SOURCE_MAX_BYTES) {
        r = SOURCE_TOO_LARGE;
        goto out;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    /* The size is a hint: the file may grow, and /proc's say 0. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    buf = xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap > SOURCE_MAX_BYTES) {
                r = SOURCE_TOO_LARGE;
                goto out;
            }
            cap = cap <= SOURCE_MAX_BYTES / 2 ? 2 * cap : SOURCE_MAX_BYTES + 1;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            r = -errno;
            goto out;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    struct source_owned *o = xcalloc(1, sizeof *o);
    o->f.text = n + 1 < cap ? xrealloc(buf, n + 1) : buf;
    o->f.len = n;
    buf = NULL;
    r = source_split(o);
    if (r != 0) {
        source_owned_free(o);
        goto out;
    }
    o->f.path = xstrdup(path);
    o->f.mtime = (int64_t)st.st_mtim.tv_sec;
    *out = o;
out:
    free(buf);
    close(fd);
    return r;
}

/* Write down that PATH (now T's) was passed over for WHY. */
static void source_tried(struct source_tries *t, char *path, int why, const char *note)
{
    if (t->n == t->alloc) {
        t->alloc = t->alloc ? 2 * t->alloc : 16;
        t->t = xreallocarray(t->t, t->alloc, sizeof *t->t);
    }
    t->t[t->n++] = (struct source_try){path, why, note};
}

/* Look at PATH (owned by the call), made by the option NOTE: the file, or
 * NULL with the attempt written down in T. */
static struct source_file *source_attempt(struct source_tries *t, char *path, const char *note)
{
    struct source_owned *o = NULL;
    int why = source_read(path, &o);
    if (why == 0) {
        free(path);
        return source_keep(o);
    }
    source_tried(t, path, why, note);
    return NULL;
}

/* NAME rewritten by the first map whose FROM is a prefix of it at a
 * component boundary, into *NOTE; NULL when none is. */
static char *source_map_name(const char *name, const char **note)
{
    for (size_t i = 0; i < source_nmaps; i++) {
        const struct source_map *m = &source_maps[i];
        size_t n = strlen(m->from);
        if (strncmp(name, m->from, n) != 0)
            continue;
        const char *rest = name + n;
        if (m->from[n - 1] != '/' && rest[0] != '/' && rest[0] != '\0')
            continue;
        char *joined = xasprintf("%s/%s", m->to, rest);
        char *mapped = source_resolve(NULL, joined);
        free(joined);
        *note = m->note;
        return mapped;
    }
    return NULL;
}

static void source_append(char **s, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void source_append(char **s, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *more = xvasprintf(fmt, ap);
    va_end(ap);
    size_t m = strlen(more);
    *s = xrealloc(*s, *len + m + 1);
    memcpy(*s + *len, more, m + 1);
    *len += m;
    free(more);
}

static const char *source_reason(int why, char *buf, size_t size)
{
    switch (why) {
    case SOURCE_NOT_REGULAR: return "not a regular file";
    case SOURCE_TOO_LARGE:
        snprintf(buf, size, "larger than %zu MiB", SOURCE_MAX_BYTES >> 20);
        return buf;
    case SOURCE_TOO_MANY_LINES:
        snprintf(buf, size, "more than %u lines", SOURCE_MAX_LINES);
        return buf;
    default: return strerror(-why);
    }
}

/* The where line: every place in order, each option's places ended by its
 * name, and the plain misses between a directory's first and last place
 * left out as "...".  Control characters a name may carry become '?', so
 * that it stays one line. */
static char *source_where(const struct source_tries *t)
{
    char *s = NULL, buf[64];
    size_t len = 0;
    bool elided = false;
    source_append(&s, &len, "not found:");
    for (size_t i = 0; i < t->n; i++) {
        const struct source_try *y = &t->t[i];
        bool first = i == 0 || y->note == NULL || t->t[i - 1].note != y->note;
        bool last = i + 1 == t->n || y->note == NULL || t->t[i + 1].note != y->note;
        if (!first && !last && y->why == SOURCE_ABSENT) {
            if (!elided)
                source_append(&s, &len, " ...,");
            elided = true;
            continue;
        }
        elided = false;
        source_append(&s, &len, " %s", y->path);
        if (y->why != SOURCE_ABSENT)
            source_append(&s, &len, " (%s)", source_reason(y->why, buf, sizeof buf));
        if (last && y->note != NULL)
            source_append(&s, &len, " (%s)", y->note);
        if (i + 1 < t->n)
            source_append(&s, &len, ",");
    }
    for (char *p = s; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return s;
}

/* Look for the file resolved as NAME, in the order source.h gives. */
static struct source_answer *source_look(const char *name)
{
    struct source_answer *a = xcalloc(1, sizeof *a);
    struct source_tries t = {NULL, 0, 0};
    struct source_file *f = NULL;
    struct source_text *e = source_table_get(&source_texts, name);
    if (e != NULL) {
        int why = source_from_text(e, name);
        if (why == 0) {
            a->file = e->file;
            return a;
        }
        source_tried(&t, xstrdup("the embedded text"), why, NULL);
    }
    const char *note = NULL;
    char *mapped = source_map_name(name, &note);
    if (mapped != NULL)
        f = source_attempt(&t, mapped, note);
    if (f == NULL)
        f = source_attempt(&t, xstrdup(name), NULL);
    for (size_t d = 0; f == NULL && d < source_ndirs; d++) {
        const char *tail = name;
        while (tail[0] == '/')
            tail++;
        /* A leading ".." would climb out of the directory. */
        while (strncmp(tail, "../", 3) == 0)
            tail += 3;
        while (f == NULL && tail[0] != '\0' && strcmp(tail, "..") != 0) {
            f = source_attempt(&t, source_resolve(source_dirs[d].dir, tail), source_dirs[d].note);
            const char *slash = strchr(tail, '/');
            tail = slash != NULL ? slash + 1 : "";
        }
    }
    if (f != NULL)
        a->file = f;
    else
        a->where = source_where(&t);
    for (size_t i = 0; i < t.n; i++)
        free(t.t[i].path);
    free(t.t);
    return a;
}

const struct source_file *source_find(const char *path, const char *comp_dir, char **where)
{
    if (where != NULL)
        *where = NULL;
    if (path == NULL || path[0] == '\0') {
        if (where != NULL)
            *where = xstrdup("not looked for: the debug information names no file");
        return NULL;
    }
    size_t len = strlen(path) + (comp_dir != NULL ? strlen(comp_dir) + 1 : 0);
    if (len >= PATH_MAX) {
        if (where != NULL)
            *where = xasprintf("not looked for: a name of %zu bytes is too long", len);
        return NULL;
    }
    char *name = source_resolve(comp_dir, path);
    struct source_answer *a = source_table_get(&source_answers, name);
    if (a == NULL) {
        a = source_look(name);
        source_table_put(&source_answers, name, a);
    }
    free(name);
    if (a->file == NULL && where != NULL)
        *where = xstrdup(a->where);
    return a->file;
}

const char *source_line(const struct source_file *f, uint32_t line, size_t *len)
{
    if (f == NULL || line == 0 || line > f->nlines)
        return NULL;
    if (len != NULL)
        *len = (size_t)(f->lines[line] - f->lines[line - 1]) - 1;
    return f->lines[line - 1];
}

void source_reset(void)
{
    source_forget_answers();
    source_table_clear(&source_texts, source_text_free);
    for (size_t i = 0; i < source_nfiles; i++)
        source_owned_free(source_files[i]);
    free(source_files);
    source_files = NULL;
    source_nfiles = source_files_alloc = 0;
    for (size_t i = 0; i < source_ndirs; i++) {
        free(source_dirs[i].dir);
        free(source_dirs[i].note);
    }
    free(source_dirs);
    source_dirs = NULL;
    source_ndirs = 0;
    for (size_t i = 0; i < source_nmaps; i++) {
        free(source_maps[i].from);
        free(source_maps[i].to);
        free(source_maps[i].note);
    }
    free(source_maps);
    source_maps = NULL;
    source_nmaps = 0;
}
