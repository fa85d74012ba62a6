/* Finding and reading source files as source.h orders it, in a tree of the test's own. */
#include "config.h"

#include "elf/source.h"
#include "tests/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];
static char *pool[1024];
static size_t npool;

/* The test's own setup: not a check of profil; when it fails, the test stops. */
static void need(bool done, const char *what)
{
    if (!done) {
        printf("Bail out! setup: %s: %s\n", what, strerror(errno));
        exit(1);
    }
}

/* A formatted string, freed at the end. */
static char *__attribute__((format(printf, 1, 2))) fmt(const char *f, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, f);
    if (vasprintf(&s, f, ap) < 0 || npool == sizeof pool / sizeof *pool)
        abort();
    va_end(ap);
    return pool[npool++] = s;
}

/* REL under the test's root. */
static char *at(const char *rel)
{
    return fmt("%s/%s", root, rel);
}

/* Make the directories of ROOT/REL, and it too when DIR. */
static void mkdirs(const char *rel, bool dir)
{
    char *path = at(rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    if (dir)
        mkdir(path, 0755);
}

/* Write LEN bytes of DATA as ROOT/REL, making its directories. */
static void put_bytes(const char *rel, const void *data, size_t len)
{
    mkdirs(rel, false);
    int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fd, (const char *)data + done, len - done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    close(fd);
}

static void put(const char *rel, const char *text)
{
    put_bytes(rel, text, strlen(text));
}

/* A file of N newlines, then TAIL. */
static void put_newlines(const char *rel, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    char *buf = malloc(n + t);
    if (buf == NULL)
        abort();
    memset(buf, '\n', n);
    memcpy(buf + n, tail, t);
    put_bytes(rel, buf, n + t);
    free(buf);
}

/* A sparse file of SIZE bytes (all NULs). */
static void put_sparse(const char *rel, off_t size)
{
    mkdirs(rel, false);
    int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, size) != 0)
        abort();
    close(fd);
}

/* source_find, saying on a miss where it looked. */
static const struct source_file *find(const char *path, const char *comp_dir)
{
    char *where = NULL;
    const struct source_file *f = source_find(path, comp_dir, &where);
    if (f == NULL)
        printf("#   %s\n", where != NULL ? where : "(no where line)");
    free(where);
    return f;
}

/* The where line of a miss, or NULL when PATH is found (or has no line). */
static char *miss(const char *path, const char *comp_dir)
{
    char *where = (char *)"left alone";
    const struct source_file *f = source_find(path, comp_dir, &where);
    if (f != NULL) { /* the caller's check fails; test_names checks *where of a find */
        printf("#   found %s%s\n", f->path, where == NULL ? "" : ", and *where was set");
        return NULL;
    }
    if (where == NULL || npool == sizeof pool / sizeof *pool)
        return NULL;
    return pool[npool++] = where;
}

static const char *text_of(const struct source_file *f)
{
    return f != NULL ? f->text : NULL;
}

static const char *path_of(const struct source_file *f)
{
    return f != NULL ? f->path : NULL;
}

/* Whether line N of F is the LEN bytes WANT (NULs included). */
static bool line_is(const struct source_file *f, uint32_t n, const char *want, size_t len)
{
    size_t got = 0;
    const char *l = source_line(f, n, &got);
    if (l == NULL || got != len || memcmp(l, want, len) != 0 || l[len] != '\0') {
        printf("#   line %u: %s, %zu bytes, want %zu\n", n, l != NULL ? "there" : "none", got, len);
        return false;
    }
    return true;
}

