/* libFuzzer target for the kernel's symbols as profil reads /proc/kallsyms:
 * the reader (symbols_read_kallsyms) on the input as a file, whose table
 * must be what symbols.h promises, then a session whose kernel samples and
 * call chains are named from that file (session_rank reads it as it reads
 * /proc/kallsyms), reported, and saved: the file must read back. */
#include "config.h"

#include "elf/kallsyms.h"
#include "elf/symbols.h"
#include "report/report.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/session.h"
#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most kernel samples taken from the table. */
#define FUZZ_KALLSYMS_SAMPLES 32

/* Abort unless T[0..N) is sorted by start, each a range ending where the
 * next begins, with a name on one line. */
static void fuzz_kallsyms_check(const struct symbols_text *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fuzz_one_line("a kernel symbol's name", t[i].name);
        if (t[i].name[0] == '\0' || t[i].end <= t[i].start ||
            (i + 1 < n && (t[i + 1].start <= t[i].start || t[i].end != t[i + 1].start))) {
            fprintf(stderr, "fuzz_kallsyms: entry %zu of %zu: %s [%llx, %llx)\n", i, n, t[i].name,
                    (unsigned long long)t[i].start, (unsigned long long)t[i].end);
            abort();
        }
        if (t[i].owner != NULL)
            fuzz_one_line("a kernel module's name", t[i].owner);
    }
}

/* The same bytes as the sorted copy profil keeps for a boot (elf/kallsyms.c,
 * its first line the key): each lookup answers a function holding the PC,
 * named in one line, or none; at PCS and at addresses taken from DATA. */
static void fuzz_kallsyms_copy(const char *path, const uint64_t *pcs, size_t npcs,
                               const uint8_t *data, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        abort();
    struct kallsyms *k = kallsyms_map(fd);
    if (k == NULL)
        return;
    for (size_t i = 0; i < npcs + 16; i++) {
        uint64_t pc = pcs[i % npcs];
        if (i >= npcs && size >= 8) { /* eight bytes of the input at a place of its own */
            size_t at = (i * 7919) % (size - 7);
            memcpy(&pc, data + at, 8);
        }
        struct symbols_text f;
        if (!kallsyms_find(k, pc, &f))
            continue;
        fuzz_one_line("a kernel function's name in the copy", f.name);
        if (f.owner != NULL)
            fuzz_one_line("a kernel module's name in the copy", f.owner);
        if (f.start > pc || f.end <= pc || f.name[0] == '\0') {
            fprintf(stderr, "fuzz_kallsyms: the copy's %s [%llx, %llx) for %llx\n", f.name,
                    (unsigned long long)f.start, (unsigned long long)f.end, (unsigned long long)pc);
            abort();
        }
        free(f.name);
        free(f.owner);
    }
    kallsyms_close(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_memfd(0, data, size);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        abort();
    struct symbols_text *t;
    bool hidden = false;
    size_t n = symbols_read_kallsyms(f, &t, &hidden);
    fclose(f);
    fuzz_kallsyms_check(t, n);
    fuzz_set_verdict("functions: %zu%s", n, hidden ? ", hidden" : "");

    /* Kernel samples at the functions read, and around them, each with a
     * call chain of the ones before it. */
    uint64_t pcs[2 * FUZZ_KALLSYMS_SAMPLES + 2];
    size_t npcs = 0;
    for (size_t i = 0; i < n && npcs < 2 * FUZZ_KALLSYMS_SAMPLES; i++) {
        pcs[npcs++] = t[i].start;
        pcs[npcs++] = t[i].end - 1;
    }
    pcs[npcs++] = 0;
    pcs[npcs++] = UINT64_MAX;
    symbols_text_free(t, n);
    fuzz_kallsyms_copy(path, pcs, npcs, data, size);
    struct session *s = fuzz_session();
    s->live.kallsyms = path; /* instead of /proc/kallsyms */
    for (size_t i = 0; i < npcs; i++) {
        struct event_stack st = {.kernel = pcs, .nkernel = (uint32_t)(i < 4 ? i : 4)};
        struct event ev = {.type = EVENT_SAMPLE, .pid = 1, .tid = 1, .time_ns = 1000 * (i + 1)};
        ev.sample.pc = pcs[i];
        ev.sample.mode = SAMPLE_KERNEL;
        ev.sample.count = 1;
        ev.sample.stack = i % 2 ? &st : NULL;
        session_ingest(s, &ev);
    }
    session_rank(s);
    FILE *out = fopen("/dev/null", "w");
    if (out == NULL)
        abort();
    report_text(s, "fuzz", out, 0);
    report_tree(s, out, false, 0);
    fclose(out);
    for (size_t i = 0; i < s->nmodules; i++) {
        if (s->modules[i]->load_error != NULL)
            fuzz_one_line("why kernel symbols are missing", s->modules[i]->load_error);
    }
    fuzz_save_reads_back(s, "fuzz_kallsyms");
    session_free(s);
    return 0;
}
