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
#include <stddef.h>
#include <stdint.h>

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

#endif