/* Relative names joined to the compilation directory, ".." resolved lexically. */
static void test_names(void)
{
    put("build/x/src/a.c", "int a;\n");
    char *where = (char *)"left alone";
    const struct source_file *f = source_find("src/a.c", at("build/x"), &where);
    is_str(path_of(f), at("build/x/src/a.c"), "a relative name is joined to its comp_dir");
    ok(where == NULL, "found: *where is NULL");
    is_u64(f != NULL ? f->nlines : 0, 1, "one line");
    is_str(f != NULL && f->nlines > 0 ? f->lines[0] : NULL, "int a;", "without its newline");
    struct stat st;
    ok(f != NULL && !f->embedded && stat(at("build/x/src/a.c"), &st) == 0 &&
           f->mtime == (int64_t)st.st_mtim.tv_sec,
       "from the disk, with the file's mtime");
    ok(find(at("build/x/src/a.c"), NULL) == f, "the absolute name is the same file, kept");
    ok(find("./src/../src//a.c", fmt("%s/", at("build/x"))) == f,
       "so is a roundabout spelling of it");
    ok(find(at("build/x/src/a.c"), "/elsewhere") == f, "an absolute name ignores comp_dir");

    /* build/link is a symbolic link to other/deep: the kernel resolves
     * link/../a.c to other/a.c, DWARF's consumers to build/a.c. */
    put("build/a.c", "build\n");
    put("other/a.c", "other\n");
    mkdirs("other/deep", true);
    need(symlink(at("other/deep"), at("build/link")) == 0, "build/link -> other/deep");
    char got[16] = "";
    int fd = open(at("build/link/../a.c"), O_RDONLY);
    need(fd >= 0 && read(fd, got, sizeof got - 1) > 0 && strcmp(got, "other\n") == 0,
         "the kernel takes link/.. to other/");
    close(fd);
    f = find("../a.c", at("build/link"));
    is_str(path_of(f), at("build/a.c"), "../a.c is joined and resolved lexically");
    is_str(text_of(f), "build\n", "and read from there");
    ok(find("../../a.c", at("build/x/src")) == f, "two levels up");
    ok(find(at("build/x/../a.c"), NULL) == f, "an absolute name is resolved too");
    ok(find(fmt("%s/../../../../../../../../..%s", at("build"), at("build/a.c")), NULL) == f,
       "\"..\" above / stays at /");

    need(chdir(root) == 0, "into the root");
    f = find("build/a.c", NULL);
    is_str(path_of(f), "build/a.c", "no comp_dir: a relative name is taken from the cwd");
    is_str(text_of(f), "build\n", "its text");
    ok(find("build/a.c", "") == f, "an empty comp_dir is none");
    ok(find("x/../build/./a.c", NULL) == f, "relative names are resolved as well");
    need(chdir("/") == 0, "back to /");
    ok(find("build/a.c", NULL) == f, "the answer is kept even so");
    source_reset();
    is_str(miss("build/a.c", NULL), "not found: build/a.c",
           "after source_reset it is looked for again, from /");
}

static void test_prefix_maps(void)
{
    char *cause = NULL;
    ok(source_add_prefix_map("noequals", &cause) == -EINVAL, "a map without '=' is refused");
    ok(cause != NULL && strstr(cause, "noequals") != NULL && strchr(cause, '\n') == NULL,
       "with one line that names it: %s", cause != NULL ? cause : "(none)");
    free(cause);
    cause = NULL;
    ok(source_add_prefix_map("=/src", &cause) == -EINVAL && cause != NULL,
       "a map with an empty OLD is refused");
    free(cause);
    cause = NULL;
    ok(source_add_prefix_map("", &cause) == -EINVAL && cause != NULL, "an empty map is refused");
    free(cause);
    cause = NULL;
    ok(source_add_prefix_map("/old=", &cause) == 0 && cause == NULL, "an empty NEW is taken");
    source_reset();

    put("src/m.c", "mapped\n");
    put("build/x/m.c", "original\n");
    ok(source_add_prefix_map(fmt("%s=%s", at("build/x"), at("src")), &cause) == 0, "a map");
    const struct source_file *f = find(at("build/x/m.c"), NULL);
    is_str(path_of(f), at("src/m.c"), "the mapped name comes before the name itself");
    is_str(text_of(f), "mapped\n", "and is read");
    ok(find("m.c", at("build/x")) == f, "a relative name is mapped once joined");
    put("build/x/only.c", "only\n");
    is_str(path_of(find(at("build/x/only.c"), NULL)), at("build/x/only.c"),
           "the name itself when the mapped one is not there");

    /* Both wrong ways to map build/xy/b.c without a boundary find a file. */
    put("srcy/b.c", "no\n");
    put("src/y/b.c", "no\n");
    is_str(miss(at("build/xy/b.c"), NULL), fmt("not found: %s", at("build/xy/b.c")),
           "OLD maps only at a component boundary");
    is_str(miss(at("build/x/none.c"), NULL),
           fmt("not found: %s (--prefix-map %s=%s), %s", at("src/none.c"), at("build/x"), at("src"),
               at("build/x/none.c")),
           "the where line names the map");

    put("second/x/m2.c", "second\n");
    put("src/m2.c", "first\n");
    put("second/z/m3.c", "z\n");
    ok(source_add_prefix_map(fmt("%s=%s", at("build"), at("second")), &cause) == 0,
       "a second map, shorter");
    is_str(text_of(find(at("build/x/m2.c"), NULL)), "first\n", "the first map that matches wins");
    is_str(text_of(find(at("build/z/m3.c"), NULL)), "z\n", "the second serves what it alone maps");
    source_reset();
    ok(source_add_prefix_map(fmt("%s=%s", at("build"), at("second")), &cause) == 0 &&
           source_add_prefix_map(fmt("%s=%s", at("build/x"), at("src")), &cause) == 0,
       "the same maps the other way round");
    is_str(text_of(find(at("build/x/m2.c"), NULL)), "second\n",
           "first in order wins, not the longest");
    source_reset();

    ok(source_add_prefix_map(fmt("%s/=%s/", at("build/x"), at("src")), &cause) == 0,
       "a map with trailing slashes");
    is_str(path_of(find(at("build/x/m.c"), NULL)), at("src/m.c"), "maps as well, with one '/'");
    source_reset();
    ok(source_add_prefix_map(fmt("/=%s/", at("src")), &cause) == 0, "a map of /");
    is_str(path_of(find("/y/b.c", NULL)), at("src/y/b.c"), "maps every absolute name");
    source_reset();
}

