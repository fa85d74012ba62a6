#include "config.h"

#include "elf/disasm.h"
#include "elf/module.h"
#include "util/runcmd.h"
#include "util/xmalloc.h"

#include <capstone/capstone.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define DISASM_ARCH     CS_ARCH_X86
#define DISASM_MODE     CS_MODE_64
#define DISASM_MACHINE  EM_X86_64
#define DISASM_BAD_SIZE 1 /* objdump's (bad) covers one byte */
#elif defined(__aarch64__)
#define DISASM_ARCH     CS_ARCH_ARM64
#define DISASM_MODE     CS_MODE_ARM
#define DISASM_MACHINE  EM_AARCH64
#define DISASM_BAD_SIZE 4 /* every instruction is one aligned word */
#endif

#ifdef DISASM_ARCH
/* Capstone's handle and instruction buffer: opening one builds tables, so it
 * is opened on first use and kept for the life of the process. */
static csh disasm_handle;
static cs_insn *disasm_buf;

/* Open capstone for this machine once; later calls reuse it. */
static int disasm_open(char **cause)
{
    if (disasm_buf != NULL)
        return 0;
    cs_err err = cs_open(DISASM_ARCH, DISASM_MODE, &disasm_handle);
    if (err != CS_ERR_OK) {
        *cause = xasprintf("capstone: %s", cs_strerror(err));
        return -ENOSYS;
    }
#if defined(__x86_64__)
    cs_option(disasm_handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    cs_option(disasm_handle, CS_OPT_UNSIGNED, CS_OPT_ON); /* $0xffffffffffffffff, as objdump */
#endif
    cs_option(disasm_handle, CS_OPT_DETAIL, CS_OPT_ON);
    disasm_buf = cs_malloc(disasm_handle);
    if (disasm_buf == NULL) {
        cs_close(&disasm_handle);
        *cause = xstrdup("capstone: out of memory");
        return -ENOMEM;
    }
    return 0;
}

/* Whether capstone put instruction IN in GROUP. */
static bool disasm_in_group(const cs_insn *in, uint8_t group)
{
    for (uint8_t i = 0; i < in->detail->groups_count; i++) {
        if (in->detail->groups[i] == group)
            return true;
    }
    return false;
}

/* Set D's kind and direct target from capstone's detail of IN. */
static void disasm_classify(struct disasm_insn *d, const cs_insn *in)
{
#if defined(__x86_64__)
    const cs_x86 *x = &in->detail->x86;
    d->is_call = disasm_in_group(in, CS_GRP_CALL);
    d->is_ret = disasm_in_group(in, CS_GRP_RET);
    d->is_jump = disasm_in_group(in, CS_GRP_JUMP);
    if ((d->is_call || d->is_jump) && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
        d->has_target = true;
        d->target_addr = (uint64_t)x->operands[0].imm;
    }
#elif defined(__aarch64__)
    /* Capstone 4 files bl under JUMP, not CALL: the instruction says which. */
    const cs_arm64 *a = &in->detail->arm64;
    d->is_call = in->id == ARM64_INS_BL || in->id == ARM64_INS_BLR;
    d->is_ret = in->id == ARM64_INS_RET || disasm_in_group(in, CS_GRP_RET);
    d->is_jump = !d->is_call && !d->is_ret && disasm_in_group(in, CS_GRP_JUMP);
    if ((d->is_call || d->is_jump) && a->op_count > 0 &&
        a->operands[a->op_count - 1].type == ARM64_OP_IMM) {
        d->has_target = true;
        d->target_addr = (uint64_t)a->operands[a->op_count - 1].imm;
    }
#endif
}

#if defined(__x86_64__)
/* Capstone 4 writes every size suffix (movq %rdi, %rax); objdump leaves one
 * out where the operands already say it: a register of that size, or the
 * 64-bit default of branches and the stack.  The copy in OUT is IN's
 * mnemonic, with the suffix dropped when objdump would. */
static void disasm_x86_mnemonic(const cs_insn *in, char *out, size_t size)
{
    snprintf(out, size, "%s", in->mnemonic);
    char *word = strrchr(out, ' '); /* after a prefix: "rep stosq" */
    word = word != NULL ? word + 1 : out;
    const char *name = cs_insn_name(disasm_handle, in->id);
    size_t len = strlen(word);
    if (name == NULL || len != strlen(name) + 1 || strncmp(word, name, len - 1) != 0)
        return;
    int bytes = word[len - 1] == 'b'   ? 1
                : word[len - 1] == 'w' ? 2
                : word[len - 1] == 'l' ? 4
                : word[len - 1] == 'q' ? 8
                                       : 0;
    const cs_x86 *x = &in->detail->x86;
    bool by_default =
        bytes == 8 && (in->id == X86_INS_CALL || in->id == X86_INS_RET || in->id == X86_INS_JMP ||
                       in->id == X86_INS_PUSH || in->id == X86_INS_POP || in->id == X86_INS_LEAVE);
    bool by_reg = false;
    for (uint8_t i = 0; i < x->op_count; i++)
        by_reg |= x->operands[i].type == X86_OP_REG && x->operands[i].size == bytes;
    if (bytes > 0 && (by_default || by_reg))
        word[len - 1] = '\0';
}

/* Whether the decimal number at P in capstone's operands is one objdump
 * writes in hex: an immediate or a displacement, not a scale or st(1). */
static bool disasm_x86_is_number(const char *ops, const char *p)
{
    char before = p > ops ? p[-1] : ',';
    if (before != '$' && before != '-' && before != ',' && before != ' ' && before != ':' &&
        before != '*')
        return false;
    if (p[0] == '0' && p[1] == 'x')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p != ')';
}

/* Capstone's operands of IN as objdump writes them: no space after a comma,
 * numbers in hex, a zero displacement the encoding holds (0x0(%rax)) and a
 * scale of 1 written out. */
static void disasm_x86_operands(const cs_insn *in, char *out, size_t size)
{
    const cs_x86 *x = &in->detail->x86;
    /* A direct branch's target is an address: bare hex, as objdump's column. */
    if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
        (disasm_in_group(in, CS_GRP_JUMP) || disasm_in_group(in, CS_GRP_CALL))) {
        snprintf(out, size, "%" PRIx64, (uint64_t)x->operands[0].imm);
        return;
    }
    /* A shift by one has its own opcode, and objdump writes no count. */
    const char *ops = in->op_str;
    if ((x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1) && strncmp(ops, "$1, ", 4) == 0)
        ops += 4;
    bool disp0 = (x->modrm >> 6 == 1 || x->modrm >> 6 == 2) && x->disp == 0;
    int depth = 0, commas = 0;
    size_t k = 0;
    for (const char *p = ops; *p != '\0' && k + 6 < size; p++) {
        char prev = k > 0 ? out[k - 1] : ' ';
        if (*p == ' ' && p > ops && p[-1] == ',')
            continue;
        if (*p >= '0' && *p <= '9' && !(prev >= '0' && prev <= '9') &&
            disasm_x86_is_number(ops, p)) {
            out[k++] = '0';
            out[k++] = 'x';
        }
        if (*p == '(') {
            /* An index without a base always has a displacement. */
            if ((disp0 || p[1] == ',') && (prev == ' ' || prev == ',' || prev == ':')) {
                memcpy(out + k, "0x0", 3);
                k += 3;
            }
            depth++;
            commas = 0;
        } else if (*p == ',' && depth > 0) {
            commas++;
        } else if (*p == ')' && depth > 0) {
            if (commas == 1) {
                out[k++] = ',';
                out[k++] = '1';
            }
            depth--;
        }
        out[k++] = *p;
    }
    out[k] = '\0';
}
#endif

