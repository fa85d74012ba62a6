#include "config.h"

#include "elf/debuginfo.h"
#include "util/xmalloc.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    bool pending; /* asked in the background: no answer yet */
};

static char *debuginfo_root;
static debuginfo_progress_fn *debuginfo_hook;
static void *debuginfo_hook_arg;
static struct debuginfo_cached *debuginfo_cache;
static size_t debuginfo_ncache;
static debuginfod_client *debuginfo_client;
/* libdebuginfod, loaded the first time a server is asked: linked in, it and
 * what it pulls in (curl, gnutls, krb5, ldap: 28 libraries) cost every run
 * 7 ms at start-up, though most never fetch a file. */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"
static struct {
    debuginfod_client *(*begin)(void);
    int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
    void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
    void (*set_user_data)(debuginfod_client *, void *);
    void *(*get_user_data)(debuginfod_client *);
} dfd;
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

/* What one question to the servers gave. */
struct debuginfo_answer {
    char *path;         /* owned: the build id's debug file, in libdebuginfod's cache, or NULL */
    char *error;        /* owned: why there is none, or NULL when the servers lack it */
    bool say;           /* DONE is to be said (progress was, or something went wrong) */
    bool server_failed; /* the servers cannot be reached: ask no more */
    long size;
};

/* What the progress callback knows of the question being asked. */
struct debuginfo_lookup {
    const char *name;
    bool background; /* in the worker: progress goes to debuginfo_poll */
    bool reported;   /* DOWNLOADING was said: DONE must follow */
};

/* Fetching in the background (debuginfo_background): one worker asks the
 * servers, a build id at a time; what it finds waits on FINISHED for
 * debuginfo_poll, which keeps the answers and calls the hook on the thread
 * that polls.  The cache is that thread's alone. */
struct debuginfo_job {
    struct debuginfo_job *next;
    uint8_t id[32];
    size_t len;
    char *name;
    struct debuginfo_answer a;
};

static struct {
    bool on, started;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    struct debuginfo_job *queue, *finished; /* oldest first */
    size_t pending;                         /* asked, not yet polled (the poller's) */
    char *latest_name;                      /* owned: the progress not yet polled */
    long latest_done, latest_total;
    bool latest_new;
    bool gave_up;       /* debuginfo_abandon: later answers are dropped */
    bool limits_set[3]; /* the limits it put in the environment (debuginfo_limits) */
} bg = {.lock = PTHREAD_MUTEX_INITIALIZER,
        .work = PTHREAD_COND_INITIALIZER,
        .done = PTHREAD_COND_INITIALIZER};

/* Put J at the end of *LIST (oldest first); with bg.lock held. */
static void debuginfo_job_append(struct debuginfo_job **list, struct debuginfo_job *j)
{
    while (*list != NULL)
        list = &(*list)->next;
    *list = j;
}

static void debuginfo_job_free(struct debuginfo_job *j)
{
    free(j->a.path);
    free(j->a.error);
    free(j->name);
    free(j);
}

/* libdebuginfod's progress callback: first the polls while it waits for a
 * server (no size yet), then the bytes of the chosen one. */
static int debuginfo_on_progress(debuginfod_client *c, long done, long total)
{
    struct debuginfo_lookup *l = dfd.get_user_data(c);
    if (l == NULL)
        return 0;
    l->reported = true;
    if (l->background) {
        pthread_mutex_lock(&bg.lock);
        if (bg.latest_name == NULL || strcmp(bg.latest_name, l->name) != 0) {
            free(bg.latest_name);
            bg.latest_name = xstrdup(l->name);
        }
        bg.latest_done = total > 0 ? done : 0;
        bg.latest_total = total > 0 ? total : 0;
        bg.latest_new = true;
        pthread_cond_signal(&bg.done);
        pthread_mutex_unlock(&bg.lock);
        return 0;
    }
    if (debuginfo_hook == NULL)
        return 0;
    struct debuginfo_progress p = {
        .state = DEBUGINFO_DOWNLOADING,
        .name = l->name,
        .done = total > 0 ? done : 0,
        .total = total > 0 ? total : 0,
    };
    debuginfo_hook(debuginfo_hook_arg, &p);
    return 0;
}

/* Say A's outcome for NAME through the hook, when it is to be said. */
static void debuginfo_say(const char *name, const struct debuginfo_answer *a)
{
    if (debuginfo_hook == NULL || !a->say)
        return;
    struct debuginfo_progress p = {DEBUGINFO_DONE,  name,    a->size, a->size,
                                   a->path != NULL, a->error};
    debuginfo_hook(debuginfo_hook_arg, &p);
}

