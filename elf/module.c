#include "config.h"

#include "elf/debuginfo.h"
#include "elf/module.h"
#include "elf/symbols.h"
#include "util/xmalloc.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <sys/auxv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct module_elf {
    int fd; /* -1 for an image in memory */
    Elf *elf;
};

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#else
#define NATIVE_MACHINE EM_NONE
#endif

/* libelf must be told which ELF version we speak before any other call. */
static void module_elf_init(void)
{
    static bool done;
    if (!done) {
        elf_version(EV_CURRENT);
        done = true;
    }
}

struct module *module_new(uint32_t id, const char *path, enum module_kind kind)
{
    struct module *m = xcalloc(1, sizeof *m);
    m->id = id;
    m->kind = kind;
    m->path = xstrdup(path);
    const char *slash = strrchr(m->path, '/');
    m->name = slash != NULL && slash[1] != '\0' ? slash + 1 : m->path;
    return m;
}

/* Release libelf and libdw handles; symbols stay. */
static void module_close_elf(struct module *m)
{
    if (m->elf == NULL)
        return;
    if (m->elf->elf != NULL)
        elf_end(m->elf->elf);
    if (m->elf->fd >= 0)
        close(m->elf->fd);
    free(m->elf);
    m->elf = NULL;
}

void module_free(struct module *m)
{
    if (m == NULL)
        return;
    module_close_elf(m);
    for (size_t i = 0; i < m->nsyms; i++) {
        free(m->syms[i].name);
        free(m->syms[i].pretty);
    }
    free(m->syms);
    free(m->by_name);
    free(m->fdes);
    free(m->segs);
    free(m->load_error);
    free(m->path);
    free(m);
}

bool module_segment_fits(uint64_t vaddr, uint64_t memsz, uint64_t offset, uint64_t filesz)
{
    return vaddr + memsz >= vaddr && offset + filesz >= offset && vaddr + filesz >= vaddr;
}

bool module_offset_to_vaddr(const struct module *m, uint64_t off, uint64_t *vaddr)
{
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct segment *s = &m->segs[i];
        if (off >= s->offset && off - s->offset < s->filesz) {
            *vaddr = off - s->offset + s->vaddr;
            return true;
        }
    }
    return false;
}

bool module_vaddr_to_offset(const struct module *m, uint64_t vaddr, uint64_t *off)
{
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct segment *s = &m->segs[i];
        if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
            *off = vaddr - s->vaddr + s->offset;
            return true;
        }
    }
    return false;
}

bool module_exec_span(const struct module *m, uint64_t *low, uint64_t *high)
{
    bool found = false;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct segment *s = &m->segs[i];
        uint64_t size = s->filesz;
        if (m->image_size > 0)
            size = s->offset >= m->image_size         ? 0
                   : size < m->image_size - s->offset ? size
                                                      : m->image_size - s->offset;
        if (!(s->flags & PF_X) || size == 0 || s->vaddr + size < s->vaddr)
            continue;
        found = true;
        if (s->vaddr < lo)
            lo = s->vaddr;
        if (s->vaddr + size > hi)
            hi = s->vaddr + size;
    }
    if (found) {
        *low = lo;
        *high = hi;
    }
    return found;
}

const char *module_symbol_name(const struct module *m, size_t k, bool raw)
{
    struct symbol *sym = (struct symbol *)&m->syms[k];
    if (raw)
        return sym->name;
    if (!sym->pretty_done) {
        sym->pretty = symbols_demangle(sym->name);
        sym->pretty_done = true;
    }
    return sym->pretty ? sym->pretty : sym->name;
}

