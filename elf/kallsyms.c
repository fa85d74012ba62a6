/*
 * The kernel's functions from a sorted copy of /proc/kallsyms (kallsyms.h).
 *
 * The copy is a text file, $XDG_CACHE_HOME/profil/kallsyms: a first line,
 * the key, then the text symbols as symbols_read_kallsyms leaves them
 * (sorted, one per address), "ADDR t NAME" or "ADDR t NAME\t[module]".  The
 * key says whose it is and for what: the user, the boot (boot_id: the
 * kernel and its address randomization), the modules loaded (a hash of
 * /proc/modules) and whether the kernel shows the addresses now
 * (kernel.kptr_restrict): a copy never names what the kernel now hides.  A copy with another key is
 * made again; one that is not a private regular file of the user is not read.  A lookup is a binary
 * search over the file's bytes, each step reading one line.
 */
#include "config.h"

#include "elf/kallsyms.h"
#include "util/files.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KALLSYMS_NAME_MAX 512 /* longer names are no symbol of the copy's */
#define KALLSYMS_KEY_MAX  256

struct kallsyms {
    const char *map; /* the file, mapped */
    size_t size;
    size_t data; /* where the symbols begin: past the key */
};

char *kallsyms_dir(void)
{
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache != NULL && cache[0] == '/')
        return xasprintf("%s/profil", cache);
    if (home != NULL && home[0] == '/')
        return xasprintf("%s/.cache/profil", home);
    return NULL;
}

