/*
 * Replays a fuzz target's corpus without libFuzzer, so that every past input
 * stays a regression test in make check, whatever the compiler.  One source
 * serves every target: it is linked with one (tests/fuzz/fuzz_*.c) and told
 * its corpus (TEST_CORPUS) and the verdicts recorded for it (TEST_VERDICTS).
 *
 * Each corpus file is one check: the file was read in full, the target
 * returned (a finding aborts, or a sanitizer stops the run, and then the
 * plan said first is not met), and its verdict on the input is the one
 * recorded.  The verdicts file has one line per corpus file, "NAME<TAB>
 * VERDICT", and a third field when a fuzzing build (which skips the .PRF
 * checksums) decides otherwise.  `regress --record` prints the verdicts of
 * this build in that form instead of checking them.
 *
 *   regress [--record] [CORPUS [VERDICTS]]
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"
#include "tests/tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One recorded verdict. */
struct verdict {
    char *name;
    char *want;
    bool seen;
};

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The corpus's file names, sorted: NULL when DIR does not open. */
static char **corpus_names(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    char **names = NULL;
    size_t alloc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == alloc) {
            alloc = alloc ? 2 * alloc : 64;
            names = realloc(names, alloc * sizeof *names);
            if (names == NULL)
                abort();
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n > 1)
        qsort(names, *n, sizeof *names, name_cmp);
    return names != NULL ? names : calloc(1, sizeof *names);
}

/* The verdicts recorded in PATH; none when it cannot be read. */
static struct verdict *read_verdicts(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    struct verdict *v = NULL;
    size_t alloc = 0;
    char *line = NULL;
    size_t cap = 0;
    *n = 0;
    if (f == NULL)
        return NULL;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || tab == NULL)
            continue;
        *tab = '\0';
        char *want = tab + 1, *fuzzing = strchr(want, '\t');
        if (fuzzing != NULL) {
            *fuzzing++ = '\0';
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
            want = fuzzing;
#endif
        }
        if (*n == alloc) {
            alloc = alloc ? 2 * alloc : 64;
            v = realloc(v, alloc * sizeof *v);
            if (v == NULL)
                abort();
        }
        v[(*n)++] = (struct verdict){strdup(line), strdup(want), false};
    }
    free(line);
    fclose(f);
    return v;
}

/* The whole file at PATH into *DATA, exactly its size (so that a read past
 * the input's end is one past the allocation, which ASan sees): true when
 * every byte of it was read. */
static bool read_whole(const char *path, uint8_t **data, size_t *len, size_t *want)
{
    *data = NULL;
    *len = *want = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    *want = (size_t)st.st_size;
    *data = malloc(*want ? *want : 1);
    if (*data == NULL)
        abort();
    while (*len < *want) {
        ssize_t r = read(fd, *data + *len, *want - *len);
        if (r <= 0)
            break;
        *len += (size_t)r;
    }
    close(fd);
    return *len == *want;
}

int main(int argc, char **argv)
{
    bool record = argc > 1 && strcmp(argv[1], "--record") == 0;
    if (record) {
        argc--;
        argv++;
    }
    const char *dir = argc > 1 ? argv[1] : TEST_CORPUS;
    const char *vpath = argc > 2 ? argv[2] : TEST_VERDICTS;
    size_t n, nv;
    char **names = corpus_names(dir, &n);
    struct verdict *v = read_verdicts(vpath, &nv);
    if (!record) {
        if (names == NULL || n == 0) {
            plan(1);
            ok(0, "the corpus %s opens and holds inputs", dir);
            return tap_done();
        }
        plan((int)n); /* one check per file, counted before any is run */
    }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        uint8_t *data;
        size_t len, want;
        bool whole = read_whole(path, &data, &len, &want);
        fuzz_set_verdict("%s", "");
        if (whole)
            LLVMFuzzerTestOneInput(data, len); /* aborts, or ASan stops us, on a finding */
        free(data);
        const char *got = fuzz_verdict();
        if (record) {
            printf("%s\t%s\n", names[i], got);
            continue;
        }
        const char *recorded = NULL;
        for (size_t k = 0; k < nv; k++) {
            if (strcmp(v[k].name, names[i]) == 0) {
                recorded = v[k].want;
                v[k].seen = true;
            }
        }
        if (!whole)
            ok(0, "%s: read in full (%zu of %zu bytes)", names[i], len, want);
        else if (!ok(recorded != NULL && strcmp(got, recorded) == 0, "%s: %zu bytes, %s", names[i],
                     len, got))
            printf("#   recorded in %s: %s\n", vpath, recorded ? recorded : "nothing");
    }
    int stale = 0;
    for (size_t k = 0; k < nv; k++) {
        if (!v[k].seen && !record) {
            printf("# %s: a verdict for %s, which is not in %s\n", vpath, v[k].name, dir);
            stale++;
        }
        free(v[k].name);
        free(v[k].want);
    }
    free(v);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (record)
        return 0;
    int r = tap_done();
    return r != 0 ? r : stale != 0;
}