/* Capstone's text for IN, laid out as objdump does: the mnemonic padded to
 * six columns, then the operands. */
static void disasm_format(struct disasm_insn *d, const cs_insn *in)
{
    char mnemonic[sizeof in->mnemonic], ops[sizeof in->op_str + 32];
#if defined(__x86_64__)
    disasm_x86_mnemonic(in, mnemonic, sizeof mnemonic);
    disasm_x86_operands(in, ops, sizeof ops);
#else
    snprintf(mnemonic, sizeof mnemonic, "%s", in->mnemonic);
    snprintf(ops, sizeof ops, "%s", in->op_str);
#endif
    if (ops[0] == '\0') {
        snprintf(d->text, sizeof d->text, "%s", mnemonic);
        return;
    }
    /* A longer line is cut: none comes near 128 columns. */
    size_t k = (size_t)snprintf(d->text, sizeof d->text, "%-6s ", mnemonic);
    size_t len = strlen(ops);
    if (len > sizeof d->text - 1 - k)
        len = sizeof d->text - 1 - k;
    memcpy(d->text + k, ops, len);
    d->text[k + len] = '\0';
}

/* The image address of file offset LO in M, checking that [LO, LO + SIZE)
 * lies in one segment (or M's offsets are addresses). */
static int disasm_base(const struct module *m, uint64_t lo, size_t size, uint64_t *base,
                       char **cause)
{
    if (m->kind == MODULE_ANON || m->kind == MODULE_KERNEL) {
        *base = lo;
        return 0;
    }
    if (m->nsegs == 0) {
        *cause = xasprintf("%s: its segments are not known", m->path);
        return -ENOENT;
    }
    uint64_t last;
    if (!module_offset_to_vaddr(m, lo, base) ||
        (size > 0 &&
         (!module_offset_to_vaddr(m, lo + size - 1, &last) || last - *base != size - 1))) {
        *cause = xasprintf("%s: offsets 0x%" PRIx64 "-0x%" PRIx64 " are not in one segment",
                           m->path, lo, lo + size);
        return -ERANGE;
    }
    return 0;
}
#endif