/* libdebuginfod's limits where the user set none: it waits 90 s for a
 * server's first 100 KB and as long as a download takes, for a file of any
 * size, which a silent or trickling server, or a 1.6 GB answer, made a run's
 * wait.  Set around each query only, so that no program profil starts
 * inherits them; SET[i] says which were set here, to unset after.  In the
 * background they are set once, before the worker starts (setenv beside
 * another thread's getenv is not safe), and the program's environment goes
 * without them (debuginfo_env_ours). */
static const struct {
    const char *name, *value;
} debuginfo_limits[] = {
    {"DEBUGINFOD_TIMEOUT", DEBUGINFO_TIMEOUT_S},
    {"DEBUGINFOD_MAXTIME", DEBUGINFO_MAXTIME_S},
    {"DEBUGINFOD_MAXSIZE", DEBUGINFO_MAXSIZE_BYTES},
};
#define DEBUGINFO_NLIMITS (sizeof debuginfo_limits / sizeof *debuginfo_limits)
_Static_assert(DEBUGINFO_NLIMITS == sizeof bg.limits_set / sizeof *bg.limits_set,
               "a flag per limit");

static void debuginfo_limits_set(bool set[])
{
    for (size_t i = 0; i < DEBUGINFO_NLIMITS; i++) {
        const char *v = getenv(debuginfo_limits[i].name);
        set[i] = v == NULL || v[0] == '\0';
        if (set[i])
            setenv(debuginfo_limits[i].name, debuginfo_limits[i].value, 1);
    }
}

static void debuginfo_limits_unset(const bool set[])
{
    for (size_t i = 0; i < DEBUGINFO_NLIMITS; i++)
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

/* Load libdebuginfod and find its functions; false and *CAUSE when it cannot be. */
static bool debuginfo_load(char **cause)
{
    if (dfd.begin != NULL)
        return true;
    void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        *cause = xasprintf("cannot load %s: %s", DEBUGINFOD_SONAME, e != NULL ? e : "not found");
        return false;
    }
    /* POSIX's way from a data pointer to a function pointer: copy the bytes. */
    void *f[5] = {dlsym(h, "debuginfod_begin"), dlsym(h, "debuginfod_find_debuginfo"),
                  dlsym(h, "debuginfod_set_progressfn"), dlsym(h, "debuginfod_set_user_data"),
                  dlsym(h, "debuginfod_get_user_data")};
    for (size_t i = 0; i < 5; i++) {
        if (f[i] == NULL) {
            *cause = xasprintf("%s lacks the functions profil calls", DEBUGINFOD_SONAME);
            dlclose(h);
            return false;
        }
    }
    memcpy(&dfd.find_debuginfo, &f[1], sizeof f[1]);
    memcpy(&dfd.set_progressfn, &f[2], sizeof f[2]);
    memcpy(&dfd.set_user_data, &f[3], sizeof f[3]);
    memcpy(&dfd.get_user_data, &f[4], sizeof f[4]);
    memcpy(&dfd.begin, &f[0], sizeof f[0]); /* last: it says the rest are there */
    return true;
}

/* The servers DEBUGINFOD_URLS names, or NULL when none is to be asked. */
static const char *debuginfo_urls(void)
{
    const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
    return urls != NULL && urls[0] != '\0' && !debuginfo_server_failed ? urls : NULL;
}

/* Ask the servers URLS for build id ID (LEN bytes) into *A; libdebuginfod
 * keeps the file in its cache ($DEBUGINFOD_CACHE_PATH or
 * ~/.cache/debuginfod_client).  By one thread at a time: the worker's in
 * the background, the caller's otherwise. */
