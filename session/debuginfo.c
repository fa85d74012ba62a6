#include "config.h"

#include "session/debuginfo.h"
#include "util/xmalloc.h"

#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DEBUGINFO_ROOT "/usr/lib/debug"
/* libdebuginfod's limits, unless the user's environment sets them (see
 * debuginfo_limits). */
#define DEBUGINFO_TIMEOUT_S     "10"
#define DEBUGINFO_MAXTIME_S     "60"
#define DEBUGINFO_MAXSIZE_BYTES "1073741824"

/* One answer per build id: where its debug file is, or NULL for none. */
struct debuginfo_cached {
    uint8_t id[32];
    size_t len;
    char *path;
};

static char *debuginfo_root;
static debuginfo_progress_fn *debuginfo_hook;
static void *debuginfo_hook_arg;
static struct debuginfo_cached *debuginfo_cache;
static size_t debuginfo_ncache;
static debuginfod_client *debuginfo_client;
static bool debuginfo_server_failed; /* the servers could not be asked: ask no more */

void debuginfo_set_progress(debuginfo_progress_fn *fn, void *arg, debuginfo_progress_fn **old_fn,
                            void **old_arg)
{
    if (old_fn != NULL)
        *old_fn = debuginfo_hook;
    if (old_arg != NULL)
        *old_arg = debuginfo_hook_arg;
    debuginfo_hook = fn;
    debuginfo_hook_arg = arg;
}

void debuginfo_set_root(const char *dir)
{
    free(debuginfo_root);
    debuginfo_root = dir != NULL ? xstrdup(dir) : NULL;
    /* Answers found under the old root may not hold under the new one. */
    for (size_t i = 0; i < debuginfo_ncache; i++)
        free(debuginfo_cache[i].path);
    free(debuginfo_cache);
    debuginfo_cache = NULL;
    debuginfo_ncache = 0;
}

static const char *debuginfo_root_dir(void)
{
    return debuginfo_root != NULL ? debuginfo_root : DEBUGINFO_ROOT;
}

void debuginfo_file_close(struct debuginfo_file *f)
{
    if (f->elf != NULL)
        elf_end(f->elf);
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    *f = (struct debuginfo_file){-1, NULL, NULL};
}

int debuginfo_crc32(int fd, uint32_t *crc)
{
    unsigned char buf[65536];
    uLong c = crc32(0L, Z_NULL, 0);
    off_t pos = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, pos);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            break;
        c = crc32(c, buf, (uInt)n);
        pos += n;
    }
    *crc = (uint32_t)c;
    return 0;
}

/* Open PATH as an ELF file into *F; when ID is given its build id must be it,
 * as gdb checks (a stale file left by an older package names another build).
 * Only a regular file: a FIFO planted at a build id's name would hold the
 * start for ever, so the open does not wait and the file is looked at
 * before anything is read. */
static int debuginfo_open(const char *path, const uint8_t *id, size_t idlen,
                          struct debuginfo_file *f)
{
    *f = (struct debuginfo_file){-1, NULL, NULL};
    f->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f->fd < 0)
        return -ENOENT;
    struct stat st;
    if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_NONBLOCK) < 0)
        goto bad;
    f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
    if (f->elf == NULL || elf_kind(f->elf) != ELF_K_ELF)
        goto bad;
    if (idlen > 0) {
        const void *got;
        ssize_t n = dwelf_elf_gnu_build_id(f->elf, &got);
        if (n <= 0 || (size_t)n != idlen || memcmp(got, id, idlen) != 0)
            goto bad;
    }
    f->path = xstrdup(path);
    return 0;
bad:
    debuginfo_file_close(f);
    return -ENOENT;
}

