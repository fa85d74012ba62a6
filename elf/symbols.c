#include "config.h"

#include "elf/symbols.h"
#include "util/xmalloc.h"

#include <dwarf.h>
#include <errno.h>
#include <libiberty/demangle.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over bytes of a section whose first byte is at image address BASE. */
struct symbols_cur {
    const uint8_t *p;
    const uint8_t *start;
    const uint8_t *end;
    uint64_t base;
    bool bad;
};

static uint64_t symbols_cur_fixed(struct symbols_cur *c, size_t n, bool sign)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i); /* CFI is in the image's byte order: little here */
    if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    c->p += n;
    return v;
}

static uint64_t symbols_cur_leb(struct symbols_cur *c, bool sign)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0x80;
    while (!c->bad && (b & 0x80)) {
        if (c->p >= c->end) {
            c->bad = true;
            return 0;
        }
        b = *c->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    }
    if (sign && shift < 64 && (b & 0x40))
        v |= ~0ull << shift;
    return v;
}

/* Read a DW_EH_PE-encoded value; APPLY adds the pc-relative base, which an
 * FDE's address range never has. */
static uint64_t symbols_cur_encoded(struct symbols_cur *c, uint8_t enc, unsigned addr_size,
                                    bool apply)
{
    uint64_t at = c->base + (uint64_t)(c->p - c->start);
    uint64_t v;
    switch (enc & 0x0f) {
    case DW_EH_PE_absptr: v = symbols_cur_fixed(c, addr_size, false); break;
    case DW_EH_PE_uleb128: v = symbols_cur_leb(c, false); break;
    case DW_EH_PE_udata2: v = symbols_cur_fixed(c, 2, false); break;
    case DW_EH_PE_udata4: v = symbols_cur_fixed(c, 4, false); break;
    case DW_EH_PE_udata8: v = symbols_cur_fixed(c, 8, false); break;
    case DW_EH_PE_sleb128: v = symbols_cur_leb(c, true); break;
    case DW_EH_PE_sdata2: v = symbols_cur_fixed(c, 2, true); break;
    case DW_EH_PE_sdata4: v = symbols_cur_fixed(c, 4, true); break;
    case DW_EH_PE_sdata8: v = symbols_cur_fixed(c, 8, true); break;
    default: c->bad = true; return 0;
    }
    if (!apply)
        return v;
    switch (enc & 0x70) {
    case DW_EH_PE_absptr: return v;
    case DW_EH_PE_pcrel: return v + at;
    default: c->bad = true; return 0; /* datarel, textrel, funcrel: not in FDEs we meet */
    }
}

/* The pointer encoding of an FDE under CIE: the 'R' of its augmentation. */
static int symbols_fde_encoding(const Dwarf_CIE *cie, bool eh)
{
    if (!eh)
        return DW_EH_PE_absptr;
    const char *aug = cie->augmentation;
    if (aug == NULL || aug[0] != 'z')
        return aug != NULL && aug[0] != '\0' && strcmp(aug, "eh") != 0 ? -1 : DW_EH_PE_absptr;
    struct symbols_cur c = {cie->augmentation_data, cie->augmentation_data,
                            cie->augmentation_data + cie->augmentation_data_size, 0, false};
    if (cie->augmentation_data == NULL)
        return -1;
    for (const char *a = aug + 1; *a != '\0' && !c.bad; a++) {
        switch (*a) {
        case 'R': return (int)symbols_cur_fixed(&c, 1, false);
        case 'L': symbols_cur_fixed(&c, 1, false); break;
        case 'P': {
            uint8_t penc = (uint8_t)symbols_cur_fixed(&c, 1, false);
            symbols_cur_encoded(&c, penc & 0x0f, 8, false);
            break;
        }
        case 'S':
        case 'B':
        case 'G': break;
        default: return -1; /* an augmentation we cannot skip */
        }
    }
    return c.bad ? -1 : DW_EH_PE_absptr;
}