static void test_dirs(void)
{
    char *rel = root + 1; /* the root without its leading '/' */
    put("d1/src/t.c", "d1 src\n");
    put("d1/t.c", "d1 base\n");
    put("d1/u.c", "d1\n");
    put("d2/x/src/u.c", "d2\n");
    put(fmt("d2/%s/gone/x/src/v.c", rel), "whole\n");
    put("d2/w.c", "w\n");
    put("d1/build/src/rel.c", "rel\n");
    put("d1/lead.c", "lead\n");
    put("lead.c", "escaped\n");
    mkdirs("d1/src/y.c", true);
    source_add_dir(at("d1"));
    source_add_dir(fmt("%s/", at("d2")));

    is_str(path_of(find(at("gone/x/src/t.c"), NULL)), at("d1/src/t.c"),
           "in a directory, the longer tail first");
    is_str(path_of(find(at("gone/x/src/u.c"), NULL)), at("d1/u.c"),
           "the first directory before a longer tail in the second");
    is_str(path_of(find(at("gone/x/src/v.c"), NULL)), fmt("%s/%s/gone/x/src/v.c", at("d2"), rel),
           "the whole name under a directory");
    is_str(path_of(find(at("gone/x/src/w.c"), NULL)), at("d2/w.c"), "the basename");
    is_str(path_of(find("src/rel.c", "/nowhere/build")), at("d1/build/src/rel.c"),
           "a relative name's tails come from its joined name");
    need(chdir("/") == 0, "in /");
    is_str(path_of(find("../lead.c", NULL)), at("d1/lead.c"),
           "a leading \"..\" does not climb out of the directory");

    is_str(miss(at("gone/x/src/z.c"), NULL),
           fmt("not found: %s, %s/%s/gone/x/src/z.c, ..., %s (--source-dir %s), "
               "%s/%s/gone/x/src/z.c, ..., %s (--source-dir %s/)",
               at("gone/x/src/z.c"), at("d1"), rel, at("d1/z.c"), at("d1"), at("d2"), rel,
               at("d2/z.c"), at("d2")),
           "the where line: each directory's first and last place");
    is_str(miss(at("gone/x/src/y.c"), NULL),
           fmt("not found: %s, %s/%s/gone/x/src/y.c, ..., %s (not a regular file), %s "
               "(--source-dir %s), %s/%s/gone/x/src/y.c, ..., %s (--source-dir %s/)",
               at("gone/x/src/y.c"), at("d1"), rel, at("d1/src/y.c"), at("d1/y.c"), at("d1"),
               at("d2"), rel, at("d2/y.c"), at("d2")),
           "and a place passed over for a reason");
    ok(source_find(at("gone/x/src/z.c"), NULL, NULL) == NULL, "WHERE may be NULL");
    char *bad = miss(at("bad\nname\t.c"), NULL);
    if (!ok(bad != NULL && strchr(bad, '\n') == NULL && strchr(bad, '\t') == NULL &&
                strstr(bad, "bad?name?.c") != NULL,
            "a control character in a name does not break the line"))
        printf("#   %s\n", bad != NULL ? bad : "(none)");
    source_reset();
}

