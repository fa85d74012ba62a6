/*
 * Finding and reading the source files DWARF line tables name, for the
 * Source view and the listing.  A name is first made whole: a relative one
 * is joined to its compilation directory, and "." and ".." are resolved
 * lexically, without asking the file system ("/build/x/../a.c" is
 * "/build/a.c" even when x is a symbolic link).  Then the first of these
 * that can be read is taken:
 *
 *   1. text a .PRF carried (--embed-source), registered under that name;
 *   2. the name rewritten by the first --prefix-map whose OLD is a prefix of
 *      it at a component boundary (/build/x=/src maps /build/x/a.c to
 *      /src/a.c, and not /build/xy/a.c);
 *   3. the name itself (a relative one is relative to profil's directory);
 *   4. for each --source-dir D in the order given, D joined with each tail of
 *      the name, longest first, down to the basename, as gdb's directory
 *      search does: /build/x/src/a.c tries D/build/x/src/a.c, D/x/src/a.c,
 *      D/src/a.c, D/a.c (a relative name's leading ".."s are left out: they
 *      would climb out of D).
 *
 * Only regular files are read, without blocking on anything else (a FIFO, a
 * device, a directory is passed over), up to SOURCE_MAX_BYTES and
 * SOURCE_MAX_LINES; what is read is taken as text, whatever its bytes.
 * Every answer, found or not, is kept until the settings change or
 * source_reset.  Not thread-safe: one thread (the screen's) asks.
 */
#ifndef PROFIL_SOURCE_H
#define PROFIL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SOURCE_MAX_BYTES ((size_t)64 << 20) /* a larger file is refused */
#define SOURCE_MAX_LINES 10000000u          /* a file with more lines is refused */

/* One source file read whole.  Lines are split on '\n' only; a "\r\n" ending
 * loses its '\r'; a last line without a newline is a line; an empty file has
 * none.  A NUL byte in a line stays in it: lines[k] read as a C string stops
 * there, source_line gives the whole line. */
struct source_file {
    char *path; /* where it was read from; for embedded text, the name it was given under */
    char *text; /* the whole file as read, NUL-terminated */
    size_t len; /* of text, without the terminating NUL */
    /* lines[0] is line 1, pointing into a private copy: without its newline,
     * NUL-terminated, tabs kept.  lines[nlines] is one past the last line's
     * NUL, so that line k holds lines[k] - lines[k - 1] - 1 bytes. */
    const char **lines;
    uint32_t nlines;
    bool embedded; /* from the .PRF, not from the disk */
    int64_t mtime; /* of the file read, in seconds since the epoch; 0 when embedded */
};

/* Look under DIR too (--source-dir, repeatable: searched in the order given).
 * DIR is copied.  The answers kept so far are forgotten. */
void source_add_dir(const char *dir);

/* Rewrite names that start with OLD as NEW (--prefix-map OLD=NEW, repeatable,
 * as gdb's `set substitute-path`): SPEC is split at its first '=', NEW may be
 * empty.  Returns 0, or -EINVAL with *CAUSE an owned line when SPEC has no
 * '=' or OLD is empty.  The answers kept so far are forgotten. */
int source_add_prefix_map(const char *spec, char **cause);

/* Give the text a .PRF carried for the file named PATH (joined and resolved
 * as source_find does it); it wins over the disk.  TEXT is copied; a later
 * text for the same name replaces it; text over SOURCE_MAX_BYTES is not kept
 * (source_find says so and looks on the disk).  The answers kept so far are
 * forgotten. */
void source_add_embedded(const char *path, const char *text, size_t len);

/* The source file DWARF names PATH: absolute, or relative to COMP_DIR (which
 * may be NULL).  Borrowed until source_reset, even across a change of
 * settings; a second call for the same name is a table lookup.  NULL when
 * none can be read: then *WHERE (when WHERE is not NULL) is an owned line
 * saying where it was looked for and why a file there was refused, e.g.
 * "not found: /build/x/src/a.c, /home/u/src/build/x/src/a.c, ..., /home/u/src/a.c
 * (--source-dir /home/u/src)"; the Source view shows it.  *WHERE is NULL when
 * the file is found.  A name longer than PATH_MAX is not looked for. */
const struct source_file *source_find(const char *path, const char *comp_dir, char **where);

/* Line LINE of F (1 for the first) and its length in *LEN, NULs included;
 * NULL when F has no such line (the file changed since the program was built). */
const char *source_line(const struct source_file *f, uint32_t line, size_t *len);

/* Forget every answer and file, the directories, the maps and the embedded
 * texts (tests, and a session that loads another .PRF). */
void source_reset(void);

#endif