/* Append the FDEs of one CFI section. */
static void symbols_scan_cfi(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, bool eh,
                             struct symbols_range **out, size_t *n, size_t *alloc)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
    if (data == NULL || data->d_buf == NULL || ident == NULL || sh->sh_type == SHT_NOBITS)
        return;
    unsigned addr_size = ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    Dwarf_Off off = 0, next;
    Dwarf_Off cie_off = (Dwarf_Off)-1;
    int cie_enc = -1;
    Dwarf_CFI_Entry e;
    while (off < data->d_size && dwarf_next_cfi(ident, data, eh, off, &next, &e) == 0) {
        if (next <= off)
            break;
        if (!dwarf_cfi_cie_p(&e)) {
            if (e.fde.CIE_pointer != cie_off) {
                Dwarf_Off cnext;
                Dwarf_CFI_Entry ce;
                cie_off = e.fde.CIE_pointer;
                cie_enc = -1;
                if (dwarf_next_cfi(ident, data, eh, cie_off, &cnext, &ce) == 0 &&
                    dwarf_cfi_cie_p(&ce))
                    cie_enc = symbols_fde_encoding(&ce.cie, eh);
            }
            if (cie_enc >= 0 && cie_enc != DW_EH_PE_omit) {
                const uint8_t *base = data->d_buf;
                struct symbols_cur c = {e.fde.start, base, e.fde.end, sh->sh_addr, false};
                uint64_t start = symbols_cur_encoded(&c, (uint8_t)cie_enc, addr_size, true);
                uint64_t len = symbols_cur_encoded(&c, (uint8_t)cie_enc, addr_size, false);
                if (!c.bad && start != 0 && len > 0 && start + len > start) {
                    if (*n == *alloc) {
                        *alloc = *alloc ? 2 * *alloc : 256;
                        *out = xreallocarray(*out, *alloc, sizeof **out);
                    }
                    (*out)[(*n)++] = (struct symbols_range){start, start + len};
                }
            }
        }
        off = next;
    }
}

static int symbols_range_cmp(const void *a, const void *b)
{
    const struct symbols_range *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? 1 : x->end > y->end ? -1 : 0;
}

size_t symbols_fde_ranges(Elf *elf, struct symbols_range **out)
{
    size_t n = 0, alloc = 0, shstrndx;
    *out = NULL;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name == NULL)
            continue;
        if (strcmp(name, ".eh_frame") == 0)
            symbols_scan_cfi(elf, scn, &sh, true, out, &n, &alloc);
        else if (strcmp(name, ".debug_frame") == 0)
            symbols_scan_cfi(elf, scn, &sh, false, out, &n, &alloc);
    }
    if (n == 0)
        return 0;
    /* Sorted; where two sections describe one start, the longer range wins. */
    qsort(*out, n, sizeof **out, symbols_range_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && (*out)[i].start == (*out)[k - 1].start)
            continue;
        (*out)[k++] = (*out)[i];
    }
    return k;
}

/* A relocation's GOT slot and the name of its symbol. */
struct symbols_reloc {
    uint64_t slot;
    const char *name; /* borrowed from libelf */
};

/* Read the relocations of one SHT_RELA or SHT_REL section that name a
 * symbol; *OUT grows. */
static void symbols_read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
                                struct symbols_reloc **out, size_t *n)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
    GElf_Shdr symsh;
    if (data == NULL || sh->sh_entsize == 0 || symscn == NULL ||
        gelf_getshdr(symscn, &symsh) == NULL)
        return;
    Elf_Data *syms = elf_getdata(symscn, NULL);
    if (syms == NULL)
        return;
    size_t count = data->d_size / sh->sh_entsize;
    for (size_t i = 0; i < count; i++) {
        uint64_t offset, info;
        if (sh->sh_type == SHT_RELA) {
            GElf_Rela r;
            if (gelf_getrela(data, (int)i, &r) == NULL)
                break;
            offset = r.r_offset;
            info = r.r_info;
        } else {
            GElf_Rel r;
            if (gelf_getrel(data, (int)i, &r) == NULL)
                break;
            offset = r.r_offset;
            info = r.r_info;
        }
        size_t symi = gelf_getclass(elf) == ELFCLASS64 ? GELF_R_SYM(info) : ELF32_R_SYM(info);
        GElf_Sym sym;
        if (symi == 0 || gelf_getsym(syms, (int)symi, &sym) == NULL)
            continue;
        const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
        if (name == NULL || name[0] == '\0')
            continue;
        *out = xreallocarray(*out, *n + 1, sizeof **out);
        (*out)[(*n)++] = (struct symbols_reloc){offset, name};
    }
}

