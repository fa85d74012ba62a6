/* The callgrind export's names, read back by callgrind_annotate: two
 * functions of one file and name told apart, and a line break in a name kept
 * from ending its line. */
#include "config.h"

#include "export/export.h"
#include "tests/tap.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether TEXT has LINE as a whole line. */
static bool has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++) {
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* Whether callgrind_annotate, run on TEXT in DIR, exits 0 without a
 * warning and lists WANT among the functions. */
static bool annotate_reads(const char *dir, const char *text, const char *want)
{
    char *file = xasprintf("%s/x.callgrind", dir);
    FILE *f = fopen(file, "w");
    if (f == NULL)
        return false;
    fputs(text, f);
    fclose(f);
    char *cmd = xasprintf("cd / && callgrind_annotate --threshold=100 --auto=no %s >%s/out "
                          "2>%s/err && test ! -s %s/err && grep -qF \":%s [\" %s/out",
                          file, dir, dir, dir, want, dir);
    int r = system(cmd);
    if (r != 0) {
        char *show = xasprintf("sed 's/^/# /' %s/err %s/out", dir, dir);
        if (system(show) != 0)
            printf("# callgrind_annotate said nothing\n");
        free(show);
    }
    free(cmd);
    free(file);
    return r == 0;
}

/* The samples at markbit's address in the copy of sieve mapped at BASE. */
static void sample_markbit(struct session *s, const char *path, uint64_t base, uint32_t count)
{
    struct event ev = {.type = EVENT_MMAP, .pid = 1};
    ev.mmap.start = base;
    ev.mmap.len = 0x100000;
    ev.mmap.pgoff = 0;
    ev.mmap.path = path;
    session_ingest(s, &ev);
    const struct module *m = s->modules[0];
    uint64_t markbit = 0;
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, "markbit") == 0)
            markbit = m->syms[i].start;
    }
    struct event smp = {.type = EVENT_SAMPLE, .pid = 1};
    smp.sample.pc = base + markbit;
    smp.sample.mode = SAMPLE_USER;
    smp.sample.count = count;
    session_ingest(s, &smp);
}

static char *callgrind_text(struct session *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    export_callgrind(s, out);
    fclose(out);
    return text;
}

int main(void)
{
    if (system("command -v callgrind_annotate >/dev/null") != 0) {
        printf("Bail out! callgrind_annotate is not installed (valgrind; ./setup installs it)\n");
        return 1;
    }
    plan(8);
    char dir[] = "/tmp/profil-test-export.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        printf("Bail out! mkdtemp failed\n");
        return 1;
    }
    /* The same program under a second path: a second module, whose
     * functions have the first's names and source file. */
    char *twin = xasprintf("%s/sieve-again", dir);
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (symlink(TEST_PROGS "/sieve", twin) != 0 || s == NULL) {
        printf("Bail out! no session of sieve, or no second path to it\n");
        return 1;
    }
    sample_markbit(s, s->modules[0]->path, 0x10000, 3);
    sample_markbit(s, twin, 0x400000, 2);

    char *text = callgrind_text(s);
    ok(strstr(text, ") markbit\n") != NULL, "one markbit is named markbit");
    ok(strstr(text, ") markbit'2\n") != NULL, "the other, of the same file and name, markbit'2");
    ok(has_line(text, "totals: 5"), "totals: the five samples");
    ok(annotate_reads(dir, text, "markbit'2"), "callgrind_annotate reads it, markbit'2 apart");
    free(text);

    /* A line break in a name, as a hostile symbol table may have. */
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (strcmp(s->funcs[i].name, "markbit") == 0) {
            free(s->funcs[i].name);
            s->funcs[i].name = xstrdup("mark\nbit\033[0m");
            break;
        }
    }
    text = callgrind_text(s);
    ok(strstr(text, ") mark?bit?[0m\n") != NULL, "a control byte of a name is written as '?'");
    ok(strstr(text, "\nbit") == NULL, "... and does not end its line");
    ok(annotate_reads(dir, text, "mark?bit?[0m"), "callgrind_annotate reads it, the name whole");
    ok(has_line(text, "totals: 5"), "totals: still the five samples");
    free(text);

    session_free(s);
    char *rm = xasprintf("rm -rf %s", dir);
    if (system(rm) != 0)
        printf("# could not remove %s\n", dir);
    free(rm);
    free(twin);
    return tap_done();
}
