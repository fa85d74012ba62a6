/*
 * Disassembly of a module's code for the Source view, with capstone: one
 * entry per instruction, addressed by file offset as every profil address
 * is, so that a sample's offset finds its instruction directly.  On x86-64
 * the text is AT&T syntax written as objdump -d writes it (capstone's own
 * form rewritten: size suffixes only where the operands leave the size open,
 * numbers in hex, a branch's target as bare hex without objdump's <symbol>).
 * Bytes that do not decode become "(bad)" entries and the listing goes on,
 * as objdump's does.  Only the machine profil runs on is supported.
 */
#ifndef PROFIL_DISASM_H
#define PROFIL_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct module;

/* One instruction, or one undecodable byte ("(bad)"; an AArch64 word). */
struct disasm_insn {
    uint64_t offset; /* file offset of the instruction in its module */
    uint64_t addr;   /* the image's own address (p_vaddr based), for display */
    uint8_t size;
    char text[128]; /* "mov    %rdi,%rax": mnemonic padded to 6, then operands */
    bool is_call, is_jump, is_ret;
    bool has_target;        /* a direct call or jump */
    uint64_t target_offset; /* its target as a file offset of the same module, or
                               UINT64_MAX when the target lies in no segment */
    uint64_t target_addr;
};

/* The most code one call disassembles: a larger range is refused. */
#define DISASM_MAX_BYTES (1u << 20)

/* Disassemble module M's code at file offsets [LO, HI).  The bytes are read
 * from M's file (the vDSO's from the one mapped into this process) once it
 * is known to be the file profiled: the same build id when M has one, else
 * the same PT_LOAD segments and a size that holds the range.  M's segments
 * give the addresses; a module without any (never loaded) takes the file's.
 * Returns an array the caller frees, its length in *N (0 for an empty
 * range), or NULL with *CAUSE set to an owned one-line reason, such as
 * "/usr/bin/x: no longer the file profiled (build id differs)". */
struct disasm_insn *disasm_module(const struct module *m, uint64_t lo, uint64_t hi, size_t *n,
                                  char **cause);

/* The same from SIZE bytes at CODE, which stand at file offset LO of M (the
 * tests; code read elsewhere).  M's segments must hold the range. */
struct disasm_insn *disasm_bytes(const struct module *m, const uint8_t *code, size_t size,
                                 uint64_t lo, size_t *n, char **cause);

#endif