/* The GOT slot an x86-64 PLT entry jumps through: "jmp *disp32(%rip)", after
 * an optional endbr64 and bnd prefix.  0 when ENTRY holds no such jump. */
static uint64_t symbols_x86_64_slot(const uint8_t *entry, size_t size, uint64_t addr)
{
    size_t i = 0;
    if (size >= 4 && memcmp(entry, "\xf3\x0f\x1e\xfa", 4) == 0)
        i = 4;
    if (i < size && entry[i] == 0xf2)
        i++;
    if (i + 6 > size || entry[i] != 0xff || entry[i + 1] != 0x25)
        return 0;
    int32_t disp = (int32_t)((uint32_t)entry[i + 2] | (uint32_t)entry[i + 3] << 8 |
                             (uint32_t)entry[i + 4] << 16 | (uint32_t)entry[i + 5] << 24);
    return addr + i + 6 + (uint64_t)(int64_t)disp;
}

static int symbols_reloc_cmp(const void *a, const void *b)
{
    const struct symbols_reloc *x = a, *y = b;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The symbol whose GOT slot is SLOT, in R sorted by slot; NULL if none. */
static const char *symbols_slot_name(const struct symbols_reloc *r, size_t n, uint64_t slot)
{
    struct symbols_reloc key = {slot, NULL};
    const struct symbols_reloc *hit = bsearch(&key, r, n, sizeof *r, symbols_reloc_cmp);
    return hit != NULL ? hit->name : NULL;
}

static void symbols_add_plt(struct symbols_plt **out, size_t *n, uint64_t start, uint64_t size,
                            const char *target)
{
    *out = xreallocarray(*out, *n + 1, sizeof **out);
    (*out)[(*n)++] = (struct symbols_plt){start, size, xasprintf("%s@plt", target)};
}

size_t symbols_plt_entries(Elf *elf, struct symbols_plt **out)
{
    size_t n = 0, shstrndx, nplt = 0, ndyn = 0;
    struct symbols_reloc *plt_relocs = NULL, *dyn_relocs = NULL;
    Elf_Scn *plt = NULL, *pltsec = NULL, *pltgot = NULL;
    GElf_Shdr plt_sh = {0}, pltsec_sh = {0}, pltgot_sh = {0};
    GElf_Ehdr eh;
    *out = NULL;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0 || gelf_getehdr(elf, &eh) == NULL)
        return 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name == NULL)
            continue;
        if (strcmp(name, ".plt") == 0 && sh.sh_type == SHT_PROGBITS) {
            plt = scn;
            plt_sh = sh;
        } else if (strcmp(name, ".plt.sec") == 0 && sh.sh_type == SHT_PROGBITS) {
            pltsec = scn;
            pltsec_sh = sh;
        } else if (strcmp(name, ".plt.got") == 0 && sh.sh_type == SHT_PROGBITS) {
            pltgot = scn;
            pltgot_sh = sh;
        } else if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
                   (strcmp(name, ".rela.plt") == 0 || strcmp(name, ".rel.plt") == 0)) {
            symbols_read_relocs(elf, scn, &sh, &plt_relocs, &nplt);
        } else if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
                   (strcmp(name, ".rela.dyn") == 0 || strcmp(name, ".rel.dyn") == 0)) {
            symbols_read_relocs(elf, scn, &sh, &dyn_relocs, &ndyn);
        }
    }

    struct symbols_reloc *by_slot = NULL;
    if (nplt > 0) {
        by_slot = xreallocarray(NULL, nplt, sizeof *by_slot);
        memcpy(by_slot, plt_relocs, nplt * sizeof *by_slot);
        qsort(by_slot, nplt, sizeof *by_slot, symbols_reloc_cmp);
    }
    if (ndyn > 0)
        qsort(dyn_relocs, ndyn, sizeof *dyn_relocs, symbols_reloc_cmp);

    /* Where .plt.sec exists, its entries are the ones called, in .rela.plt's
     * order; else .plt's, after the 16-byte PLT0 (x86-64) or 32-byte one (arm64). */
    Elf_Scn *calls = pltsec != NULL ? pltsec : plt;
    GElf_Shdr *calls_sh = pltsec != NULL ? &pltsec_sh : &plt_sh;
    if (calls != NULL && nplt > 0) {
        uint64_t entsize = 16, header = 0;
        if (calls == plt)
            header = eh.e_machine == EM_AARCH64 ? 32 : 16;
        Elf_Data *d = elf_getdata(calls, NULL);
        for (size_t i = 0; i < nplt; i++) {
            uint64_t at = header + i * entsize;
            if (at + entsize > calls_sh->sh_size)
                break;
            const char *name = plt_relocs[i].name;
            /* On x86-64 the jump names its slot: trust it over the order. */
            if (eh.e_machine == EM_X86_64 && d != NULL && d->d_buf != NULL &&
                at + entsize <= d->d_size) {
                uint64_t slot = symbols_x86_64_slot((const uint8_t *)d->d_buf + at, entsize,
                                                    calls_sh->sh_addr + at);
                const char *byslot = slot ? symbols_slot_name(by_slot, nplt, slot) : NULL;
                if (byslot != NULL)
                    name = byslot;
            }
            symbols_add_plt(out, &n, calls_sh->sh_addr + at, entsize, name);
        }
    }
    /* .plt.got: functions whose address is also taken jump through a
     * GLOB_DAT slot of .rela.dyn (x86-64: 8- or 16-byte entries). */
    if (pltgot != NULL && eh.e_machine == EM_X86_64 && ndyn > 0) {
        Elf_Data *d = elf_getdata(pltgot, NULL);
        uint64_t entsize =
            pltgot_sh.sh_entsize == 8 || pltgot_sh.sh_entsize == 16 ? pltgot_sh.sh_entsize : 8;
        if (d != NULL && d->d_buf != NULL && pltgot_sh.sh_entsize == 0 && d->d_size >= 4 &&
            memcmp(d->d_buf, "\xf3\x0f\x1e\xfa", 4) == 0)
            entsize = 16;
        for (uint64_t at = 0; d != NULL && d->d_buf != NULL && at + entsize <= d->d_size;
             at += entsize) {
            uint64_t slot = symbols_x86_64_slot((const uint8_t *)d->d_buf + at, entsize,
                                                pltgot_sh.sh_addr + at);
            const char *name = slot ? symbols_slot_name(dyn_relocs, ndyn, slot) : NULL;
            if (name != NULL)
                symbols_add_plt(out, &n, pltgot_sh.sh_addr + at, entsize, name);
        }
    }
    free(by_slot);
    free(plt_relocs);
    free(dyn_relocs);
    return n;
}

