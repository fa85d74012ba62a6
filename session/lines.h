/*
 * Which line: every PC profil keeps, turned into its source file, line and
 * column, and the chain of inlined functions it lies in, with elfutils
 * (dwfl_module_getsrc, dwarf_getscopes) from the image or its separate debug
 * file.  Looked up once per PC and kept; a live session reads DWARF, a
 * session read from a .PRF has only what the file's LINE chunk holds, so a
 * replay shows the same lines without the binaries.  lines.c keeps the
 * tables (and merges them); lines_dwarf.c reads DWARF into them.
 */
#ifndef PROFIL_SESSION_LINES_H
#define PROFIL_SESSION_LINES_H

#include "session/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The deepest chain of inlined functions kept for one PC. */
#define LINES_MAX_INLINE 64

/* One function inlined somewhere, once per (module, name). */
struct inline_func {
    uint32_t module;
    char *raw;     /* owned: the linkage name, or the plain name (C) */
    uint32_t file; /* where it is declared: a file id (0 unknown) and line */
    uint32_t line;
    int64_t func; /* its entry in session.funcs, -1 until made */
};

/* One level of a PC's inline chain: the function inlined, and where its
 * caller (the next level out) called it. */
struct inline_frame {
    uint32_t fn; /* index into lines.inl_funcs */
    uint32_t call_file;
    uint32_t call_line;
    uint32_t call_col;
};

/* Where the code at one (module, file offset) came from. */
struct srcloc {
    uint32_t module;
    uint64_t offset;
    uint32_t file; /* file id, 0 when the line is unknown */
    uint32_t line;
    uint32_t col;
    uint32_t ninl; /* inline frames, innermost first, at lines.inl_frames[inl] */
    uint32_t inl;
};

/* Where a function is declared, as a file keeps it. */
struct func_place {
    uint32_t module;
    uint64_t start;
    uint32_t file;
    uint32_t line;
    uint32_t line_end; /* the last line its code comes from, 0 unknown */
};

/* An embedded source text, handed to source.c on first use. */
struct lines_text {
    uint32_t file;
    char *text;
    size_t len;
    bool given;
};

/* What session/lines.c keeps; session.lines. */
struct lines {
    char **files; /* file ids are index + 1 */
    size_t nfiles, files_alloc;
    uint32_t *file_index; /* open addressing on the path: id, 0 empty */
    size_t file_index_alloc;
    struct srcloc *locs; /* open addressing on (module, offset); module UINT32_MAX empty */
    size_t nlocs;
    size_t locs_alloc; /* a power of two, or 0 */
    struct inline_frame *inl_frames;
    size_t ninl_frames, inl_frames_alloc;
    struct inline_func *inl_funcs;
    size_t ninl_funcs;
    struct func_place *fplaces; /* a file's functions' places, sorted by (module, start) */
    size_t nfplaces, fplaces_alloc;
    struct lines_dwarf **dwarf; /* by module id: DWARF handles of a live session */
    size_t ndwarf;
    bool from_file;           /* read from a .PRF: never look at the disk */
    struct lines_text *texts; /* a file's embedded source texts (SRCE) */
    size_t ntexts;
};

/* The place of the code at (MODULE, OFFSET), looked up on first use; NULL
 * when nothing is known of it (no debug information, kernel or anonymous
 * code).  Borrowed, valid until the next lookup that adds a place. */
const struct srcloc *lines_lookup(struct session *s, uint32_t module, uint64_t offset);

/* Open MODULE's debug information now rather than on its first PC's lookup. */
void lines_open(struct session *s, uint32_t module);

/* The path of file id FILE ("??" for 0 or a bad id). */
const char *lines_file(const struct session *s, uint32_t file);

/* Intern PATH: its file id. */
uint32_t lines_file_id(struct session *s, const char *path);

/* The function of level LEVEL of LOC's chain, outermost (the real function,
 * REAL) being 0: REAL itself or an inlined function's entry in s->funcs. */
int64_t lines_level_func(struct session *s, const struct srcloc *loc, uint32_t level, int64_t real);

/* The line of level LEVEL of LOC's chain: the innermost's own line, or the
 * line where the next level in was called from. */
void lines_level_place(const struct session *s, const struct srcloc *loc, uint32_t level,
                       uint32_t *file, uint32_t *line);

/* Look up the place where each row of F's line table starts, so that a file
 * keeps the line of every instruction of F, not only of the sampled ones
 * (a replay's disassembly groups its instructions under their lines). */
void lines_note_rows(struct session *s, int64_t f);

/* Where function F is declared: false when unknown. */
bool lines_func_place(struct session *s, int64_t f, uint32_t *file, uint32_t *line);

/* Forget what is known of the modules whose debug file was being fetched
 * (debuginfo_background): the next lookup opens it again, and finds it if
 * it came. */
void lines_forget_pending(struct session *s);

/* Why module MODULE has no lines (its debug information was not found or
 * unreadable), or NULL. */
const char *lines_module_why(struct session *s, uint32_t module);

/* The reader's side: add a file, an inline function, a place. */
uint32_t lines_add_inline_func(struct session *s, uint32_t module, const char *raw, uint32_t file,
                               uint32_t line);
void lines_add_loc(struct session *s, const struct srcloc *loc, const struct inline_frame *chain);
/* Make room for N more places at once (a reader that knows how many come). */
void lines_reserve_locs(struct session *s, size_t n);

void lines_add_func_place(struct session *s, const struct func_place *p);
/* Sort what lines_add_func_place added, once the file is read. */
void lines_sort_func_places(struct session *s);

/* Keep the embedded text of file id FILE (the reader); copied. */
void lines_add_text(struct session *s, uint32_t file, const char *text, size_t len);

struct source_file;
/* The source text of file id FILE: the session's embedded text, else as
 * source_find finds it (NULL, and *WHERE owned, when it does not). */
const struct source_file *lines_source(struct session *s, uint32_t file, char **where);

/* The text of FILE a saved session embeds (--embed-source), in *TEXT and
 * *LEN; false when there is none.  A session read from a file (a replay, a
 * merge) embeds only the texts its files carried, never the disk's: a
 * stranger's file may name /etc/shadow.  A recorded one embeds the file as
 * lines_source finds it. */
bool lines_embed_text(struct session *s, uint32_t file, const char **text, size_t *len);

/* Forget everything (session_free). */
void lines_free(struct session *s);

/* Add what FROM knows of its places to S (a merge): FROM's module I is S's
 * MODULE_MAP[I]; a place S knows already is kept. */
void lines_merge(struct session *s, const struct session *from, const uint32_t *module_map);

/* lines.c's tables as lines_dwarf.c fills them.  S's lines, made empty on
 * first use. */
struct lines *lines_get(struct session *s);

/* The slot of (MODULE, OFFSET) in L's places (L->locs_alloc not 0): its
 * place, or the empty one (module UINT32_MAX) where it would go. */
struct srcloc *lines_loc_slot(struct lines *l, uint32_t module, uint64_t offset);

/* Give FN the place the file's function places (lines_add_func_place) hold
 * for it, if any. */
void lines_file_func_place(struct lines *l, struct func *fn);

#endif
