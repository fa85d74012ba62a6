/* libFuzzer target for the source texts a .PRF carries (elf/source.c):
 * names made whole, texts split into lines, looked up again with a
 * compilation directory and a --prefix-map.  The input: a flags byte (bit 0:
 * look up with the compilation directory too; bit 1: add the map; bits 2-3:
 * how many texts, less one), then NUL-ended fields: the compilation
 * directory, the map's OLD=NEW, one name per text; then the texts, the rest
 * of the input cut into as many equal parts. */
#include "config.h"

#include "elf/source.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SOURCE_TEXTS 4

/* The next NUL-ended field of [*P, END), or NULL when there is none. */
static const char *fuzz_source_field(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *nul = memchr(*p, '\0', (size_t)(end - *p));
    if (nul == NULL)
        return NULL;
    const char *field = (const char *)*p;
    *p = nul + 1;
    return field;
}

/* Abort unless F's lines are what source.h promises: each without its
 * newline, all of them within its text, none past the last. */
static void fuzz_source_check(const struct source_file *f)
{
    size_t sum = 0, len;
    for (uint32_t k = 1; k <= f->nlines; k++) {
        const char *line = source_line(f, k, &len);
        if (line == NULL || memchr(line, '\n', len) != NULL || (sum += len + 1) > f->len + 1) {
            fprintf(stderr, "fuzz_source: line %u of %u of %s is not a line of its text\n", k,
                    f->nlines, f->path);
            abort();
        }
    }
    if (source_line(f, f->nlines + 1, &len) != NULL || source_line(f, 0, &len) != NULL) {
        fprintf(stderr, "fuzz_source: %s has a line past its lines\n", f->path);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const uint8_t *p = data + 1, *end = data + size;
    unsigned flags = data[0];
    const char *comp_dir = fuzz_source_field(&p, end);
    const char *map = fuzz_source_field(&p, end);
    const char *names[FUZZ_SOURCE_TEXTS];
    size_t n = 0, want = 1 + (flags >> 2 & 3);
    while (n < want && (names[n] = fuzz_source_field(&p, end)) != NULL)
        n++;
    if (map != NULL && (flags & 2)) {
        char *cause = NULL;
        if (source_add_prefix_map(map, &cause) < 0)
            fuzz_refused(cause);
    }
    size_t rest = (size_t)(end - p);
    for (size_t i = 0; i < n; i++) {
        size_t len = i + 1 < n ? rest / n : rest - (n - 1) * (rest / n);
        source_add_embedded(names[i], (const char *)p + i * (rest / n), len);
    }
    uint32_t lines = 0;
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        char *where = NULL;
        const struct source_file *f = source_find(names[i], NULL, &where);
        if (f == NULL && names[i][0] != '\0' && strlen(names[i]) < 4000) {
            fprintf(stderr, "fuzz_source: the text given for %s is not found (%s)\n", names[i],
                    where);
            abort();
        }
        if (f != NULL) {
            fuzz_source_check(f);
            lines += f->nlines;
            found++;
        } else {
            fuzz_one_line("where a source file was looked for", where);
        }
        free(where);
        if (comp_dir != NULL && (flags & 1)) {
            /* Joined to the directory it may be another name, and on the disk. */
            f = source_find(names[i], comp_dir, &where);
            if (f != NULL)
                fuzz_source_check(f);
            else
                fuzz_one_line("where a source file was looked for", where);
            free(where);
        }
    }
    fuzz_set_verdict("lines: %u, texts found: %zu of %zu", lines, found, n);
    source_reset();
    return 0;
}