char *symbols_demangle(const char *raw)
{
    if (raw == NULL || raw[0] != '_')
        return NULL; /* every scheme libiberty knows starts with '_' */
    char *d = cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
    if (d == NULL && raw[1] == 'D')
        d = cplus_demangle(raw, DMGL_PARAMS | DMGL_DLANG); /* AUTO does not try D */
    if (d == NULL)
        return NULL;
    char *owned = xstrdup(d); /* libiberty's malloc, our xmalloc: keep them apart */
    free(d);
    return owned;
}

void symbols_text_free(struct symbols_text *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].name);
        free(t[i].owner);
    }
    free(t);
}

static int symbols_text_cmp(const void *a, const void *b)
{
    const struct symbols_text *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return strcmp(x->name, y->name); /* aliases in a fixed order, whatever qsort does */
}

/* Append one entry to a growing table. */
static void symbols_text_add(struct symbols_text **out, size_t *n, size_t *alloc, uint64_t start,
                             uint64_t end, const char *name, size_t name_len, const char *owner,
                             size_t owner_len)
{
    if (*n == *alloc) {
        *alloc = *alloc ? 2 * *alloc : 1024;
        *out = xreallocarray(*out, *alloc, sizeof **out);
    }
    (*out)[(*n)++] = (struct symbols_text){start, end, xstrndup(name, name_len),
                                           owner ? xstrndup(owner, owner_len) : NULL};
}

/* A hex number at *P followed by a blank, as both text tables begin their
 * lines; *P moves past the blank.  False when there is none. */