size_t module_symbol_after(const struct module *m, uint64_t off)
{
    size_t lo = 0, hi = m->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->syms[mid].start <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

long module_find_symbol(const struct module *m, uint64_t off)
{
    size_t lo = module_symbol_after(m, off);
    if (lo == 0)
        return -1;
    const struct symbol *s = &m->syms[lo - 1];
    return off < s->end ? (long)(lo - 1) : -1;
}

/* Symbols of the module ARG by name. */
static int module_by_name_cmp(const void *a, const void *b, void *arg)
{
    const struct module *m = arg;
    const struct symbol *x = &m->syms[*(const uint32_t *)a];
    const struct symbol *y = &m->syms[*(const uint32_t *)b];
    return strcmp(x->name, y->name);
}

long module_find_named(struct module *m, const char *raw)
{
    if (m->by_name == NULL || m->by_name_n != m->nsyms) {
        free(m->by_name);
        m->by_name = xcalloc(m->nsyms + 1, sizeof *m->by_name);
        for (size_t i = 0; i < m->nsyms; i++)
            m->by_name[i] = (uint32_t)i;
        if (m->nsyms > 1)
            qsort_r(m->by_name, m->nsyms, sizeof *m->by_name, module_by_name_cmp, m);
        m->by_name_n = m->nsyms;
    }
    size_t lo = 0, hi = m->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->syms[m->by_name[mid]].name, raw);
        if (c == 0)
            return m->by_name[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void module_clear_symbols(struct module *m)
{
    for (size_t i = 0; i < m->nsyms; i++) {
        free(m->syms[i].name);
        free(m->syms[i].pretty);
    }
    m->nsyms = 0;
    m->by_name_n = SIZE_MAX;
}

void module_add_symbol(struct module *m, uint64_t start, uint64_t end, const char *name,
                       bool synthetic)
{
    if (m->nsyms == m->syms_alloc) {
        m->syms_alloc = m->syms_alloc ? 2 * m->syms_alloc : 64;
        m->syms = xreallocarray(m->syms, m->syms_alloc, sizeof *m->syms);
    }
    size_t pos = m->nsyms;
    while (pos > 0 && m->syms[pos - 1].start > start)
        pos--;
    if (pos > 0 && m->syms[pos - 1].start == start) {
        /* One symbol per start: the table stays strictly sorted, as files require. */
        struct symbol *same = &m->syms[pos - 1];
        if (end > same->end)
            same->end = end;
        return;
    }
    memmove(&m->syms[pos + 1], &m->syms[pos], (m->nsyms - pos) * sizeof *m->syms);
    m->syms[pos] = (struct symbol){.start = start,
                                   .end = end > start ? end : start + 1,
                                   .name = xstrdup(name),
                                   .synthetic = synthetic};
    m->nsyms++;
}

void module_add_symbols(struct module *m, struct symbol *add, size_t n)
{
    if (n == 0)
        return;
    /* One merge of two sorted lists, not one insertion (and memmove) each:
     * a stripped program's thousands of unnamed PCs took minutes so. */
    size_t alloc = m->nsyms + n, i = 0, j = 0, k = 0;
    struct symbol *out = xcalloc(alloc, sizeof *out);
    while (i < m->nsyms || j < n) {
        bool take_old = j == n || (i < m->nsyms && m->syms[i].start <= add[j].start);
        struct symbol next = take_old ? m->syms[i++] : add[j++];
        if (!take_old && next.end <= next.start)
            next.end = next.start + 1;
        if (k > 0 && out[k - 1].start == next.start) {
            /* One symbol per start, as module_add_symbol keeps it. */
            if (next.end > out[k - 1].end)
                out[k - 1].end = next.end;
            free(next.name);
            free(next.pretty);
            continue;
        }
        out[k++] = next;
    }
    free(m->syms);
    m->syms = out;
    m->nsyms = k;
    m->syms_alloc = alloc;
}

/* A symbol as read from the ELF tables, before ends and aliases are settled. */
struct raw_sym {
    uint64_t start;
    uint64_t size;
    uint64_t section_end; /* file offset where the symbol's section ends */
    const char *name;     /* borrowed from libelf's string table */
    int rank;             /* preference among aliases at one address */
};

static int raw_sym_cmp(const void *a, const void *b)
{
    const struct raw_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->rank - y->rank;
}

/* Prefer global names, then weak, then ones without a leading underscore. */
static int raw_sym_rank(const GElf_Sym *sym, const char *name)
{
    int rank = 0;
    switch (GELF_ST_BIND(sym->st_info)) {
    case STB_GLOBAL: break;
    case STB_WEAK: rank += 4; break;
    default: rank += 8; break;
    }
    if (name[0] == '_')
        rank += 2;
    return rank;
}

/* Read one symbol table section into RAW, converting addresses to offsets of
 * MAIN's segments (a separate debug file has the same addresses). */
static size_t module_read_symtab(struct module *m, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
                                 struct raw_sym **raw, size_t *nraw)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (data == NULL || shdr->sh_entsize == 0)
        return 0;
    size_t count = shdr->sh_size / shdr->sh_entsize, added = 0;
    if (count > data->d_size / shdr->sh_entsize)
        count = data->d_size / shdr->sh_entsize; /* a size the section does not have */
    /* Room for them all at once: grown one at a time, a table of 10,000
     * functions was copied 10,000 times where realloc cannot grow in place. */
    *raw = xreallocarray(*raw, *nraw + count, sizeof **raw);
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (gelf_getsym(data, (int)i, &sym) == NULL)
            break;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
            continue;
        const char *name = elf_strptr(elf, shdr->sh_link, sym.st_name);
        if (name == NULL || name[0] == '\0')
            continue;
        GElf_Shdr sec;
        Elf_Scn *sscn = elf_getscn(elf, sym.st_shndx);
        if (sscn == NULL || gelf_getshdr(sscn, &sec) == NULL || !(sec.sh_flags & SHF_EXECINSTR))
            continue;
        uint64_t start, sec_end;
        if (!module_vaddr_to_offset(m, sym.st_value, &start))
            continue;
        if (!module_vaddr_to_offset(m, sec.sh_addr + sec.sh_size - 1, &sec_end))
            sec_end = start + (sym.st_size ? sym.st_size : 1);
        else
            sec_end += 1;
        (*raw)[(*nraw)++] =
            (struct raw_sym){start, sym.st_size, sec_end, name, raw_sym_rank(&sym, name)};
        added++;
    }
    return added;
}

