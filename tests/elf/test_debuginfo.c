/* Finding debug files as gdb does, under a debug directory of the test's own. */
#include "config.h"

#include "elf/debuginfo.h"
#include "elf/module.h"
#include "tests/tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

/* Copy FROM to TO, making TO's directories; returns whether it worked. */
static bool copy(const char *from, const char *to)
{
    char *cmd = NULL;
    if (asprintf(&cmd, "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", to, from, to) < 0)
        abort();
    bool r = system(cmd) == 0;
    free(cmd);
    return r;
}

/* Where debuginfo_find finds Q's debug file, or NULL; the caller frees it. */
static char *find(const struct debuginfo_query *q)
{
    struct debuginfo_file f;
    if (debuginfo_find(q, &f) < 0)
        return NULL;
    char *path = strdup(f.path);
    debuginfo_file_close(&f);
    return path;
}

/* Whether debuginfo_find finds nothing for Q. */
static bool none(const struct debuginfo_query *q)
{
    char *path = find(q);
    if (path != NULL)
        printf("#   found %s\n", path);
    free(path);
    return path == NULL;
}

/* The test's own setup: when it fails, the test stops. */
static void need(bool done, const char *what)
{
    if (!done) {
        printf("Bail out! setup: %s\n", what);
        exit(1);
    }
}

/* The CRC that objcopy wrote into STRIPPED's .gnu_debuglink for its debug file. */
static uint32_t debuglink_crc(const char *stripped)
{
    char *out = NULL, *cmd = NULL;
    if (asprintf(&out, "%s/debuglink", root) < 0 ||
        asprintf(&cmd, "objcopy --dump-section .gnu_debuglink='%s' '%s' '%s/scratch'", out,
                 stripped, root) < 0)
        abort();
    need(system(cmd) == 0, "objcopy --dump-section .gnu_debuglink");
    unsigned char sec[512];
    FILE *f = fopen(out, "rb");
    size_t len = f != NULL ? fread(sec, 1, sizeof sec, f) : 0;
    if (f != NULL)
        fclose(f);
    /* The name, its NUL, padding to 4 bytes, then the CRC, little-endian. */
    need(len >= 8 && len % 4 == 0, ".gnu_debuglink read");
    uint32_t crc = (uint32_t)sec[len - 4] | (uint32_t)sec[len - 3] << 8 |
                   (uint32_t)sec[len - 2] << 16 | (uint32_t)sec[len - 1] << 24;
    unlink(out);
    free(out);
    free(cmd);
    return crc;
}

static uint32_t crc_of(const char *path, const char *stripped)
{
    uint32_t crc = 0, want = debuglink_crc(stripped);
    int fd = open(path, O_RDONLY);
    bool read = fd >= 0 && debuginfo_crc32(fd, &crc) == 0;
    ok(read && crc == want, "the CRC of %s: %08x, as objcopy wrote it into %s (%08x)", path, crc,
       stripped, want);
    if (fd >= 0)
        close(fd);
    return crc;
}

int main(void)
{
    plan(9);
    unsetenv("DEBUGINFOD_URLS");
    snprintf(root, sizeof root, "/tmp/profil-debuginfo.XXXXXX");
    if (mkdtemp(root) == NULL)
        return 1;
    char *debug = NULL, *image = NULL, *under = NULL, *byid = NULL, *cmd = NULL;
    if (asprintf(&debug, "%s/sieve-debuglink.debug", TEST_PROGS) < 0 ||
        asprintf(&image, "%s/bin/sieve-x", root) < 0)
        abort();
    debuginfo_set_root(root);

    /* .gnu_debuglink under the global directory: ROOT/<dir of the image>/NAME. */
    uint32_t crc = crc_of(debug, TEST_PROGS "/sieve-debuglink");
    struct debuginfo_query q = {image, "sieve-x", NULL, 0, "sieve-x.debug", crc};
    ok(none(&q), "nothing installed: no debug file");
    if (asprintf(&under, "%s%s/bin/sieve-x.debug", root, root) < 0)
        abort();
    need(copy(debug, under), "the debug file installed under the root");
    char *got = find(&q);
    is_str(got, under, "the debuglink is found under the global directory");
    free(got);
    q.debuglink_crc = crc ^ 1;
    ok(none(&q), "not with another CRC");

    /* By build id: ROOT/.build-id/xx/rest.debug, whose build id must be it. */
    struct module *m = module_new(0, TEST_PROGS "/sieve", MODULE_PROGRAM);
    char *cause = NULL;
    ok(module_load(m, &cause) == 0 && m->build_id_len >= 2, "sieve has a build id");
    free(cause);
    struct debuginfo_query b = {m->path, m->name, m->build_id, m->build_id_len, NULL, 0};
    char hex[65] = "";
    for (size_t i = 0; i < m->build_id_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
    if (asprintf(&byid, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) < 0)
        abort();
    need(copy(TEST_PROGS "/sieve-nobid", byid), "a file of another build installed");
    debuginfo_set_root(root); /* forget the answers so far */
    ok(none(&b), "a file without a build id is not taken, as gdb does not");
    need(copy(TEST_PROGS "/sieve-nopie", byid), "a file with another build id installed");
    debuginfo_set_root(root);
    ok(none(&b), "nor one with another build id");
    need(copy(TEST_PROGS "/sieve", byid), "the right one installed");
    debuginfo_set_root(root);
    got = find(&b);
    is_str(got, byid, "the build-id directory finds it");
    free(got);
    /* An answer kept for the build id is checked: its file may have gone. */
    unlink(byid);
    ok(none(&b), "a kept answer whose file is gone finds nothing");

    module_free(m);
    debuginfo_set_root(NULL);
    if (asprintf(&cmd, "rm -rf '%s'", root) < 0)
        abort();
    if (system(cmd) != 0)
        printf("# could not remove %s\n", root);
    free(cmd);
    free(debug);
    free(image);
    free(under);
    free(byid);
    return tap_done();
}