static void test_cache(void)
{
    put("c/k.c", "one\n");
    const struct source_file *f = find(at("c/k.c"), NULL);
    is_str(text_of(f), "one\n", "read");
    put("c/k.c", "two, longer\n");
    ok(find(at("c/k.c"), NULL) == f && strcmp(f->text, "one\n") == 0,
       "a second call is the kept file, not read again");
    unlink(at("c/k.c"));
    ok(find(at("c/k.c"), NULL) == f, "even once the file is gone");

    char *before = miss(at("c/late.c"), NULL);
    ok(before != NULL, "not there yet");
    put("c/late.c", "late\n");
    is_str(miss(at("c/late.c"), NULL), before, "a miss is kept, with its where line");

    put("c/e.c", "disk\n");
    const struct source_file *disk = find(at("c/e.c"), NULL);
    source_add_dir(at("unused"));
    is_str(text_of(find(at("c/late.c"), NULL)), "late\n", "a new setting forgets the answers");
    is_str(miss(at("c/k.c"), NULL),
           fmt("not found: %s, %s%s, ..., %s (--source-dir %s)", at("c/k.c"), at("unused"),
               at("c/k.c"), at("unused/k.c"), at("unused")),
           "the kept file is looked for again");
    is_str(text_of(f), "one\n", "what was handed out stays until source_reset");
    source_add_embedded(at("c/e.c"), "embedded\n", 9);
    const struct source_file *e = find(at("c/e.c"), NULL);
    ok(e != NULL && e != disk && e->embedded, "embedded text given later wins");
    is_str(disk->text, "disk\n", "the file read before stays");
    source_reset();
}

static void test_embedded(void)
{
    put("build/x/src/a.c", "disk\n");
    char buf[] = "embedded\nsecond";
    source_add_embedded(at("build/x/src/a.c"), buf, strlen(buf));
    buf[0] = 'X';
    const struct source_file *f = find("src/a.c", at("build/x"));
    ok(f != NULL && f->embedded && f->mtime == 0, "embedded text wins over the disk");
    is_str(text_of(f), "embedded\nsecond", "TEXT was copied");
    is_str(path_of(f), at("build/x/src/a.c"), "its path is the name");
    is_u64(f != NULL ? f->nlines : 0, 2, "two lines");
    ok(line_is(f, 2, "second", 6), "the last without a newline");

    source_add_embedded("/emb//dir/./f.c", "f\n", 2);
    is_str(text_of(find("f.c", "/emb/dir")), "f\n", "registered names are resolved too");
    source_add_embedded("/emb/dir/f.c", "g\n", 2);
    is_str(text_of(find("f.c", "/emb/dir")), "g\n", "a later text replaces the first");
    source_add_embedded("/emb/empty.c", "", 0);
    f = find("/emb/empty.c", NULL);
    ok(f != NULL && f->nlines == 0 && f->len == 0, "empty embedded text: no lines");

    char *huge = calloc(1, SOURCE_MAX_BYTES + 1);
    if (huge == NULL)
        abort();
    source_add_embedded(at("big/e.c"), huge, SOURCE_MAX_BYTES + 1);
    is_str(miss(at("big/e.c"), NULL),
           fmt("not found: the embedded text (larger than 64 MiB), %s", at("big/e.c")),
           "embedded text over 64 MiB is refused, and said so");
    put("big/d.c", "disk\n");
    source_add_embedded(at("big/d.c"), huge, SOURCE_MAX_BYTES + 1);
    f = find(at("big/d.c"), NULL);
    ok(f != NULL && !f->embedded, "then the disk is searched");
    memset(huge, '\n', SOURCE_MAX_LINES + 1);
    source_add_embedded(at("many/e.c"), huge, SOURCE_MAX_LINES + 1);
    free(huge);
    is_str(miss(at("many/e.c"), NULL),
           fmt("not found: the embedded text (more than 10000000 lines), %s", at("many/e.c")),
           "embedded text of too many lines is refused");
    source_reset();
}

