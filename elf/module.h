/*
 * A module is one mapped image: the program, a shared library, the vDSO,
 * or a pseudo-module for anonymous code and the kernel.  Every address a
 * module hands out is a file offset, as perf does it, so PIE executables,
 * fixed executables and shared libraries all go through one path.
 */
#ifndef PROFIL_MODULE_H
#define PROFIL_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum module_kind {
    MODULE_PROGRAM = 0, /* the profiled executable: the program area */
    MODULE_LIBRARY = 1, /* any other file-backed executable mapping */
    MODULE_VDSO = 2,    /* the kernel's vDSO */
    MODULE_ANON = 3,    /* anonymous or unknown code: offsets are addresses */
    MODULE_KERNEL = 4,  /* kernel-mode PCs: offsets are addresses */
};

/* One PT_LOAD segment: how file offsets map to the image's addresses. */
struct segment {
    uint64_t vaddr;
    uint64_t memsz;
    uint64_t offset;
    uint64_t filesz;
    uint32_t flags; /* PF_X, PF_W, PF_R */
};

/* A function's extent in file offsets, [start, end). */
struct symbol {
    uint64_t start;
    uint64_t end;
    char *name;       /* owned */
    bool synthetic;   /* made up from unwind tables for stripped code */
    bool pretty_done; /* pretty was looked for: see module_symbol_name */
    char *pretty;     /* owned: the demangled name, or NULL */
};

struct module_elf; /* libelf/libdw handles kept while the module lives */
struct symbols_range;

struct module {
    uint32_t id;
    enum module_kind kind;
    char *path;         /* owned: the file as the kernel named it */
    const char *name;   /* borrowed from path: its last component */
    bool loaded;        /* module_load has run (successfully or not) */
    bool debug_pending; /* its debug file is being fetched: names only once it is here */
    char *load_error;   /* owned; why symbols are missing, or NULL */
    struct segment *segs;
    size_t nsegs;
    struct symbol *syms; /* sorted by start, non-overlapping starts */
    size_t nsyms;
    size_t syms_alloc;
    struct symbols_range *fdes; /* owned: FDE extents in file offsets, sorted */
    size_t nfdes;
    uint8_t build_id[32];
    size_t build_id_len;
    struct module_elf *elf;
    uint64_t image_size; /* bytes of the file (or image) read, 0 when unknown */
    uint32_t *by_name;   /* owned: symbol indices sorted by name, for module_find_named */
    size_t by_name_n;    /* nsyms when it was made: stale once that changes */
};

/* Make a module for PATH; nothing is read until module_load. */
struct module *module_new(uint32_t id, const char *path, enum module_kind kind);
void module_free(struct module *m);

/* Read segments, build id and symbols from the file at m->path.  Returns 0 or
 * a negative errno with *cause set to an owned one-line explanation. */
int module_load(struct module *m, char **cause);

/* Read the symbols again, now that a debug file being fetched has come (or
 * has not: then from the image): M stays debug_pending while it is still
 * being fetched. */
void module_reload_symbols(struct module *m);

/* The same from an image in memory (the vDSO); IMAGE must outlive M. */
int module_load_memory(struct module *m, const void *image, size_t size, char **cause);

/* The vDSO of a live process on this kernel is the one mapped into profil. */
int module_load_vdso(struct module *m, char **cause);

/* The span of the executable PT_LOAD segments, in image addresses: of what
 * the file holds of them (p_filesz, and no further than the file's end), not
 * of what they say they take in memory (p_memsz, which may claim terabytes;
 * no sample lands past the file's bytes in a bucket anyway). */
bool module_exec_span(const struct module *m, uint64_t *low, uint64_t *high);

/* Whether a PT_LOAD segment's ranges stay below the top of the address
 * space: one that wraps maps nothing the kernel would load, a .PRF does not
 * hold it, and module_load leaves it out. */
bool module_segment_fits(uint64_t vaddr, uint64_t memsz, uint64_t offset, uint64_t filesz);

/* Turn a file offset into an image address; false if no segment holds it. */
bool module_offset_to_vaddr(const struct module *m, uint64_t off, uint64_t *vaddr);

/* Turn an image address into a file offset; false if no segment holds it. */
bool module_vaddr_to_offset(const struct module *m, uint64_t vaddr, uint64_t *off);

/* The function holding file offset OFF: a named symbol, or for stripped code a
 * synthetic "module+0xSTART" symbol (START its file offset, so that two
 * sessions name it alike) spanning the whole FDE that covers OFF, or where no
 * CFI covers it, the gap between the known functions around it.  Borrowed,
 * valid until the next call that adds symbols to M.  NULL if none. */
const struct symbol *module_resolve(struct module *m, uint64_t off);

/* The name of symbol K as shown: demangled (C++, Rust, D) unless RAW.  The
 * demangled form is made on first use and kept with the symbol, so this
 * writes through a const module: a cache, not a change of meaning. */
const char *module_symbol_name(const struct module *m, size_t k, bool raw);

/* The index of the first symbol starting after OFF (nsyms when none). */
size_t module_symbol_after(const struct module *m, uint64_t off);

/* The symbol index holding OFF, or -1; never synthesizes. */
long module_find_symbol(const struct module *m, uint64_t off);

/* The index of the symbol named RAW (as the file names it), or -1. */
long module_find_named(struct module *m, const char *raw);

/* Forget every symbol (a JIT's map read anew). */
void module_clear_symbols(struct module *m);

/* Add a symbol (used by the .PRF reader); keeps the table sorted.  It
 * costs a move of the symbols after it: to add many, module_add_symbols. */
void module_add_symbol(struct module *m, uint64_t start, uint64_t end, const char *name,
                       bool synthetic);

/* Add the N symbols of ADD, sorted by start, in one merge; M takes their
 * names (owned), ADD stays the caller's.  A start M has already keeps M's
 * symbol (its end the larger). */
void module_add_symbols(struct module *m, struct symbol *add, size_t n);

/* The extent module_resolve would make up for stripped code at OFF, with
 * nothing added: [*START, *END) between the named functions around it.
 * False when OFF lies in no executable segment. */
bool module_synthetic_range(const struct module *m, uint64_t off, uint64_t *start, uint64_t *end);

/* Whether PATH names an ELF file profil can run: 0, or -errno with *cause. */
int module_check_executable(const char *path, char **cause);

#endif