static bool symbols_hex_field(char **p, uint64_t *value)
{
    char *end;
    errno = 0;
    *value = strtoull(*p, &end, 16);
    if (end == *p || errno != 0 || *end != ' ')
        return false;
    *p = end + 1;
    return true;
}

size_t symbols_read_kallsyms(FILE *file, struct symbols_text **out, bool *hidden)
{
    size_t n = 0, alloc = 0, zero = 0, lines = 0;
    char *line = NULL;
    size_t cap = 0;
    *out = NULL;
    while (getline(&line, &cap, file) > 0) {
        char *p = line;
        uint64_t addr;
        if (!symbols_hex_field(&p, &addr))
            continue;
        char type = *p;
        if (type == '\0' || p[1] != ' ')
            continue;
        p += 2;
        size_t len = strcspn(p, " \t\n");
        if (len == 0)
            continue;
        lines++;
        if (addr == 0)
            zero++;
        if (type != 't' && type != 'T' && type != 'w' && type != 'W')
            continue; /* text only: data symbols are never a PC */
        const char *owner = NULL;
        size_t owner_len = 0;
        char *open = strchr(p + len, '[');
        if (open != NULL) {
            owner = open + 1;
            owner_len = strcspn(owner, "]\n");
        }
        symbols_text_add(out, &n, &alloc, addr, 0, p, len, owner, owner_len);
    }
    free(line);
    *hidden = lines > 0 && zero == lines;
    if (*hidden || n == 0) {
        symbols_text_free(*out, n);
        *out = NULL;
        return 0;
    }
    /* Of aliases at one address (_stext, _text) keep the first by name, so
     * that two runs agree. */
    qsort(*out, n, sizeof **out, symbols_text_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && (*out)[k - 1].start == (*out)[i].start) {
            free((*out)[i].name);
            free((*out)[i].owner);
            continue;
        }
        (*out)[k++] = (*out)[i];
    }
    /* The last byte of the address space has none after it to end at. */
    if ((*out)[k - 1].start == UINT64_MAX) {
        k--;
        free((*out)[k].name);
        free((*out)[k].owner);
        if (k == 0) {
            free(*out);
            *out = NULL;
            return 0;
        }
    }
    /* Each ends where the next begins; the last gets a page, or what is
     * left below the top of the address space. */
    for (size_t i = 0; i + 1 < k; i++)
        (*out)[i].end = (*out)[i + 1].start;
    uint64_t last = (*out)[k - 1].start;
    (*out)[k - 1].end = last < UINT64_MAX - 4096 ? last + 4096 : UINT64_MAX;
    return k;
}

size_t symbols_read_perf_map(FILE *file, struct symbols_text **out)
{
    size_t n = 0, alloc = 0;
    char *line = NULL;
    size_t cap = 0;
    *out = NULL;
    while (getline(&line, &cap, file) > 0) {
        char *p = line;
        uint64_t start, size;
        if (!symbols_hex_field(&p, &start) || !symbols_hex_field(&p, &size) || size == 0 ||
            start + size < start)
            continue;
        size_t len = strcspn(p, "\n");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\r'))
            len--;
        if (len == 0)
            continue;
        symbols_text_add(out, &n, &alloc, start, start + size, p, len, NULL, 0);
    }
    free(line);
    if (n == 0)
        return 0;
    /* Later lines win, as a JIT reuses memory: sort by start keeping each
     * line's number, and drop every entry that a later one overlaps. */
    struct order {
        struct symbols_text t;
        size_t line;
    } *o = xreallocarray(NULL, n, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = (struct order){(*out)[i], i};
    qsort(o, n, sizeof *o, symbols_text_cmp); /* t comes first: compares starts */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k > 0 && o[k - 1].t.end > o[i].t.start && o[k - 1].line < o[i].line)
            free(o[--k].t.name);
        if (k > 0 && o[k - 1].t.end > o[i].t.start) {
            free(o[i].t.name); /* an older line under a newer one */
            continue;
        }
        o[k++] = o[i];
    }
    for (size_t i = 0; i < k; i++)
        (*out)[i] = o[i].t;
    free(o);
    return k;
}