static void test_hostile(void)
{
    alarm(30); /* a read that blocks fails the test rather than hang it */
    mkdirs("h", true);
    need(mkfifo(at("h/fifo.c"), 0644) == 0, "a FIFO");
    is_str(miss(at("h/fifo.c"), NULL), fmt("not found: %s (not a regular file)", at("h/fifo.c")),
           "a FIFO is passed over, without blocking");
    is_str(miss("/dev/zero", NULL), "not found: /dev/zero (not a regular file)", "so is /dev/zero");
    need(symlink("/dev/zero", at("h/zero.c")) == 0, "a link to /dev/zero");
    is_str(miss(at("h/zero.c"), NULL), fmt("not found: %s (not a regular file)", at("h/zero.c")),
           "so is a link to it");
    mkdirs("h/dir.c", true);
    is_str(miss(at("h/dir.c"), NULL), fmt("not found: %s (not a regular file)", at("h/dir.c")),
           "so is a directory");
    char *cause = NULL;
    ok(source_add_prefix_map(fmt("%s=%s", at("h/m"), at("h/fifo-dir")), &cause) == 0, "a map");
    mkdirs("h/fifo-dir", true);
    need(mkfifo(at("h/fifo-dir/f.c"), 0644) == 0, "to a FIFO");
    put("h/m/f.c", "after\n");
    is_str(text_of(find(at("h/m/f.c"), NULL)), "after\n", "the search goes on after a FIFO");

    put_sparse("h/big.c", (off_t)SOURCE_MAX_BYTES + 1);
    is_str(miss(at("h/big.c"), NULL), fmt("not found: %s (larger than 64 MiB)", at("h/big.c")),
           "a file over 64 MiB is refused");
    put_sparse("h/edge.c", (off_t)SOURCE_MAX_BYTES);
    const struct source_file *f = find(at("h/edge.c"), NULL);
    ok(f != NULL && f->len == SOURCE_MAX_BYTES && f->nlines == 1, "64 MiB exactly is read");
    size_t len = 0;
    ok(f != NULL && source_line(f, 1, &len) != NULL && len == SOURCE_MAX_BYTES,
       "its one line is all of it, NULs and all");
    source_reset();

    /* Root reads a file of mode 0: as root, the check is made by a child
     * that has become nobody (the tree is opened to it for that). */
    put("h/secret.c", "secret\n");
    chmod(at("h/secret.c"), 0);
    char *secret_want = fmt("not found: %s (%s)", at("h/secret.c"), strerror(EACCES));
    if (geteuid() != 0) {
        is_str(miss(at("h/secret.c"), NULL), secret_want, "an unreadable file says why");
    } else {
        need(chmod(root, 0755) == 0, "the tree opened to nobody");
        fflush(stdout);
        pid_t child = fork();
        need(child >= 0, "fork");
        if (child == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(2);
            char *why = miss(at("h/secret.c"), NULL);
            printf("#   as nobody: %s\n", why != NULL ? why : "(found)");
            fflush(stdout);
            _exit(why != NULL && strcmp(why, secret_want) == 0 ? 0 : 1);
        }
        int status = 0;
        need(waitpid(child, &status, 0) == child, "waitpid");
        chmod(root, 0700);
        ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "an unreadable file says why (as nobody: exit %d)",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }

    put("h/crlf.c", "a\r\nb\r\n\r\nlone\rcr\nend\r");
    f = find(at("h/crlf.c"), NULL);
    is_u64(f != NULL ? f->nlines : 0, 5, "CRLF: five lines");
    ok(line_is(f, 1, "a", 1) && line_is(f, 2, "b", 1) && line_is(f, 3, "", 0),
       "a \"\\r\\n\" ending loses its '\\r'");
    ok(line_is(f, 4, "lone\rcr", 7), "a lone '\\r' is kept");
    ok(line_is(f, 5, "end\r", 4), "and so is a last '\\r' without '\\n'");
    is_str(text_of(f), "a\r\nb\r\n\r\nlone\rcr\nend\r", "the text is as read");

    put("h/nonl.c", "one\ntwo");
    f = find(at("h/nonl.c"), NULL);
    ok(f != NULL && f->nlines == 2 && line_is(f, 2, "two", 3), "no final newline: a last line");
    ok(source_line(f, 0, &len) == NULL && source_line(f, 3, &len) == NULL,
       "no line 0, none past the end");

    static const char nul[] = "a\0b\nc\0\n\0";
    put_bytes("h/nul.c", nul, sizeof nul - 1);
    f = find(at("h/nul.c"), NULL);
    is_u64(f != NULL ? f->nlines : 0, 3, "NULs do not split lines");
    ok(line_is(f, 1, "a\0b", 3) && line_is(f, 2, "c\0", 2) && line_is(f, 3, "\0", 1),
       "each line keeps its NULs");
    is_str(f != NULL ? f->lines[0] : NULL, "a", "read as a string, a line stops at its NUL");
    ok(f != NULL && f->len == sizeof nul - 1 && memcmp(f->text, nul, sizeof nul - 1) == 0,
       "the text keeps them");

    put("h/empty.c", "");
    f = find(at("h/empty.c"), NULL);
    ok(f != NULL && f->nlines == 0 && f->len == 0 && f->text != NULL && f->text[0] == '\0' &&
           f->lines != NULL,
       "an empty file: no lines");
    put("h/newline.c", "\n");
    f = find(at("h/newline.c"), NULL);
    ok(f != NULL && f->nlines == 1 && line_is(f, 1, "", 0), "a newline alone: one empty line");
    put("h/tabs.c", "\tx\t\n");
    ok(line_is(find(at("h/tabs.c"), NULL), 1, "\tx\t", 3), "tabs are kept");

    unsigned char bytes[256];
    for (int i = 0; i < 256; i++)
        bytes[i] = (unsigned char)i;
    put_bytes("h/binary.c", bytes, sizeof bytes);
    f = find(at("h/binary.c"), NULL);
    ok(f != NULL && f->len == 256 && f->nlines == 2, "a binary file is read as text");
    ok(line_is(f, 1, (const char *)bytes, 10) && line_is(f, 2, (const char *)bytes + 11, 245),
       "split at its one '\\n'");

    put_newlines("h/lines.c", SOURCE_MAX_LINES, "");
    f = find(at("h/lines.c"), NULL);
    is_u64(f != NULL ? f->nlines : 0, SOURCE_MAX_LINES, "ten million lines are read");
    ok(line_is(f, SOURCE_MAX_LINES, "", 0), "the last of them");
    source_reset();
    put_newlines("h/more.c", SOURCE_MAX_LINES, "x");
    is_str(miss(at("h/more.c"), NULL),
           fmt("not found: %s (more than 10000000 lines)", at("h/more.c")),
           "one more, without its newline, is refused");
    put_newlines("h/more2.c", SOURCE_MAX_LINES + 1, "");
    is_str(miss(at("h/more2.c"), NULL),
           fmt("not found: %s (more than 10000000 lines)", at("h/more2.c")),
           "as is one more with it");

    char longname[5000];
    memset(longname, 'a', sizeof longname - 1);
    longname[0] = '/';
    longname[sizeof longname - 1] = '\0';
    char *where = miss(longname, NULL);
    ok(where != NULL && strncmp(where, "not looked for:", 15) == 0, "a name too long: %s",
       where != NULL ? where : "(none)");
    ok(miss("", NULL) != NULL && source_find(NULL, NULL, NULL) == NULL, "no name: nothing");
    alarm(0);
    source_reset();
}

int main(void)
{
    plan(103);
    snprintf(root, sizeof root, "/tmp/profil-source.XXXXXX");
    if (mkdtemp(root) == NULL)
        return 1;
    test_names();
    test_prefix_maps();
    test_dirs();
    test_cache();
    test_embedded();
    test_hostile();

    char *cmd = fmt("rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", root);
    for (size_t i = 0; i < npool; i++)
        free(pool[i]);
    return tap_done();
}
