/* libFuzzer target for what profil reads of a program: its ELF headers,
 * symbols and PLT, its DWARF (lines, inlined functions), its call-frame
 * information, its code and its separate debug file.  The input is the
 * program's file, optionally followed by FUZZ_ELF_DEBUG and a debug file,
 * which is put where profil looks for it: under the debug root by the
 * program's build id, and beside it under its .gnu_debuglink name.  The
 * target then does what a run of profil does: session_new on the file,
 * mappings and samples with stacks to unwind, the ranking, lines, reports,
 * the Source view's annotation with disassembly, and the saved session,
 * which must read back. */
#include "config.h"

#include "elf/debuginfo.h"
#include "elf/source.h"
#include "prf/prf.h"
#include "report/annotate.h"
#include "report/report.h"
#include "session/lines.h"
#include "session/names.h"
#include "session/resolve.h"
#include "tests/fuzz/fuzz.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Between the program's bytes and its debug file's. */
#define FUZZ_ELF_DEBUG "\n--profil-fuzz-debug-file--\n"

/* Where a position-independent program is mapped, and its stack. */
#define FUZZ_ELF_BASE  0x555555554000ull
#define FUZZ_ELF_STACK 0x7ffc12340000ull

/* The most functions sampled, and the stack copy of each sample. */
#define FUZZ_ELF_SAMPLES     24
#define FUZZ_ELF_STACK_WORDS 64

/* The files one input puts in fuzz_dir(). */
struct fuzz_elf_files {
    char *prog;
    char *root;    /* the debug root: ROOT/.build-id/xx/rest.debug */
    char *by_id;   /* the debug file by build id, or NULL */
    char *id_dir;  /* ROOT/.build-id/xx, or NULL */
    char *by_link; /* the debug file by .gnu_debuglink, or NULL */
};

/* Where profil looks for IMAGE's debug file: write DEBUG there. */
static void fuzz_elf_place_debug(struct fuzz_elf_files *f, const uint8_t *image, size_t len,
                                 const uint8_t *debug, size_t dlen)
{
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)image, len);
    if (elf == NULL)
        return;
    const void *id;
    ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
    if (idlen >= 2 && idlen <= 32) {
        char hex[65];
        for (ssize_t i = 0; i < idlen; i++)
            snprintf(hex + 2 * i, 3, "%02x", ((const uint8_t *)id)[i]);
        char sub[3] = {hex[0], hex[1], '\0'};
        size_t n = strlen(f->root) + 80;
        f->id_dir = malloc(n);
        f->by_id = malloc(n + 64);
        if (f->id_dir == NULL || f->by_id == NULL)
            abort();
        snprintf(f->id_dir, n, "%s/.build-id", f->root);
        mkdir(f->id_dir, 0700);
        snprintf(f->id_dir, n, "%s/.build-id/%s", f->root, sub);
        mkdir(f->id_dir, 0700);
        snprintf(f->by_id, n + 64, "%s/%s.debug", f->id_dir, hex + 2);
        fuzz_write_file(f->by_id, debug, dlen);
    }
    GElf_Word crc;
    const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
    if (link != NULL && link[0] != '\0' && strchr(link, '/') == NULL && strlen(link) < 200 &&
        strcmp(link, ".") != 0 && strcmp(link, "..") != 0 && strcmp(link, "prog") != 0 &&
        strcmp(link, "root") != 0) {
        f->by_link = fuzz_path(link);
        fuzz_write_file(f->by_link, debug, dlen);
    }
    elf_end(elf);
}

static void fuzz_elf_remove_debug(struct fuzz_elf_files *f)
{
    if (f->by_id != NULL)
        unlink(f->by_id);
    if (f->id_dir != NULL)
        rmdir(f->id_dir);
    if (f->by_link != NULL)
        unlink(f->by_link);
    free(f->by_id);
    free(f->id_dir);
    free(f->by_link);
    f->by_id = f->id_dir = f->by_link = NULL;
}

/* What profil makes of a file it could not take as the program: a library. */
static void fuzz_elf_library(const char *path)
{
    char *cause = NULL;
    struct module *m = module_new(1, path, MODULE_LIBRARY);
    if (module_load(m, &cause) < 0) {
        fuzz_refused(cause);
    } else {
        for (size_t i = 0; i < m->nsegs && i < 8; i++) {
            module_resolve(m, m->segs[i].offset);
            module_resolve(m, m->segs[i].offset + m->segs[i].filesz / 2);
        }
        for (size_t k = 0; k < m->nsyms; k++)
            module_symbol_name(m, k, false);
    }
    module_free(m);
}

/* The user PC at file offset OFF of the program mapped at BIAS, or 0. */
static uint64_t fuzz_elf_pc(const struct module *m, uint64_t bias, uint64_t off)
{
    uint64_t vaddr;
    if (!module_offset_to_vaddr(m, off, &vaddr) || vaddr + bias < vaddr)
        return 0;
    return vaddr + bias;
}

/* The program's executable segments mapped, as perf reports them. */
static uint64_t fuzz_elf_map(struct session *s)
{
    const struct module *m = s->modules[0];
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < m->nsegs; i++)
        if (m->segs[i].vaddr < low)
            low = m->segs[i].vaddr;
    uint64_t bias = low < 0x10000 ? FUZZ_ELF_BASE : 0;
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct segment *g = &m->segs[i];
        if (!(g->flags & PF_X))
            continue;
        struct event ev = {.type = EVENT_MMAP, .pid = 1, .tid = 1, .time_ns = 1};
        uint64_t page = g->vaddr & 0xfff;
        ev.mmap.start = bias + g->vaddr - page;
        ev.mmap.len = g->filesz + page;
        ev.mmap.pgoff = g->offset - (g->offset & 0xfff);
        ev.mmap.path = m->path;
        session_ingest(s, &ev);
    }
    return bias;
}