static void debuginfo_ask(const char *urls, const uint8_t *id, size_t len, const char *name,
                          bool background, struct debuginfo_answer *a)
{
    *a = (struct debuginfo_answer){0};
    struct debuginfo_lookup l = {name, background, false};
    if (debuginfo_client == NULL) {
        if (!debuginfo_load(&a->error)) {
            a->server_failed = a->say = true;
            return;
        }
        debuginfo_client = dfd.begin();
        if (debuginfo_client == NULL) {
            a->server_failed = a->say = true;
            a->error = xstrdup("cannot start the debuginfod client");
            return;
        }
        dfd.set_progressfn(debuginfo_client, debuginfo_on_progress);
    }
    dfd.set_user_data(debuginfo_client, &l);
    char *path = NULL;
    bool set[DEBUGINFO_NLIMITS] = {false};
    if (!background)
        debuginfo_limits_set(set);
    int fd = dfd.find_debuginfo(debuginfo_client, id, (int)len, &path);
    if (!background)
        debuginfo_limits_unset(set);
    dfd.set_user_data(debuginfo_client, NULL);
    if (fd < 0) {
        free(path);
        if (fd == -ENOENT) {
            a->say = l.reported;
            return;
        }
        a->say = true;
        if (fd == -EFBIG) { /* this file only: the next may be smaller */
            const char *most = getenv("DEBUGINFOD_MAXSIZE"); /* the user's, or ours */
            a->error = xasprintf("the file is larger than DEBUGINFOD_MAXSIZE allows (%s bytes)",
                                 most != NULL && most[0] != '\0' ? most : DEBUGINFO_MAXSIZE_BYTES);
            return;
        }
        /* A server that cannot be reached would cost each module its timeout. */
        a->server_failed = true;
        /* The limits in effect: the user's, or ours. */
        const char *first = getenv("DEBUGINFOD_TIMEOUT"), *all = getenv("DEBUGINFOD_MAXTIME");
        a->error =
            fd == -ETIME
                ? xasprintf("no answer in time (DEBUGINFOD_TIMEOUT: %s s for the first 100 KB, "
                            "DEBUGINFOD_MAXTIME: %s s in all) (%s)",
                            first != NULL && first[0] != '\0' ? first : DEBUGINFO_TIMEOUT_S,
                            all != NULL && all[0] != '\0' ? all : DEBUGINFO_MAXTIME_S, urls)
                : xasprintf("%s (%s)", strerror(-fd), urls);
        return;
    }
    close(fd);
    struct debuginfo_file f;
    if (path != NULL && debuginfo_open(path, id, len, &f) == 0) {
        struct stat st;
        a->size = fstat(f.fd, &st) == 0 ? (long)st.st_size : 0;
        debuginfo_file_close(&f);
        a->path = path;
    } else {
        if (path != NULL)
            debuginfo_uncache(path);
        free(path);
        a->error = xstrdup("the server's file is not ELF debug info");
    }
    a->say = l.reported;
}

/* Ask the servers for Q's debug file now, into *F. */
static int debuginfo_by_server(const struct debuginfo_query *q, struct debuginfo_file *f)
{
    const char *urls = debuginfo_urls();
    if (urls == NULL || q->build_id_len == 0)
        return -ENOENT;
    struct debuginfo_answer a;
    debuginfo_ask(urls, q->build_id, q->build_id_len, q->name, false, &a);
    if (a.server_failed)
        debuginfo_server_failed = true;
    int r = a.path != NULL ? debuginfo_open(a.path, q->build_id, q->build_id_len, f) : -ENOENT;
    debuginfo_say(q->name, &a);
    free(a.path);
    free(a.error);
    return r;
}

/* The worker: the queue's questions, in turn, until the process ends.
 * Once a server could not be reached, the rest are answered "none". */
static void *debuginfo_worker(void *arg)
{
    (void)arg;
    bool failed = false;
    for (;;) {
        pthread_mutex_lock(&bg.lock);
        while (bg.queue == NULL)
            pthread_cond_wait(&bg.work, &bg.lock);
        struct debuginfo_job *j = bg.queue;
        bg.queue = j->next;
        j->next = NULL;
        const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
        pthread_mutex_unlock(&bg.lock);
        if (!failed)
            debuginfo_ask(urls, j->id, j->len, j->name, true, &j->a);
        failed |= j->a.server_failed;
        pthread_mutex_lock(&bg.lock);
        debuginfo_job_append(&bg.finished, j);
        pthread_cond_signal(&bg.done);
        pthread_mutex_unlock(&bg.lock);
    }
    return NULL;
}

void debuginfo_background(bool on)
{
    bg.on = on;
}

/* Queue Q's question for the worker, started the first time with every
 * signal blocked (they are the main thread's) and the limits set. */
static bool debuginfo_enqueue(const struct debuginfo_query *q)
{
    if (!bg.started) {
        debuginfo_limits_set(bg.limits_set);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        bg.started = pthread_create(&t, &at, debuginfo_worker, NULL) == 0;
        pthread_attr_destroy(&at);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!bg.started) {
            debuginfo_limits_unset(bg.limits_set);
            memset(bg.limits_set, 0, sizeof bg.limits_set);
            bg.on = false; /* ask as it comes, then */
            return false;
        }
    }
    struct debuginfo_job *j = xcalloc(1, sizeof *j);
    j->len = q->build_id_len;
    memcpy(j->id, q->build_id, j->len);
    j->name = xstrdup(q->name);
    pthread_mutex_lock(&bg.lock);
    debuginfo_job_append(&bg.queue, j);
    pthread_cond_signal(&bg.work);
    pthread_mutex_unlock(&bg.lock);
    bg.pending++;
    return true;
}

bool debuginfo_env_ours(const char *entry)
{
    for (size_t i = 0; i < DEBUGINFO_NLIMITS; i++) {
        size_t len = strlen(debuginfo_limits[i].name);
        if (bg.limits_set[i] && strncmp(entry, debuginfo_limits[i].name, len) == 0 &&
            entry[len] == '=')
            return true;
    }
    return false;
}

