#include "config.h"

#include "tests/fuzz/fuzz.h"

#include "prf/prf.h"
#include "util/xmalloc.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char fuzz_verdict_buf[256];
static char fuzz_dir_buf[PATH_MAX];
static int fuzz_memfds[4] = {-1, -1, -1, -1};
static char fuzz_memfd_paths[4][32];

const char *fuzz_verdict(void)
{
    return fuzz_verdict_buf;
}

void fuzz_set_verdict(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fuzz_verdict_buf, sizeof fuzz_verdict_buf, fmt, ap);
    va_end(ap);
}

void fuzz_one_line(const char *what, const char *text)
{
    if (text == NULL || strchr(text, '\n') != NULL) {
        fprintf(stderr, "fuzz: %s is not one line: %s\n", what, text ? text : "(null)");
        abort();
    }
}

void fuzz_refused(char *cause)
{
    fuzz_one_line("a refusal", cause);
    if (cause[0] == '\0') {
        fprintf(stderr, "fuzz: a refusal without a reason\n");
        abort();
    }
    free(cause);
}

static int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path); /* what cannot go stays: the rest still goes */
    return 0;
}

/* At exit: the directory and what the targets left in it. */
static void fuzz_dir_remove(void)
{
    if (fuzz_dir_buf[0] != '\0')
        nftw(fuzz_dir_buf, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void)
{
    if (fuzz_dir_buf[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir_buf, sizeof fuzz_dir_buf, "%s/profil-fuzz.XXXXXX",
                 tmp != NULL && tmp[0] == '/' && strlen(tmp) < PATH_MAX / 2 ? tmp : "/tmp");
        if (mkdtemp(fuzz_dir_buf) == NULL) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_dir_remove);
    }
    return fuzz_dir_buf;
}

char *fuzz_path(const char *name)
{
    const char *dir = fuzz_dir();
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p == NULL)
        abort();
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Write all of DATA at FD's start, and end the file there. */
static void fuzz_write_fd(int fd, const void *data, size_t len, const char *what)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(fd, (const char *)data + done, len - done, (off_t)done);
        if (w <= 0) {
            perror(what);
            abort();
        }
        done += (size_t)w;
    }
    if (ftruncate(fd, (off_t)len) < 0) {
        perror(what);
        abort();
    }
}

void fuzz_write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    fuzz_write_fd(fd, data, len, path);
    close(fd);
}

const char *fuzz_memfd(int slot, const void *data, size_t len)
{
    if (slot < 0 || slot >= 4)
        abort();
    if (fuzz_memfds[slot] < 0) {
        fuzz_memfds[slot] = memfd_create("profil-fuzz", MFD_CLOEXEC);
        if (fuzz_memfds[slot] < 0) {
            perror("fuzz: memfd_create");
            abort();
        }
        snprintf(fuzz_memfd_paths[slot], sizeof fuzz_memfd_paths[slot], "/proc/self/fd/%d",
                 fuzz_memfds[slot]);
    }
    fuzz_write_fd(fuzz_memfds[slot], data, len, "fuzz: memfd");
    return fuzz_memfd_paths[slot];
}

struct session *fuzz_session(void)
{
    struct session *s = session_new_empty();
    s->program = xstrdup("prog");
    s->driver = xstrdup("perf");
    s->interval_us = 1000;
    s->view.bucket_paragraphs = s->asked_paragraphs = 1;
    s->view.prog_low = s->prog_low = 0x1000;
    s->view.prog_high = s->prog_high = 0x1100;
    s->view.nbuckets = 16;
    s->view.buckets = xcalloc(s->view.nbuckets, sizeof *s->view.buckets);
    session_module(s, "/nonexistent/prog", MODULE_PROGRAM);
    s->modules[0]->loaded = true; /* nothing to read from disk */
    return s;
}

void fuzz_save_reads_back(struct session *s, const char *who)
{
    uint8_t *data;
    size_t len;
    char *cause = NULL;
    prf_write_buffer(s, &data, &len);
    struct session *r = prf_read_buffer(data, len, &cause);
    if (r == NULL) {
        fprintf(stderr, "%s: the session saved does not read back: %s\n", who, cause);
        abort();
    }
    session_free(r);
    free(data);
}