/* Find .symtab (or .dynsym when there is none) in ELF and add its functions. */
static size_t module_scan_symbols(struct module *m, Elf *elf, bool dynsym_ok, struct raw_sym **raw,
                                  size_t *nraw)
{
    Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
    GElf_Shdr shdr, dynhdr, tabhdr;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (gelf_getshdr(scn, &shdr) == NULL)
            continue;
        if (shdr.sh_type == SHT_SYMTAB) {
            tab = scn;
            tabhdr = shdr;
        } else if (shdr.sh_type == SHT_DYNSYM) {
            dyn = scn;
            dynhdr = shdr;
        }
    }
    if (tab != NULL)
        return module_read_symtab(m, elf, tab, &tabhdr, raw, nraw);
    if (dyn != NULL && dynsym_ok)
        return module_read_symtab(m, elf, dyn, &dynhdr, raw, nraw);
    return 0;
}

/* Sort, drop aliases, and give zero-size symbols an end. */
static void module_settle_symbols(struct module *m, struct raw_sym *raw, size_t nraw)
{
    if (nraw > 0)
        qsort(raw, nraw, sizeof *raw, raw_sym_cmp);
    m->syms = xreallocarray(m->syms, nraw, sizeof *m->syms);
    m->syms_alloc = nraw;
    m->nsyms = 0;
    for (size_t i = 0; i < nraw; i++) {
        if (i > 0 && raw[i].start == raw[i - 1].start)
            continue; /* an alias: the best-ranked name came first */
        uint64_t end = raw[i].start + raw[i].size;
        if (raw[i].size == 0) {
            end = raw[i].section_end;
            for (size_t j = i + 1; j < nraw; j++) {
                if (raw[j].start > raw[i].start) {
                    if (raw[j].start < end)
                        end = raw[j].start;
                    break;
                }
            }
        }
        m->syms[m->nsyms++] = (struct symbol){.start = raw[i].start,
                                              .end = end > raw[i].start ? end : raw[i].start + 1,
                                              .name = xstrdup(raw[i].name)};
    }
}

/* A stripped image may have a separate debug file: by build id, by
 * .gnu_debuglink, or from a debuginfod server (elf/debuginfo.c). */
static int module_open_debug_file(const struct module *m, Elf *elf, struct debuginfo_file *f)
{
    GElf_Word crc = 0;
    const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
    struct debuginfo_query q = {m->path, m->name, m->build_id, m->build_id_len, link, crc};
    return debuginfo_find(&q, f);
}

