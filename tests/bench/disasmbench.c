/* disasmbench - what disassembling a function with capstone costs, through
 * the call the Source view makes (disasm_module), for tests/bench/disasm.sh.
 *
 * Usage: disasmbench [-r REPEAT] [-l LIST] FILE (SYMBOL | biggest | VADDR_LO VADDR_HI)
 *
 * Disassembles the function SYMBOL of FILE, or its biggest function, or the
 * image addresses [VADDR_LO, VADDR_HI) in pieces of at most 1 MiB cut at
 * function starts, REPEAT times (default 50), and prints one line:
 *     name vaddr_lo vaddr_hi bytes insns bad first_ms min_ms median_ms cpu_ms
 * first_ms is the first round (capstone's handle is opened in it), min_ms
 * and median_ms are over the others (wall clock), cpu_ms the median of
 * their CPU time (a loaded machine moves it less).  With -l, LIST gets one line an
 * instruction: its image address in hex, a tab, its text, and for a bad byte
 * a tab and the name of the function holding it. */
#include "config.h"

#include "elf/disasm.h"
#include "elf/module.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One piece of the range, [lo, hi) in file offsets. */
struct piece {
    uint64_t lo, hi;
};

/* Cut [LO, HI) into pieces disasm_module takes, each ending at a function
 * start so that no instruction is split. */
static size_t cut(const struct module *m, uint64_t lo, uint64_t hi, struct piece **out)
{
    size_t n = 0;
    *out = NULL;
    while (lo < hi) {
        uint64_t end = hi - lo > DISASM_MAX_BYTES ? lo + DISASM_MAX_BYTES : hi;
        if (end < hi) {
            size_t k = module_symbol_after(m, end);
            if (k > 0 && m->syms[k - 1].start > lo)
                end = m->syms[k - 1].start;
        }
        *out = realloc(*out, (n + 1) * sizeof **out);
        if (*out == NULL)
            abort();
        (*out)[n++] = (struct piece){lo, end};
        lo = end;
    }
    return n;
}

int main(int argc, char **argv)
{
    int repeat = 50, c;
    const char *list = NULL;
    while ((c = getopt(argc, argv, "r:l:")) != -1) {
        if (c == 'r')
            repeat = atoi(optarg);
        else if (c == 'l')
            list = optarg;
        else
            return 2;
    }
    if (argc - optind < 2 || argc - optind > 3 || repeat < 2) {
        fprintf(stderr, "usage: disasmbench [-r REPEAT] [-l LIST] FILE (SYMBOL | biggest | "
                        "VADDR_LO VADDR_HI)\n");
        return 2;
    }
    char *cause = NULL;
    struct module *m = module_new(0, argv[optind], MODULE_LIBRARY);
    if (module_load(m, &cause) < 0) {
        fprintf(stderr, "disasmbench: %s\n", cause);
        return 1;
    }
    const char *name = argv[optind + 1];
    uint64_t lo = 0, hi = 0;
    if (argc - optind == 3) {
        uint64_t vlo = strtoull(argv[optind + 1], NULL, 0),
                 vhi = strtoull(argv[optind + 2], NULL, 0);
        if (!module_vaddr_to_offset(m, vlo, &lo) || !module_vaddr_to_offset(m, vhi - 1, &hi)) {
            fprintf(stderr, "disasmbench: the range is not in the file\n");
            return 1;
        }
        hi++;
        name = "range";
    } else {
        long best = -1;
        for (size_t i = 0; i < m->nsyms; i++) {
            const struct symbol *s = &m->syms[i];
            if (strcmp(name, "biggest") == 0
                    ? best < 0 || s->end - s->start > m->syms[best].end - m->syms[best].start
                    : strcmp(s->name, name) == 0)
                best = (long)i;
        }
        if (best < 0) {
            fprintf(stderr, "disasmbench: no symbol %s\n", name);
            return 1;
        }
        lo = m->syms[best].start;
        hi = m->syms[best].end;
        name = m->syms[best].name;
    }
    struct piece *pieces;
    size_t npieces = cut(m, lo, hi, &pieces);
    double *ms = calloc((size_t)repeat, sizeof *ms), *cpu = calloc((size_t)repeat, sizeof *cpu);
    size_t insns = 0, bad = 0;
    FILE *out = list ? fopen(list, "w") : NULL;
    for (int r = 0; r < repeat; r++) {
        double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
        insns = bad = 0;
        for (size_t p = 0; p < npieces; p++) {
            size_t n;
            struct disasm_insn *d = disasm_module(m, pieces[p].lo, pieces[p].hi, &n, &cause);
            if (d == NULL) {
                fprintf(stderr, "disasmbench: %s\n", cause);
                return 1;
            }
            insns += n;
            for (size_t i = 0; i < n; i++) {
                bool is_bad = strcmp(d[i].text, "(bad)") == 0;
                bad += is_bad;
                if (out == NULL || r > 0)
                    continue;
                long k = is_bad ? module_find_symbol(m, d[i].offset) : -1;
                const char *fn = !is_bad ? "" : k >= 0 ? m->syms[k].name : "?";
                fprintf(out, "%" PRIx64 "\t%s%s%s\n", d[i].addr, d[i].text, is_bad ? "\t" : "", fn);
            }
            free(d);
        }
        ms[r] = now_ms(CLOCK_MONOTONIC) - t0;
        cpu[r] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    if (out != NULL)
        fclose(out);
    qsort(ms + 1, (size_t)repeat - 1, sizeof *ms, cmp_double);
    qsort(cpu + 1, (size_t)repeat - 1, sizeof *cpu, cmp_double);
    uint64_t vlo, vhi;
    module_offset_to_vaddr(m, lo, &vlo);
    module_offset_to_vaddr(m, hi - 1, &vhi);
    printf("%s 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %zu %zu %.3f %.3f %.3f %.3f\n", name, vlo,
           vhi + 1, hi - lo, insns, bad, ms[0], ms[1], ms[1 + (repeat - 1) / 2],
           cpu[1 + (repeat - 1) / 2]);
    free(ms);
    free(cpu);
    free(pieces);
    module_free(m);
    return 0;
}
