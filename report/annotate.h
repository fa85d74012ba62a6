/*
 * A function's annotated source, as perf annotate and pprof's list show it:
 * the lines of its source with their samples, the lines of the functions
 * inlined into it in sections of their own, and on request its disassembly
 * with each instruction's samples, the source line above its instructions.
 * The Source view draws it, profil --annotate prints it; both read the same
 * rows.
 */
#ifndef PROFIL_REPORT_ANNOTATE_H
#define PROFIL_REPORT_ANNOTATE_H

#include "session/session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum annotate_kind {
    ANNOTATE_FILE, /* a section's heading: the file its lines come from */
    ANNOTATE_LINE, /* a source line */
    ANNOTATE_INSN, /* an instruction (with the disassembly) */
    ANNOTATE_GAP,  /* lines left out between two sections of one file */
};

struct disasm_insn;
struct source_file;

struct annotate_row {
    enum annotate_kind kind;
    uint32_t file;  /* the file id of the line (of an instruction: of its code) */
    uint32_t line;  /* 0 in a FILE row, and for an instruction whose line is not known */
    uint64_t self;  /* samples on the line, or at the instruction */
    uint64_t total; /* samples with the line on their stack (LINE rows) */
    int64_t callee; /* what Enter follows: the function the line calls most (with
                     * stacks), or a call instruction's target; -1 none */
    const struct disasm_insn *insn; /* INSN rows: borrowed from the annotation */
};

struct annotation {
    int64_t func;
    uint32_t file;  /* the function's own file id, 0 when not known */
    uint64_t self;  /* samples of the function's code: the 100 % of "% of function" */
    uint64_t total; /* the session's samples: the 100 % of "% of total" */
    struct annotate_row *rows;
    size_t nrows;
    size_t *hot; /* rows with samples, hottest first (ties: in order) */
    size_t nhot;
    struct disasm_insn *insns; /* with the disassembly; owned */
    size_t ninsns;
    char *disasm_why; /* why there is no disassembly (owned), or NULL */
    char *lines_why;  /* why there are no source lines (owned), or NULL */
    struct annotate_file {
        uint32_t file;
        const struct source_file *src; /* its text (borrowed from source.c), or NULL */
        char *where;                   /* owned: where it was looked for, when not found */
    } * files;                         /* one per file of the rows */
    size_t nfiles;
};

/* Annotate function F of S, with its disassembly when DISASM.  Never NULL:
 * what is missing is said in lines_why and disasm_why. */
struct annotation *annotate_function(struct session *s, int64_t f, bool disasm);
void annotation_free(struct annotation *a);

/* The text of line LINE of file id FILE, *LEN bytes (NULs included), or
 * NULL when the file or the line is not there. */
const char *annotate_text(const struct annotation *a, uint32_t file, uint32_t line, size_t *len);

/* What A says of file id FILE: its entry in a->files, or NULL. */
const struct annotate_file *annotate_file_of(const struct annotation *a, uint32_t file);

/* " <function+0xOFF>" for a direct branch's target into BUF, or "". */
void annotate_target(struct session *s, const struct annotation *a, const struct disasm_insn *in,
                     char *buf, size_t size);

/* Print A as perf annotate --stdio does, to OUT. */
void annotate_print(struct session *s, const struct annotation *a, FILE *out);

#endif