/* /usr/lib/debug/.build-id/xx/rest.debug, as Debian's -dbg and -dbgsym packages install it. */
static int debuginfo_by_build_id(const struct debuginfo_query *q, struct debuginfo_file *f)
{
    if (q->build_id_len < 2)
        return -ENOENT;
    char hex[2 * sizeof((struct debuginfo_cached *)0)->id + 1];
    size_t len = q->build_id_len < 32 ? q->build_id_len : 32;
    for (size_t i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", q->build_id[i]);
    char *path = xasprintf("%s/.build-id/%.2s/%s.debug", debuginfo_root_dir(), hex, hex + 2);
    int r = debuginfo_open(path, q->build_id, q->build_id_len, f);
    free(path);
    return r;
}

/* The .gnu_debuglink name beside the image, in its .debug/, and under the
 * global directory, as gdb looks: the CRC the link carries must match. */
static int debuginfo_by_debuglink(const struct debuginfo_query *q, struct debuginfo_file *f)
{
    if (q->debuglink == NULL || q->debuglink[0] == '\0')
        return -ENOENT;
    struct stat self;
    bool have_self = stat(q->path, &self) == 0;
    const char *slash = strrchr(q->path, '/');
    const char *dir = slash != NULL ? q->path : ".";
    int dirlen = slash != NULL ? (int)(slash - q->path) : 1;
    char *cand[3] = {
        xasprintf("%.*s/%s", dirlen, dir, q->debuglink),
        xasprintf("%.*s/.debug/%s", dirlen, dir, q->debuglink),
        /* Only an absolute directory has a mirror under the global one. */
        dir[0] == '/' ? xasprintf("%s%.*s/%s", debuginfo_root_dir(), dirlen, dir, q->debuglink)
                      : NULL,
    };
    int r = -ENOENT;
    for (size_t i = 0; i < 3 && cand[i] != NULL && r < 0; i++) {
        struct stat st;
        if (stat(cand[i], &st) != 0 || !S_ISREG(st.st_mode) ||
            (have_self && st.st_dev == self.st_dev && st.st_ino == self.st_ino))
            continue;
        struct debuginfo_file c;
        uint32_t crc;
        if (debuginfo_open(cand[i], NULL, 0, &c) < 0)
            continue;
        if (debuginfo_crc32(c.fd, &crc) == 0 && crc == q->debuglink_crc) {
            *f = c;
            r = 0;
        } else {
            debuginfo_file_close(&c);
        }
    }
    for (size_t i = 0; i < 3; i++)
        free(cand[i]);
    return r;
}

/* What the hook hears about one lookup on the server. */
struct debuginfo_lookup {
    const char *name;
    bool reported; /* DOWNLOADING was said: DONE must follow */
};

/* libdebuginfod's progress callback: first the polls while it waits for a
 * server (no size yet), then the bytes of the chosen one. */
static int debuginfo_on_progress(debuginfod_client *c, long done, long total)
{
    struct debuginfo_lookup *l = debuginfod_get_user_data(c);
    if (l == NULL || debuginfo_hook == NULL)
        return 0;
    l->reported = true;
    struct debuginfo_progress p = {
        .state = DEBUGINFO_DOWNLOADING,
        .name = l->name,
        .done = total > 0 ? done : 0,
        .total = total > 0 ? total : 0,
    };
    debuginfo_hook(debuginfo_hook_arg, &p);
    return 0;
}

static void debuginfo_done(struct debuginfo_lookup *l, bool found, long size, const char *error)
{
    if (debuginfo_hook == NULL)
        return;
    struct debuginfo_progress p = {DEBUGINFO_DONE, l->name, size, size, found, error};
    debuginfo_hook(debuginfo_hook_arg, &p);
}

/* libdebuginfod's limits where the user set none: it waits 90 s for a
 * server's first 100 KB and as long as a download takes, for a file of any
 * size, which a silent or trickling server, or a 1.6 GB answer, made a run's
 * wait.  Set around each query only, so that no program profil starts
 * inherits them; SET[i] says which were set here, to unset after. */
static const struct {
    const char *name, *value;
} debuginfo_limits[] = {
    {"DEBUGINFOD_TIMEOUT", DEBUGINFO_TIMEOUT_S},
    {"DEBUGINFOD_MAXTIME", DEBUGINFO_MAXTIME_S},
    {"DEBUGINFOD_MAXSIZE", DEBUGINFO_MAXSIZE_BYTES},
};

static void debuginfo_limits_set(bool set[])
{
    for (size_t i = 0; i < sizeof debuginfo_limits / sizeof *debuginfo_limits; i++) {
        const char *v = getenv(debuginfo_limits[i].name);
        set[i] = v == NULL || v[0] == '\0';
        if (set[i])
            setenv(debuginfo_limits[i].name, debuginfo_limits[i].value, 1);
    }
}

static void debuginfo_limits_unset(const bool set[])
{
    for (size_t i = 0; i < sizeof debuginfo_limits / sizeof *debuginfo_limits; i++)
        if (set[i])
            unsetenv(debuginfo_limits[i].name);
}

/* A file libdebuginfod cached, CACHE/BUILD-ID/debuginfo, that proved no
 * debug information: it is removed, as a bad download should be, rather
 * than kept to be answered from again. */
static void debuginfo_uncache(const char *path)
{
    const char *base = strrchr(path, '/');
    if (base == NULL || strcmp(base, "/debuginfo") != 0)
        return;
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
        return;
    if (unlink(path) == 0) {
        char *dir = xstrndup(path, (size_t)(base - path));
        rmdir(dir); /* empty now, unless the server gave its executable too */
        free(dir);
    }
}

/* Ask the servers DEBUGINFOD_URLS names; libdebuginfod keeps the file in its
 * cache ($DEBUGINFOD_CACHE_PATH or ~/.cache/debuginfod_client). */
static int debuginfo_by_server(const struct debuginfo_query *q, struct debuginfo_file *f)
{
    const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
    if (urls == NULL || urls[0] == '\0' || q->build_id_len == 0 || debuginfo_server_failed)
        return -ENOENT;
    struct debuginfo_lookup l = {q->name, false};
    if (debuginfo_client == NULL) {
        debuginfo_client = debuginfod_begin();
        if (debuginfo_client == NULL) {
            debuginfo_server_failed = true;
            debuginfo_done(&l, false, 0, "cannot start the debuginfod client");
            return -ENOENT;
        }
        debuginfod_set_progressfn(debuginfo_client, debuginfo_on_progress);
    }
    debuginfod_set_user_data(debuginfo_client, &l);
    char *path = NULL;
    bool set[sizeof debuginfo_limits / sizeof *debuginfo_limits];
    debuginfo_limits_set(set);
    int fd = debuginfod_find_debuginfo(debuginfo_client, q->build_id, (int)q->build_id_len, &path);
    debuginfo_limits_unset(set);
    debuginfod_set_user_data(debuginfo_client, NULL);
    if (fd < 0) {
        if (fd == -ENOENT) {
            if (l.reported)
                debuginfo_done(&l, false, 0, NULL);
            return -ENOENT;
        }
        if (fd == -EFBIG) { /* this file only: the next may be smaller */
            const char *most = getenv("DEBUGINFOD_MAXSIZE"); /* the user's, or ours */
            char *why = xasprintf("the file is larger than DEBUGINFOD_MAXSIZE allows (%s bytes)",
                                  most != NULL && most[0] != '\0' ? most : DEBUGINFO_MAXSIZE_BYTES);
            debuginfo_done(&l, false, 0, why);
            free(why);
            return -ENOENT;
        }
        /* A server that cannot be reached would cost each module its timeout. */
        debuginfo_server_failed = true;
        /* The limits in effect: the user's, or ours. */
        const char *first = getenv("DEBUGINFOD_TIMEOUT"), *all = getenv("DEBUGINFOD_MAXTIME");
        char *why =
            fd == -ETIME
                ? xasprintf("no answer in time (DEBUGINFOD_TIMEOUT: %s s for the first 100 KB, "
                            "DEBUGINFOD_MAXTIME: %s s in all) (%s)",
                            first != NULL && first[0] != '\0' ? first : DEBUGINFO_TIMEOUT_S,
                            all != NULL && all[0] != '\0' ? all : DEBUGINFO_MAXTIME_S, urls)
                : xasprintf("%s (%s)", strerror(-fd), urls);
        debuginfo_done(&l, false, 0, why);
        free(why);
        return -ENOENT;
    }
    close(fd);
    int r = path != NULL ? debuginfo_open(path, q->build_id, q->build_id_len, f) : -ENOENT;
    if (r != 0 && path != NULL)
        debuginfo_uncache(path);
    if (l.reported) {
        struct stat st;
        debuginfo_done(&l, r == 0, r == 0 && fstat(f->fd, &st) == 0 ? (long)st.st_size : 0,
                       r == 0 ? NULL : "the server's file is not ELF debug info");
    }
    free(path);
    return r;
}

/* The answer this process already has for Q's build id, or NULL. */
static struct debuginfo_cached *debuginfo_cached(const struct debuginfo_query *q)
{
    for (size_t i = 0; i < debuginfo_ncache; i++) {
        struct debuginfo_cached *c = &debuginfo_cache[i];
        if (c->len == q->build_id_len && memcmp(c->id, q->build_id, c->len) == 0)
            return c;
    }
    return NULL;
}

int debuginfo_find(const struct debuginfo_query *q, struct debuginfo_file *f)
{
    *f = (struct debuginfo_file){-1, NULL, NULL};
    elf_version(EV_CURRENT); /* libelf's first call, whoever calls first */
    bool keyed = q->build_id_len > 0 && q->build_id_len <= sizeof debuginfo_cache->id;
    struct debuginfo_cached *c = keyed ? debuginfo_cached(q) : NULL;
    if (c != NULL) {
        if (c->path != NULL && debuginfo_open(c->path, q->build_id, q->build_id_len, f) == 0)
            return 0;
        if (c->path == NULL)
            return -ENOENT;
    }
    int r = debuginfo_by_build_id(q, f);
    if (r < 0)
        r = debuginfo_by_debuglink(q, f);
    if (r < 0)
        r = debuginfo_by_server(q, f);
    if (keyed) {
        if (c == NULL) {
            debuginfo_cache =
                xreallocarray(debuginfo_cache, debuginfo_ncache + 1, sizeof *debuginfo_cache);
            c = &debuginfo_cache[debuginfo_ncache++];
            *c = (struct debuginfo_cached){{0}, q->build_id_len, NULL};
            memcpy(c->id, q->build_id, q->build_id_len);
        }
        free(c->path);
        c->path = r == 0 ? xstrdup(f->path) : NULL;
    }
    return r;
}