struct disasm_insn *disasm_bytes(const struct module *m, const uint8_t *code, size_t size,
                                 uint64_t lo, size_t *n, char **cause)
{
#ifndef DISASM_ARCH
    *cause = xstrdup("disassembly not supported on this machine");
    return NULL;
#else
    uint64_t base;
    if (size == 0) {
        *n = 0;
        return xcalloc(1, sizeof(struct disasm_insn));
    }
    if (size > DISASM_MAX_BYTES) {
        *cause = xasprintf("function too large to disassemble (%zu bytes)", size);
        return NULL;
    }
    if (disasm_base(m, lo, size, &base, cause) < 0 || disasm_open(cause) < 0)
        return NULL;
    /* Compiled code averages about four bytes an instruction. */
    size_t cap = size / 4 + 16, count = 0;
    struct disasm_insn *out = xreallocarray(NULL, cap, sizeof *out);
    const uint8_t *p = code;
    size_t left = size;
    uint64_t addr = base;
    while (left > 0) {
        if (count == cap) {
            cap *= 2;
            out = xreallocarray(out, cap, sizeof *out);
        }
        struct disasm_insn *d = &out[count++];
        memset(d, 0, sizeof *d);
        d->offset = lo + (uint64_t)(p - code);
        d->addr = addr;
        if (!cs_disasm_iter(disasm_handle, &p, &left, &addr, disasm_buf)) {
            /* Capstone stops at bytes it cannot decode: step over them. */
            d->size = left < DISASM_BAD_SIZE ? (uint8_t)left : DISASM_BAD_SIZE;
            strcpy(d->text, "(bad)");
            p += d->size;
            left -= d->size;
            addr += d->size;
            continue;
        }
        d->size = (uint8_t)disasm_buf->size;
        disasm_format(d, disasm_buf);
        disasm_classify(d, disasm_buf);
        if (!d->has_target)
            d->target_offset = 0;
        else if (m->kind == MODULE_ANON || m->kind == MODULE_KERNEL)
            d->target_offset = d->target_addr;
        else if (!module_vaddr_to_offset(m, d->target_addr, &d->target_offset))
            d->target_offset = UINT64_MAX;
    }
    *n = count;
    return out;
#endif
}

/* Whether the PT_LOAD segments of ELF are M's. */
static bool disasm_same_segments(const struct module *m, Elf *elf)
{
    size_t phnum, k = 0;
    if (elf_getphdrnum(elf, &phnum) != 0)
        return false;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD ||
            !module_segment_fits(ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz))
            continue; /* as module_load leaves them out */
        if (k == m->nsegs)
            return false;
        const struct segment *s = &m->segs[k++];
        if (s->vaddr != ph.p_vaddr || s->memsz != ph.p_memsz || s->offset != ph.p_offset ||
            s->filesz != ph.p_filesz || s->flags != ph.p_flags)
            return false;
    }
    return k == m->nsegs;
}

/* The PT_LOAD segments of ELF, for a module that has none; the caller owns
 * the result. */
static struct segment *disasm_file_segments(Elf *elf, size_t *n)
{
    size_t phnum;
    *n = 0;
    if (elf_getphdrnum(elf, &phnum) != 0 || phnum == 0)
        return NULL;
    struct segment *segs = xcalloc(phnum, sizeof *segs);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD &&
            module_segment_fits(ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz))
            segs[(*n)++] =
                (struct segment){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_flags};
    }
    return segs;
}

/* Whether ELF, SIZE bytes long, is still the image M was made from, and can
 * hold [LO, HI): 0, or a negative errno with *CAUSE set. */