/* Name each PLT entry after its target where no symbol names it already. */
static void module_add_plt(struct module *m, Elf *elf)
{
    struct symbols_plt *plt;
    size_t n = symbols_plt_entries(elf, &plt);
    for (size_t i = 0; i < n; i++) {
        uint64_t off;
        if (module_vaddr_to_offset(m, plt[i].start, &off) && module_find_symbol(m, off) < 0)
            module_add_symbol(m, off, off + plt[i].size, plt[i].name, false);
        free(plt[i].name);
    }
    free(plt);
}

/* Keep every FDE's extent, in file offsets, for naming stripped code. */
static void module_read_fdes(struct module *m, Elf *elf)
{
    struct symbols_range *r;
    size_t n = symbols_fde_ranges(elf, &r), k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t start, last;
        if (!module_vaddr_to_offset(m, r[i].start, &start) ||
            !module_vaddr_to_offset(m, r[i].end - 1, &last) || last < start)
            continue;
        /* Sorted by address, so by offset within one segment; drop overlaps. */
        if (k > 0 && start < r[k - 1].end)
            continue;
        r[k++] = (struct symbols_range){start, last + 1};
    }
    free(m->fdes);
    m->fdes = r;
    m->nfdes = k;
}

/* The symbols of the image ELF, or of its debug file where it has none of
 * its own (.symtab): its .dynsym names only what it exports. */
static void module_load_symbols(struct module *m, Elf *elf)
{
    struct raw_sym *raw = NULL;
    size_t nraw = 0;
    struct debuginfo_file debug = {-1, NULL, NULL};
    int r = -ENOENT;
    if (module_scan_symbols(m, elf, false, &raw, &nraw) == 0 &&
        (r = module_open_debug_file(m, elf, &debug)) == 0)
        module_scan_symbols(m, debug.elf, false, &raw, &nraw);
    m->debug_pending = r == -EINPROGRESS;
    if (nraw == 0)
        module_scan_symbols(m, elf, true, &raw, &nraw);
    module_settle_symbols(m, raw, nraw);
    free(raw);
    debuginfo_file_close(&debug);
    module_add_plt(m, elf);
}

/* Everything module_load and module_load_memory share once an Elf is open. */
static int module_load_elf(struct module *m, Elf *elf, char **cause)
{
    GElf_Ehdr ehdr;
    size_t phnum;
    if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == NULL) {
        *cause = xasprintf("%s: not an ELF file", m->path);
        return -ENOEXEC;
    }
    if (elf_getphdrnum(elf, &phnum) != 0) {
        *cause = xasprintf("%s: unreadable program headers: %s", m->path, elf_errmsg(-1));
        return -ENOEXEC;
    }
    free(m->segs);
    m->segs = xcalloc(phnum, sizeof *m->segs);
    m->nsegs = 0;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
            continue;
        if (!module_segment_fits(ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz))
            continue;
        m->segs[m->nsegs++] =
            (struct segment){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_flags};
    }

    const void *id;
    ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
    if (idlen > 0) {
        m->build_id_len = (size_t)idlen < sizeof m->build_id ? (size_t)idlen : sizeof m->build_id;
        memcpy(m->build_id, id, m->build_id_len);
    }

    module_load_symbols(m, elf);
    module_read_fdes(m, elf);
    return 0;
}

void module_reload_symbols(struct module *m)
{
    if (m->elf == NULL || !m->debug_pending)
        return;
    module_clear_symbols(m);
    module_load_symbols(m, m->elf->elf);
}

int module_load(struct module *m, char **cause)
{
    module_elf_init();
    m->loaded = true;
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        *cause = xasprintf("%s: %s", m->path, strerror(err));
        free(m->load_error);
        m->load_error = xstrdup(*cause);
        return -err;
    }
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf == NULL) {
        *cause = xasprintf("%s: %s", m->path, elf_errmsg(-1));
        close(fd);
        m->load_error = xstrdup(*cause);
        return -ENOEXEC;
    }
    struct stat st;
    m->image_size = fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
    m->elf = xcalloc(1, sizeof *m->elf);
    m->elf->fd = fd;
    m->elf->elf = elf;
    int r = module_load_elf(m, elf, cause);
    if (r < 0) {
        module_close_elf(m);
        m->load_error = xstrdup(*cause);
    }
    return r;
}