/* Samples at the program's functions, each with a stack to unwind: words
 * that point back into its code and into the stack itself. */
static void fuzz_elf_sample(struct session *s, uint64_t bias)
{
    struct module *m = s->modules[0];
    uint64_t pcs[2 * FUZZ_ELF_SAMPLES + 2];
    size_t npcs = 0;
    for (size_t k = 0; k < m->nsyms && npcs < 2 * FUZZ_ELF_SAMPLES; k++) {
        /* Past its first instruction, and in its middle (inlined code). */
        uint64_t size = m->syms[k].end - m->syms[k].start;
        uint64_t pc = fuzz_elf_pc(m, bias, m->syms[k].start + (size > 1));
        if (pc != 0)
            pcs[npcs++] = pc;
        if (size > 2 && (pc = fuzz_elf_pc(m, bias, m->syms[k].start + size / 2)) != 0)
            pcs[npcs++] = pc;
    }
    uint64_t lo, hi;
    if (module_exec_span(m, &lo, &hi)) {
        pcs[npcs++] = bias + lo;
        pcs[npcs++] = bias + lo + (hi - lo) / 2;
    }
    uint64_t words[FUZZ_ELF_STACK_WORDS];
    for (size_t i = 0; i < FUZZ_ELF_STACK_WORDS; i++)
        words[i] = i % 2 == 0 || npcs == 0 ? FUZZ_ELF_STACK + 8 * (i + 2) : pcs[(i / 2) % npcs] + 5;
    for (size_t i = 0; i < npcs; i++) {
        struct event_stack st = {
            .user = true, .data = (const uint8_t *)words, .size = sizeof words};
#if EVENT_REG_COUNT > 0
        st.regs_mask = ((uint64_t)1 << EVENT_REG_COUNT) - 1;
        st.regs[EVENT_REG_SP] = FUZZ_ELF_STACK + 8 * (i % 4);
        st.regs[EVENT_REG_PC] = pcs[i];
#if defined(__x86_64__)
        st.regs[6] = FUZZ_ELF_STACK + 16; /* rbp */
#elif defined(__aarch64__)
        st.regs[29] = FUZZ_ELF_STACK + 16; /* x29 */
#endif
#endif
        struct event ev = {.type = EVENT_SAMPLE, .pid = 1, .tid = 1, .time_ns = 1000 * (i + 2)};
        ev.sample.pc = pcs[i];
        ev.sample.mode = SAMPLE_USER;
        ev.sample.count = 1;
        ev.sample.stack = &st;
        session_ingest(s, &ev);
    }
}

/* What the reports and the Source view make of the session. */
static void fuzz_elf_report(struct session *s)
{
    FILE *out = fopen("/dev/null", "w");
    if (out == NULL)
        abort();
    session_rank(s);
    size_t n;
    size_t *order = session_ranking(s, &n);
    for (size_t i = 0; i < n && i < 3; i++) {
        lines_note_rows(s, (int64_t)order[i]);
        struct annotation *a = annotate_function(s, (int64_t)order[i], true);
        annotate_print(s, a, out);
        if (a->disasm_why != NULL)
            fuzz_one_line("why there is no disassembly", a->disasm_why);
        annotation_free(a);
    }
    free(order);
    report_text(s, "fuzz", out, 0);
    report_tree(s, out, false, 0);
    report_lines(s, out, REPORT_LINES_SHOWN);
    for (uint32_t i = 0; i < s->nmodules; i++) {
        const char *why = lines_module_why(s, i);
        if (why != NULL)
            fuzz_one_line("why a module has no lines", why);
    }
    fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_elf_files f;
    if (f.prog == NULL) {
        unsetenv("DEBUGINFOD_URLS"); /* no server: the debug file is the input's */
        f.prog = fuzz_path("prog");
        f.root = fuzz_path("root");
        mkdir(f.root, 0700);
    }
    const uint8_t *split = memmem(data, size, FUZZ_ELF_DEBUG, sizeof FUZZ_ELF_DEBUG - 1);
    size_t len = split != NULL ? (size_t)(split - data) : size;
    fuzz_write_file(f.prog, data, len);
    debuginfo_set_root(f.root); /* and forget the debug files of the inputs before */
    if (split != NULL) {
        const uint8_t *debug = split + sizeof FUZZ_ELF_DEBUG - 1;
        fuzz_elf_place_debug(&f, data, len, debug, size - (size_t)(debug - data));
    }

    char *cause = NULL;
    struct session *s = session_new(f.prog, 1, 1000, &cause);
    if (s == NULL) {
        fuzz_refused(cause);
        fuzz_set_verdict("refused");
        fuzz_elf_library(f.prog);
    } else {
        fuzz_set_verdict("accepted, symbols: %zu", s->modules[0]->nsyms);
        lines_open(s, 0);
        fuzz_elf_sample(s, fuzz_elf_map(s));
        fuzz_elf_report(s);
        fuzz_save_reads_back(s, "fuzz_elf");
        session_free(s);
    }
    source_reset(); /* the source files the annotation read */
    fuzz_elf_remove_debug(&f);
    return 0;
}