/* The whole of a small file under /proc, or NULL. */
static char *kallsyms_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= (1u << 24)) /* no module list is this long */
                break;
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Whether the kernel shows this process its addresses now (kptr_restrict
 * and the process's capabilities decide): its first line's is not zero.  The
 * kernel formats only the lines read, so this costs little. */
static bool kallsyms_shown(void)
{
    FILE *f = fopen("/proc/kallsyms", "re");
    char line[256];
    bool shown = f != NULL && fgets(line, sizeof line, f) != NULL &&
                 strspn(line, "0") < strspn(line, "0123456789abcdef");
    if (f != NULL)
        fclose(f);
    return shown;
}

/* What the copy must say it was made for; NULL when the boot is unknown. */
static char *kallsyms_key(void)
{
    size_t n = 0;
    char *boot = kallsyms_slurp("/proc/sys/kernel/random/boot_id", &n);
    if (boot == NULL)
        return NULL;
    if (n > 0 && boot[n - 1] == '\n')
        n--;
    boot[n < 4095 ? n : 4095] = '\0';
    size_t m = 0;
    char *mods = kallsyms_slurp("/proc/modules", &m);
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (size_t i = 0; mods != NULL && i < m; i++)
        h = (h ^ (unsigned char)mods[i]) * 1099511628211ull;
    free(mods);
    char *key = xasprintf("profil-kallsyms 1 uid=%u boot=%.64s modules=%016llx%s shown=%d\n",
                          (unsigned)geteuid(), boot, (unsigned long long)h, mods == NULL ? "-" : "",
                          kallsyms_shown());
    free(boot);
    return key;
}

struct kallsyms *kallsyms_map(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return NULL;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    struct kallsyms *k = xcalloc(1, sizeof *k);
    k->map = map;
    k->size = (size_t)st.st_size;
    const char *nl = memchr(k->map, '\n', k->size);
    k->data = nl != NULL ? (size_t)(nl - k->map) + 1 : k->size;
    return k;
}

void kallsyms_close(struct kallsyms *k)
{
    if (k == NULL)
        return;
    munmap((void *)k->map, k->size);
    free(k);
}

/* The end of the line that begins at AT: its newline, or the end of the file. */
static size_t kallsyms_line_end(const struct kallsyms *k, size_t at)
{
    const char *nl = memchr(k->map + at, '\n', k->size - at);
    return nl != NULL ? (size_t)(nl - k->map) : k->size;
}

/* The address a line [AT, END) begins with: hex digits, then a blank. */
static bool kallsyms_addr(const struct kallsyms *k, size_t at, size_t end, uint64_t *addr)
{
    uint64_t a = 0;
    size_t i = at;
    for (; i < end && i - at < 16; i++) {
        char c = k->map[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            break;
        a = a << 4 | (uint64_t)d;
    }
    if (i == at || i >= end || k->map[i] != ' ')
        return false;
    *addr = a;
    return true;
}

/* The name and module of the line [AT, END) into OUT; false when it has none. */
static bool kallsyms_names(const struct kallsyms *k, size_t at, size_t end,
                           struct symbols_text *out)
{
    const char *p = k->map + at, *e = k->map + end;
    const char *sp = memchr(p, ' ', (size_t)(e - p)); /* past the address */
    if (sp == NULL || e - sp < 4 || sp[2] != ' ')
        return false;
    /* A name ends at a blank, a tab or any control byte (a NUL included). */
    const char *name = sp + 3, *q = name;
    while (q < e && (unsigned char)*q > ' ' && *q != 0x7f)
        q++;
    if (q == name || q - name > KALLSYMS_NAME_MAX)
        return false;
    out->name = xstrndup(name, (size_t)(q - name));
    out->owner = NULL;
    const char *open = memchr(q, '[', (size_t)(e - q));
    if (open != NULL) {
        const char *o = open + 1;
        while (o < e && *o != ']' && (unsigned char)*o >= ' ' && *o != 0x7f)
            o++;
        size_t len = (size_t)(o - open - 1);
        if (len > 0 && len <= KALLSYMS_NAME_MAX)
            out->owner = xstrndup(open + 1, len);
    }
    return true;
}

bool kallsyms_find(const struct kallsyms *k, uint64_t pc, struct symbols_text *out)
{
    /* The last line whose address is at most PC: each step takes the line
     * around the middle of [LO, HI), and moves past it or before it. */
    size_t lo = k->data, hi = k->size, best = SIZE_MAX, best_end = 0;
    uint64_t start = 0;
    while (lo < hi) {
        size_t at = lo + (hi - lo) / 2;
        while (at > lo && k->map[at - 1] != '\n')
            at--;
        size_t end = kallsyms_line_end(k, at);
        uint64_t a;
        if (kallsyms_addr(k, at, end, &a) && a <= pc) {
            best = at;
            best_end = end;
            start = a;
            lo = end < k->size ? end + 1 : k->size;
        } else {
            hi = at;
        }
    }
    if (best == SIZE_MAX)
        return false;
    /* It ends where the next begins; the last gets a page. */
    uint64_t next, end = start < UINT64_MAX - 4096 ? start + 4096 : UINT64_MAX;
    if (best_end + 1 < k->size &&
        kallsyms_addr(k, best_end + 1, kallsyms_line_end(k, best_end + 1), &next))
        end = next;
    if (end <= pc || end <= start)
        return false;
    if (!kallsyms_names(k, best, best_end, out))
        return false;
    out->start = start;
    out->end = end;
    return true;
}

/* Write the copy of T[0..N) (none: the kernel hides its addresses) with KEY
 * to DIR/kallsyms: the open copy, or -1 with *CAUSE. */
static int kallsyms_write(const char *dir, const char *key, const struct symbols_text *t, size_t n,
                          char **cause)
{
    files_mkdirs(dir);
    char *path = xasprintf("%s/kallsyms", dir);
    char *tmp = xasprintf("%s/.kallsyms.XXXXXX", dir);
    int fd = mkostemp(tmp, O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    if (f == NULL) {
        *cause = xasprintf("cannot keep the kernel's symbols in %s: %s", dir, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        free(path);
        return -1;
    }
    fputs(key, f);
    if (n == 0)
        fputs("hidden\n", f);
    for (size_t i = 0; i < n; i++) {
        if (t[i].owner != NULL)
            fprintf(f, "%016llx t %s\t[%s]\n", (unsigned long long)t[i].start, t[i].name,
                    t[i].owner);
        else
            fprintf(f, "%016llx t %s\n", (unsigned long long)t[i].start, t[i].name);
    }
    int ok = fflush(f) == 0 && !ferror(f) && rename(tmp, path) == 0;
    int saved = errno;
    int copy = ok ? dup(fileno(f)) : -1;
    fclose(f);
    if (copy < 0) {
        *cause = xasprintf("cannot keep the kernel's symbols in %s: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    free(path);
    return copy;
}

/* Whether the copy on FD is good for KEY: the user's own private regular
 * file, its first line KEY. */
static bool kallsyms_good(int fd, const char *key)
{
    struct stat st;
    char line[KALLSYMS_KEY_MAX];
    size_t len = strlen(key);
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & 022) == 0 && len < sizeof line &&
           pread(fd, line, len, 0) == (ssize_t)len && memcmp(line, key, len) == 0;
}

/* Whether the copy says the kernel hides its addresses. */
static bool kallsyms_is_hidden(const struct kallsyms *k)
{
    return k->size - k->data >= 7 && memcmp(k->map + k->data, "hidden\n", 7) == 0;
}

struct kallsyms *kallsyms_open(const char *dir, bool *hidden, char **cause)
{
    *hidden = false;
    *cause = NULL;
    char *key = dir != NULL ? kallsyms_key() : NULL;
    if (key == NULL) {
        *cause = xstrdup(dir == NULL ? "no home to keep the kernel's symbols in"
                                     : "the boot is unknown (no /proc/sys/kernel/random/boot_id)");
        return NULL;
    }
    char *path = xasprintf("%s/kallsyms", dir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    free(path);
    if (fd >= 0 && !kallsyms_good(fd, key)) {
        close(fd);
        fd = -1;
    }
    if (fd < 0) { /* made for another boot, modules or user, or not at all */
        FILE *f = fopen("/proc/kallsyms", "re");
        if (f == NULL) {
            *cause = xstrdup("kernel symbols unreadable (/proc/kallsyms)");
            free(key);
            return NULL;
        }
        struct symbols_text *t;
        size_t n = symbols_read_kallsyms(f, &t, hidden);
        fclose(f);
        if (n == 0 && !*hidden) {
            *cause = xstrdup("no kernel symbols in /proc/kallsyms");
            free(key);
            return NULL;
        }
        fd = kallsyms_write(dir, key, t, n, cause);
        symbols_text_free(t, n);
        if (fd < 0) {
            free(key);
            return NULL;
        }
    }
    free(key);
    struct kallsyms *k = kallsyms_map(fd);
    if (k != NULL && kallsyms_is_hidden(k)) {
        *hidden = true;
        kallsyms_close(k);
        return NULL;
    }
    if (k == NULL)
        *cause = xstrdup("the copy of the kernel's symbols cannot be read");
    return k;
}
