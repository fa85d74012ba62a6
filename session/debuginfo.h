/*
 * Finding a stripped image's separate debug file where distributions put it,
 * in gdb's order: /usr/lib/debug/.build-id, then the .gnu_debuglink name
 * beside the image, in its .debug/ and under /usr/lib/debug, then a
 * debuginfod server when DEBUGINFOD_URLS names one (libdebuginfod keeps the
 * downloads in its own cache, as debuginfod-find does).  Answers are kept
 * per build id for the life of the process.  The session prints nothing: a
 * download reports its progress through a hook its user installs.
 */
#ifndef PROFIL_DEBUGINFO_H
#define PROFIL_DEBUGINFO_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an image says about its debug file. */
struct debuginfo_query {
    const char *path; /* the image's file: the debuglink is looked for beside it */
    const char *name; /* for the progress report: its last component */
    const uint8_t *build_id;
    size_t build_id_len;   /* 0 when it has none */
    const char *debuglink; /* the .gnu_debuglink file name, or NULL */
    uint32_t debuglink_crc;
};

/* A debug file found: the caller owns all three (debuginfo_file_close). */
struct debuginfo_file {
    int fd;
    Elf *elf;
    char *path;
};

enum debuginfo_state {
    DEBUGINFO_DOWNLOADING, /* waiting for a server, then bytes arrive: again and again */
    DEBUGINFO_DONE,        /* once after DOWNLOADING, or alone when no server answers */
};

/* One progress report.  DONE and TOTAL are bytes (TOTAL 0 while unknown).
 * DEBUGINFO_DONE: FOUND when the file is in the cache; else ERROR is a
 * one-line reason, or NULL when the servers just do not have it (a server
 * that cannot be reached is said once: it is not asked again). */
struct debuginfo_progress {
    enum debuginfo_state state;
    const char *name;
    long done;
    long total;
    bool found;
    const char *error;
};

typedef void debuginfo_progress_fn(void *arg, const struct debuginfo_progress *p);

/* Install the progress hook (NULL: none); returns the one it replaces in
 * *OLD_FN and *OLD_ARG (either may be NULL), so a screen can take it over
 * while it runs and give it back. */
void debuginfo_set_progress(debuginfo_progress_fn *fn, void *arg, debuginfo_progress_fn **old_fn,
                            void **old_arg);

/* The global debug directory, /usr/lib/debug unless a test says otherwise;
 * DIR is copied. */
void debuginfo_set_root(const char *dir);

/* Open Q's separate debug file into *F: 0, or -ENOENT when there is none. */
int debuginfo_find(const struct debuginfo_query *q, struct debuginfo_file *f);

/* Close what debuginfo_find opened. */
void debuginfo_file_close(struct debuginfo_file *f);

/* The CRC-32 .gnu_debuglink carries (zlib's, as gdb computes it) of the
 * file open at FD, from its start: 0, or a negative errno. */
int debuginfo_crc32(int fd, uint32_t *crc);

#endif