int module_load_memory(struct module *m, const void *image, size_t size, char **cause)
{
    module_elf_init();
    m->loaded = true;
    Elf *elf = elf_memory((char *)image, size);
    if (elf == NULL) {
        *cause = xasprintf("%s: %s", m->path, elf_errmsg(-1));
        m->load_error = xstrdup(*cause);
        return -ENOEXEC;
    }
    m->image_size = size;
    m->elf = xcalloc(1, sizeof *m->elf);
    m->elf->fd = -1;
    m->elf->elf = elf;
    int r = module_load_elf(m, elf, cause);
    if (r < 0) {
        module_close_elf(m);
        m->load_error = xstrdup(*cause);
    }
    return r;
}

int module_load_vdso(struct module *m, char **cause)
{
    const unsigned char *image = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    if (image == NULL || memcmp(image, ELFMAG, SELFMAG) != 0) {
        m->loaded = true;
        *cause = xstrdup("[vdso]: not mapped in this process");
        return -ENOENT;
    }
    /* Section headers come last in the vDSO image: they bound its size. */
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
    size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    return module_load_memory(m, image, size, cause);
}

/* The index of the first FDE starting after OFF. */
static size_t module_fde_after(const struct module *m, uint64_t off)
{
    size_t lo = 0, hi = m->nfdes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->fdes[mid].start <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool module_synthetic_range(const struct module *m, uint64_t off, uint64_t *start_out,
                            uint64_t *end_out)
{
    const struct segment *seg = NULL;
    for (size_t i = 0; i < m->nsegs; i++) {
        if (off >= m->segs[i].offset && off - m->segs[i].offset < m->segs[i].filesz &&
            (m->segs[i].flags & PF_X))
            seg = &m->segs[i];
    }
    if (seg == NULL)
        return false;
    uint64_t start = seg->offset, end = seg->offset + seg->filesz;
    size_t f = module_fde_after(m, off);
    if (f > 0 && off < m->fdes[f - 1].end) {
        start = m->fdes[f - 1].start;
        end = m->fdes[f - 1].end;
    } else {
        if (f > 0 && m->fdes[f - 1].end > start)
            start = m->fdes[f - 1].end;
        if (f < m->nfdes && m->fdes[f].start < end)
            end = m->fdes[f].start;
    }
    /* Never overlap a named function: they bound the range on both sides. */
    size_t a = module_symbol_after(m, off);
    if (a < m->nsyms && m->syms[a].start < end)
        end = m->syms[a].start;
    if (a > 0 && m->syms[a - 1].end > start)
        start = m->syms[a - 1].end;
    if (start > off || end <= off)
        return false;
    *start_out = start;
    *end_out = end;
    return true;
}

/* Stripped code still has unwind tables: one FDE is one whole function.
 * Where none covers OFF, the gap between the functions around it is one. */
static const struct symbol *module_synthesize(struct module *m, uint64_t off)
{
    uint64_t start, end;
    if (!module_synthetic_range(m, off, &start, &end))
        return NULL;
    char *name = xasprintf("%s+0x%" PRIx64, m->name, start);
    module_add_symbol(m, start, end, name, true);
    free(name);
    long i = module_find_symbol(m, off);
    return i >= 0 ? &m->syms[i] : NULL;
}

const struct symbol *module_resolve(struct module *m, uint64_t off)
{
    long i = module_find_symbol(m, off);
    if (i >= 0)
        return &m->syms[i];
    return module_synthesize(m, off);
}

int module_check_executable(const char *path, char **cause)
{
    module_elf_init();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        *cause = xasprintf("%s: %s", path, strerror(err));
        return -err;
    }
    int r = -ENOEXEC;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr ehdr;
    size_t phnum;
    if (elf == NULL || elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == NULL) {
        *cause = xasprintf("%s: not an ELF executable", path);
        goto out;
    }
    if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
        *cause = xasprintf("%s: not an ELF executable (an object file or core dump)", path);
        goto out;
    }
    if (ehdr.e_machine != NATIVE_MACHINE ||
        gelf_getclass(elf) != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
        *cause = xasprintf("%s: an ELF executable for another machine", path);
        goto out;
    }
    if (elf_getphdrnum(elf, &phnum) != 0) {
        *cause = xasprintf("%s: damaged ELF program headers", path);
        goto out;
    }
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
            r = 0;
    }
    if (r != 0)
        *cause = xasprintf("%s: ELF file without executable code", path);
out:
    if (elf != NULL)
        elf_end(elf);
    close(fd);
    return r;
}
