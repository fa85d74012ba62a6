/* The sorted copy of /proc/kallsyms profil keeps for a boot (elf/kallsyms.c):
 * lookups in a copy written here, then the real one: made private, its key
 * checked, made again when it is stale or not the user's, and naming each
 * PC as a whole read of /proc/kallsyms does. */
#include "config.h"

#include "elf/kallsyms.h"
#include "elf/symbols.h"
#include "tests/tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

/* A copy of TEXT, mapped. */
static struct kallsyms *copy_of(const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/made", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        abort();
    return kallsyms_map(open(path, O_RDONLY | O_CLOEXEC));
}

/* The name kallsyms_find gives PC in K, "-" for none. */
static char *name_at(const struct kallsyms *k, uint64_t pc)
{
    struct symbols_text t;
    if (!kallsyms_find(k, pc, &t))
        return strdup("-");
    char *s = NULL;
    if (asprintf(&s, "%s %llx-%llx%s%s", t.name, (unsigned long long)t.start,
                 (unsigned long long)t.end, t.owner ? " " : "", t.owner ? t.owner : "") < 0)
        abort();
    free(t.name);
    free(t.owner);
    return s;
}

static void check_lookups(void)
{
    struct kallsyms *k = copy_of("key line\n"
                                 "0000000000001000 t first\n"
                                 "0000000000001010 t second\n"
                                 "0000000000002000 t third\t[ext4]\n");
    ok(k != NULL, "a copy maps");
    char *n;
    is_str(n = name_at(k, 0xfff), "-", "below the first: none");
    free(n);
    is_str(n = name_at(k, 0x1000), "first 1000-1010", "at a start: that one, ending at the next");
    free(n);
    is_str(n = name_at(k, 0x100f), "first 1000-1010", "its last byte");
    free(n);
    is_str(n = name_at(k, 0x1fff), "second 1010-2000", "the middle one");
    free(n);
    is_str(n = name_at(k, 0x2000), "third 2000-3000 ext4", "the last: a page, and its module");
    free(n);
    is_str(n = name_at(k, 0x3000), "-", "past the last one's page: none");
    free(n);
    kallsyms_close(k);
    k = copy_of("key line\nnot a symbol\n0000000000001000 t\n");
    ok(k != NULL, "a copy of junk maps");
    is_str(n = name_at(k, 0x1000), "-", "and names nothing");
    free(n);
    kallsyms_close(k);
    ok(copy_of("") == NULL, "an empty copy is none");
}

static void check_real(void)
{
    bool hidden;
    char *cause = NULL;
    struct kallsyms *k = kallsyms_open(dir, &hidden, &cause);
    char path[128];
    snprintf(path, sizeof path, "%s/kallsyms", dir);
    struct stat st;
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_uid == geteuid(),
       "the copy is made, the user's, private (%s)", cause ? cause : "no cause");
    FILE *f = fopen("/proc/kallsyms", "re");
    struct symbols_text *t = NULL;
    bool hid = false;
    size_t n = f != NULL ? symbols_read_kallsyms(f, &t, &hid) : 0;
    if (f != NULL)
        fclose(f);
    ok(hidden == hid, "hidden when the kernel hides its addresses, as a whole read says (%d)", hid);
    ok((k != NULL) == (n > 0), "open when there are addresses to look up");
    /* Every 97th function, its first and last byte: the same name. */
    size_t same = 0, tried = 0;
    for (size_t i = 0; k != NULL && i < n; i += 97) {
        uint64_t at[2] = {t[i].start, t[i].end - 1};
        for (int j = 0; j < 2; j++) {
            struct symbols_text g;
            tried++;
            if (kallsyms_find(k, at[j], &g)) {
                same += strcmp(g.name, t[i].name) == 0 && g.start == t[i].start &&
                        g.end == t[i].end && (g.owner == NULL) == (t[i].owner == NULL);
                free(g.name);
                free(g.owner);
            }
        }
    }
    ok(same == tried, "each PC named as a whole read names it (%zu of %zu)", same, tried);
    symbols_text_free(t, n);
    kallsyms_close(k);
    free(cause);

    /* Stale: another key. */
    f = fopen(path, "r+");
    if (f == NULL || fputs("profil-kallsyms 0", f) < 0 || fclose(f) != 0)
        abort();
    k = kallsyms_open(dir, &hidden, &cause);
    char line[32] = "";
    f = fopen(path, "r");
    if (f == NULL || fgets(line, sizeof line, f) == NULL)
        abort();
    fclose(f);
    ok(strncmp(line, "profil-kallsyms 1 ", 18) == 0, "a copy with another key is made again");
    kallsyms_close(k);
    free(cause);
    /* Not private: made again, private. */
    chmod(path, 0666);
    k = kallsyms_open(dir, &hidden, &cause);
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "a copy others may write is replaced");
    kallsyms_close(k);
    free(cause);
}

int main(void)
{
    plan(17);
    snprintf(dir, sizeof dir, "/tmp/test_kallsyms.XXXXXX");
    if (mkdtemp(dir) == NULL)
        abort();
    check_lookups();
    check_real();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    char *d = kallsyms_dir();
    ok(d != NULL && strstr(d, "/profil") != NULL, "the copy's place ends in /profil (%s)",
       d ? d : "none");
    free(d);
    return tap_done();
}
