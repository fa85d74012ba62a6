/*
 * Name sources beyond the symbol tables: function extents from the
 * call-frame information (one per FDE, for stripped code) and PLT entries
 * named after the functions they jump to (memcpy@plt).  Everything here
 * reads an ELF image and hands out image addresses; module.c turns them
 * into file offsets.  Nothing trusts a count or a length from the file.
 */
#ifndef PROFIL_SYMBOLS_H
#define PROFIL_SYMBOLS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One function extent, [start, end) in image addresses. */
struct symbols_range {
    uint64_t start;
    uint64_t end;
};

/* The extent of every FDE in .eh_frame and .debug_frame of ELF, sorted by
 * start, without duplicates; the caller owns *OUT.  Returns the count. */
size_t symbols_fde_ranges(Elf *elf, struct symbols_range **out);

/* One PLT entry: where it is, and the function it jumps to. */
struct symbols_plt {
    uint64_t start; /* image address */
    uint64_t size;
    char *name; /* owned: "memcpy@plt" */
};

/* Every PLT entry of ELF (.plt, .plt.sec, .plt.got) whose target has a
 * name; the caller owns *OUT and each name.  Returns the count. */
size_t symbols_plt_entries(Elf *elf, struct symbols_plt **out);

/* The readable form of a C++, Rust (legacy and v0) or D symbol name, as
 * c++filt prints it (libiberty); NULL when RAW is not mangled.  The caller
 * owns the result. */
char *symbols_demangle(const char *raw);

/* One named range read from a text table: kallsyms, or a JIT's perf map. */
struct symbols_text {
    uint64_t start;
    uint64_t end;
    char *name;  /* owned */
    char *owner; /* owned: the kernel module ("ext4") of a kallsyms entry, or NULL */
};

/* The kernel's functions from FILE in /proc/kallsyms' format ("ADDR t NAME
 * [module]"), sorted by start, each ending where the next begins.  *HIDDEN
 * is set when every address reads 0 (kernel.kptr_restrict).  Lines that do
 * not parse are skipped.  The caller owns *OUT (symbols_text_free). */
size_t symbols_read_kallsyms(FILE *file, struct symbols_text **out, bool *hidden);

/* A JIT's functions from FILE in perf's map format ("START SIZE NAME", hex,
 * /tmp/perf-PID.map), sorted by start; where two overlap the later line
 * wins, as a JIT reuses memory.  The caller owns *OUT. */
size_t symbols_read_perf_map(FILE *file, struct symbols_text **out);

void symbols_text_free(struct symbols_text *t, size_t n);

#endif
