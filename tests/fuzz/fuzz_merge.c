/* libFuzzer target for --merge (analysis/merge.c): two sessions read as
 * profil reads the files named (prf_read_file: a .PRF, or a 1983 PROFIL
 * file), added up, and the sum saved: the file saved must read back.  The
 * input: a little-endian u32 whose low 24 bits are the first file's length
 * and whose bit 24 is --force, the first file, then the second. */
#include "config.h"

#include "analysis/merge.h"
#include "elf/source.h"
#include "prf/prf.h"
#include "report/report.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run as main_read reads it: NULL after checking the refusal. */
static struct session *fuzz_merge_read(const char *path)
{
    char *cause = NULL;
    struct session *s = prf_read_file(path, &cause);
    if (s == NULL)
        fuzz_refused(cause);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t head = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                    (uint32_t)data[3] << 24;
    size_t alen = head & 0xffffff;
    bool force = head >> 24 & 1;
    if (alen > size - 4)
        alen = size - 4;
    const char *a = fuzz_memfd(0, data + 4, alen);
    const char *b = fuzz_memfd(1, data + 4 + alen, size - 4 - alen);
    const char *names[2] = {"a.PRF", "b.PRF"};
    struct session *runs[2] = {fuzz_merge_read(a), NULL};
    runs[1] = runs[0] != NULL ? fuzz_merge_read(b) : NULL;
    if (runs[1] == NULL) {
        fuzz_set_verdict("%s refused", runs[0] == NULL ? "the first" : "the second");
        session_free(runs[0]);
        source_reset();
        return 0;
    }
    /* What the merge adds to: a second reading of the first run. */
    struct session *out = fuzz_merge_read(a);
    if (out == NULL) {
        fprintf(stderr, "fuzz_merge: the first file read once, but not twice\n");
        abort();
    }
    char *cause = NULL;
    if (merge_sessions(out, runs, names, 2, force, &cause) < 0) {
        fuzz_refused(cause);
        fuzz_set_verdict("not merged");
    } else {
        fuzz_set_verdict("merged");
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull == NULL)
            abort();
        report_text(out, "fuzz", devnull, 0);
        fclose(devnull);
        fuzz_save_reads_back(out, "fuzz_merge");
    }
    session_free(out);
    session_free(runs[0]);
    session_free(runs[1]);
    source_reset();
    return 0;
}