static int disasm_check_image(const struct module *m, Elf *elf, uint64_t size, uint64_t lo,
                              uint64_t hi, char **cause)
{
    GElf_Ehdr ehdr;
    if (elf == NULL || elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == NULL) {
        *cause = xasprintf("%s: no longer the file profiled (not an ELF file)", m->path);
        return -ENOEXEC;
    }
#ifdef DISASM_MACHINE
    if (ehdr.e_machine != DISASM_MACHINE) {
        *cause = xasprintf("%s: code for another machine", m->path);
        return -ENOEXEC;
    }
#endif
    if (m->build_id_len > 0) {
        const void *id;
        ssize_t len = dwelf_elf_gnu_build_id(elf, &id);
        if (len <= 0 || (size_t)len < m->build_id_len || memcmp(id, m->build_id, m->build_id_len)) {
            *cause = xasprintf("%s: no longer the file profiled (build id differs)", m->path);
            return -ESTALE;
        }
    } else if (m->nsegs > 0 && !disasm_same_segments(m, elf)) {
        *cause = xasprintf("%s: no longer the file profiled (its segments differ)", m->path);
        return -ESTALE;
    }
    if (hi > size) {
        *cause =
            xasprintf("%s: no longer the file profiled (too short for 0x%" PRIx64 ")", m->path, hi);
        return -ESTALE;
    }
    return 0;
}

/* Disassemble [LO, HI) of M at CODE with M's segments or, for a module
 * never loaded, those of ELF, the image it names. */
static struct disasm_insn *disasm_image(const struct module *m, Elf *elf, const uint8_t *code,
                                        uint64_t lo, uint64_t hi, size_t *n, char **cause)
{
    if (m->nsegs > 0)
        return disasm_bytes(m, code, hi - lo, lo, n, cause);
    struct module with_segs = *m;
    with_segs.segs = disasm_file_segments(elf, &with_segs.nsegs);
    struct disasm_insn *out = disasm_bytes(&with_segs, code, hi - lo, lo, n, cause);
    free(with_segs.segs);
    return out;
}

/* Disassemble the vDSO mapped into this process: a live session's vDSO is
 * this one, and a replay on another kernel finds another build id. */
static struct disasm_insn *disasm_vdso(const struct module *m, uint64_t lo, uint64_t hi, size_t *n,
                                       char **cause)
{
    const unsigned char *image = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    if (image == NULL || memcmp(image, ELFMAG, SELFMAG) != 0) {
        *cause = xasprintf("%s: not mapped in this process", m->path);
        return NULL;
    }
    /* Section headers come last in the vDSO image: they bound its size. */
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
    size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)image, size);
    struct disasm_insn *out = NULL;
    if (disasm_check_image(m, elf, size, lo, hi, cause) == 0)
        out = disasm_image(m, elf, image + lo, lo, hi, n, cause);
    if (elf != NULL)
        elf_end(elf);
    return out;
}

/* How many (bad) entries INS holds. */
static size_t disasm_bad(const struct disasm_insn *ins, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += strcmp(ins[i].text, "(bad)") == 0;
    return bad;
}

/* One line of objdump -d: "    11b7:\tjle    11e8 <caller_a+0x38>"; false
 * for any other line.  The target's <symbol> and a "# comment" go. */
static bool disasm_objdump_line(const struct module *m, char *line, struct disasm_insn *d)
{
    char *colon;
    uint64_t addr = strtoull(line, &colon, 16);
    if (colon == line || colon[0] != ':' || colon[1] != '\t')
        return false;
    char *text = colon + 2;
    text[strcspn(text, "\n")] = '\0';
    char *hash = strstr(text, "   # ");
    if (hash == NULL)
        hash = strstr(text, " # ");
    if (hash != NULL)
        *hash = '\0';
    char *sym = strstr(text, " <");
    memset(d, 0, sizeof *d);
    d->addr = addr;
    if (sym != NULL) {
        /* The operand before it is the target, bare hex: "call   1139". */
        char *start = sym;
        while (start > text && start[-1] != ' ' && start[-1] != ',')
            start--;
        char *end;
        uint64_t target = strtoull(start, &end, 16);
        if (end == sym && start != sym) {
            d->has_target = true;
            d->target_addr = target;
            if (!module_vaddr_to_offset(m, target, &d->target_offset))
                d->target_offset = UINT64_MAX;
        }
        *sym = '\0';
    }
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == ' ')
        text[--len] = '\0';
    snprintf(d->text, sizeof d->text, "%s", text);
    d->is_call = strncmp(text, "call", 4) == 0;
    d->is_ret = strncmp(text, "ret", 3) == 0;
    d->is_jump = !d->is_call && !d->is_ret && (text[0] == 'j' || strncmp(text, "loop", 4) == 0);
    return true;
}