size_t debuginfo_pending(void)
{
    return bg.pending;
}

static struct debuginfo_cached *debuginfo_cached_id(const uint8_t *id, size_t len);

size_t debuginfo_poll(void)
{
    if (!bg.started)
        return 0;
    pthread_mutex_lock(&bg.lock);
    struct debuginfo_job *list = bg.finished;
    bg.finished = NULL;
    char *name = bg.latest_new ? xstrdup(bg.latest_name) : NULL;
    long done = bg.latest_done, total = bg.latest_total;
    bg.latest_new = false;
    pthread_mutex_unlock(&bg.lock);
    if (name != NULL && debuginfo_hook != NULL && !bg.gave_up) {
        struct debuginfo_progress p = {DEBUGINFO_DOWNLOADING, name, done, total, false, NULL};
        debuginfo_hook(debuginfo_hook_arg, &p);
    }
    free(name);
    size_t n = 0;
    while (list != NULL) {
        struct debuginfo_job *j = list;
        list = j->next;
        if (bg.gave_up) { /* too late: said nothing of */
            debuginfo_job_free(j);
            continue;
        }
        struct debuginfo_cached *c = debuginfo_cached_id(j->id, j->len);
        if (c != NULL) {
            free(c->path);
            c->path = j->a.path;
            c->pending = false;
            j->a.path = c->path != NULL ? xstrdup(c->path) : NULL; /* for the report */
        }
        if (j->a.server_failed)
            debuginfo_server_failed = true;
        debuginfo_say(j->name, &j->a);
        debuginfo_job_free(j);
        bg.pending--;
        n++;
    }
    return n;
}

/* The user will not wait: what is still asked is taken as not found, for
 * good (no server is asked again in this process), and the worker's late
 * answers are dropped. */
static void debuginfo_abandon(void)
{
    for (size_t i = 0; i < debuginfo_ncache; i++) {
        if (debuginfo_cache[i].pending) {
            debuginfo_cache[i].pending = false;
            free(debuginfo_cache[i].path);
            debuginfo_cache[i].path = NULL;
        }
    }
    debuginfo_server_failed = true;
    bg.gave_up = true;
    bg.pending = 0;
}

bool debuginfo_wait(bool (*give_up)(void *arg), void *arg)
{
    while (bg.pending > 0) {
        if (debuginfo_poll() > 0)
            continue;
        if (give_up != NULL && give_up(arg)) {
            debuginfo_abandon();
            return false;
        }
        pthread_mutex_lock(&bg.lock);
        if (bg.finished == NULL && !bg.latest_new) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&bg.done, &bg.lock, &ts);
        }
        pthread_mutex_unlock(&bg.lock);
    }
    return true;
}

/* The answer this process already has for build id ID, or NULL. */
static struct debuginfo_cached *debuginfo_cached_id(const uint8_t *id, size_t len)
{
    for (size_t i = 0; i < debuginfo_ncache; i++) {
        struct debuginfo_cached *c = &debuginfo_cache[i];
        if (c->len == len && memcmp(c->id, id, len) == 0)
            return c;
    }
    return NULL;
}

int debuginfo_find(const struct debuginfo_query *q, struct debuginfo_file *f)
{
    *f = (struct debuginfo_file){-1, NULL, NULL};
    elf_version(EV_CURRENT); /* libelf's first call, whoever calls first */
    bool keyed = q->build_id_len > 0 && q->build_id_len <= sizeof debuginfo_cache->id;
    struct debuginfo_cached *c = keyed ? debuginfo_cached_id(q->build_id, q->build_id_len) : NULL;
    if (c != NULL) {
        if (c->pending)
            return -EINPROGRESS;
        if (c->path != NULL && debuginfo_open(c->path, q->build_id, q->build_id_len, f) == 0)
            return 0;
        if (c->path == NULL)
            return -ENOENT;
    }
    int r = debuginfo_by_build_id(q, f);
    if (r < 0)
        r = debuginfo_by_debuglink(q, f);
    bool later = false;
    if (r < 0 && bg.on && keyed && debuginfo_urls() != NULL)
        later = debuginfo_enqueue(q);
    if (r < 0 && !later)
        r = debuginfo_by_server(q, f);
    if (keyed) {
        if (c == NULL) {
            debuginfo_cache =
                xreallocarray(debuginfo_cache, debuginfo_ncache + 1, sizeof *debuginfo_cache);
            c = &debuginfo_cache[debuginfo_ncache++];
            *c = (struct debuginfo_cached){{0}, q->build_id_len, NULL, false};
            memcpy(c->id, q->build_id, q->build_id_len);
        }
        free(c->path);
        c->path = r == 0 ? xstrdup(f->path) : NULL;
        c->pending = later;
    }
    return later ? -EINPROGRESS : r;
}