/* [LO, HI) of M as objdump -d writes it, for the instructions capstone 4
 * (Debian 12's) does not know: the AVX-512 mask instructions of glibc's
 * *_evex and *_avx512 string routines come out of it as (bad).  NULL when
 * objdump is not there or says nothing. */
static struct disasm_insn *disasm_objdump(const struct module *m, uint64_t lo, uint64_t hi,
                                          uint64_t vlo, size_t *n)
{
    char start[32], stop[32];
    snprintf(start, sizeof start, "--start-address=0x%" PRIx64, vlo);
    snprintf(stop, sizeof stop, "--stop-address=0x%" PRIx64, vlo + (hi - lo));
    char *argv[] = {
        (char *)"objdump", (char *)"-d", (char *)"-w", (char *)"--no-show-raw-insn", start, stop,
        (char *)m->path,   NULL};
    pid_t pid;
    int fd = spawn_reader(argv, true, &pid);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    size_t count = 0, cap = (hi - lo) / 4 + 16;
    struct disasm_insn *out = xcalloc(cap, sizeof *out);
    char *line = NULL;
    size_t lcap = 0;
    while (f != NULL && getline(&line, &lcap, f) > 0) {
        struct disasm_insn d;
        if (!disasm_objdump_line(m, line, &d) || d.addr < vlo || d.addr >= vlo + (hi - lo))
            continue;
        if (count == cap) {
            cap *= 2;
            out = xreallocarray(out, cap, sizeof *out);
        }
        d.offset = lo + (d.addr - vlo);
        out[count++] = d;
    }
    free(line);
    if (f != NULL)
        fclose(f);
    else
        close(fd);
    waitpid(pid, NULL, 0);
    for (size_t i = 0; i < count; i++) {
        uint64_t next = i + 1 < count ? out[i + 1].offset : hi;
        out[i].size = next > out[i].offset && next - out[i].offset < 256
                          ? (uint8_t)(next - out[i].offset)
                          : 1;
    }
    if (count == 0 || out[0].offset != lo) {
        free(out);
        return NULL;
    }
    *n = count;
    return out;
}

/* Read SIZE bytes at file offset OFF of FD into BUF: 0, or a negative errno. */
static int disasm_read(int fd, uint8_t *buf, size_t size, uint64_t off)
{
    size_t done = 0;
    while (done < size) {
        ssize_t r = pread(fd, buf + done, size - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return -EIO;
        done += (size_t)r;
    }
    return 0;
}

struct disasm_insn *disasm_module(const struct module *m, uint64_t lo, uint64_t hi, size_t *n,
                                  char **cause)
{
    if (m->kind == MODULE_ANON || m->kind == MODULE_KERNEL) {
        *cause = xasprintf("%s: no file holds this code", m->path);
        return NULL;
    }
    if (hi < lo) {
        *cause = xasprintf("%s: empty range 0x%" PRIx64 "-0x%" PRIx64, m->path, lo, hi);
        return NULL;
    }
    if (hi - lo > DISASM_MAX_BYTES) {
        *cause = xasprintf("function too large to disassemble (%" PRIu64 " bytes)", hi - lo);
        return NULL;
    }
    if (m->kind == MODULE_VDSO)
        return disasm_vdso(m, lo, hi, n, cause);

    struct disasm_insn *out = NULL;
    uint8_t *code = NULL;
    Elf *elf = NULL;
    struct stat st;
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        *cause = xasprintf("%s: %s", m->path, strerror(errno));
        goto out;
    }
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (disasm_check_image(m, elf, (uint64_t)st.st_size, lo, hi, cause) < 0)
        goto out;
    code = xmalloc(hi - lo ? hi - lo : 1);
    int r = disasm_read(fd, code, hi - lo, lo);
    if (r < 0) {
        *cause = xasprintf("%s: %s", m->path, strerror(-r));
        goto out;
    }
    out = disasm_image(m, elf, code, lo, hi, n, cause);
    size_t nobj, bad = out != NULL ? disasm_bad(out, *n) : 0;
    struct disasm_insn *obj = bad > 0 ? disasm_objdump(m, lo, hi, out[0].addr, &nobj) : NULL;
    if (obj != NULL && disasm_bad(obj, nobj) < bad) {
        free(out);
        out = obj;
        *n = nobj;
    } else {
        free(obj);
    }
out:
    free(code);
    if (elf != NULL)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    return out;
}
