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

/* Open Q's separate debug file into *F: 0, -ENOENT when there is none, or
 * -EINPROGRESS when a server is being asked in the background. */
int debuginfo_find(const struct debuginfo_query *q, struct debuginfo_file *f);

/* Whether to ask the servers in the background from now on (a live run):
 * debuginfo_find then answers -EINPROGRESS for a build id only a server may
 * have, and a worker thread asks; debuginfo_poll takes its answers, after
 * which debuginfo_find answers from them.  Otherwise a server is asked
 * while debuginfo_find waits.  Called before any other thread that reads
 * the environment starts: the worker's first question sets libdebuginfod's
 * limits in profil's environment, once (debuginfo_env_ours). */
void debuginfo_background(bool on);
/* Questions in the background not yet answered by debuginfo_poll. */
size_t debuginfo_pending(void);
/* Take the worker's answers: the hook hears of its progress and outcomes
 * here, on the caller's thread.  Returns how many questions were answered. */
size_t debuginfo_poll(void);
/* Poll until every question is answered (each bounded by libdebuginfod's
 * limits, see debuginfo.c; a file:// URL has none), or GIVE_UP (asked every
 * 100 ms; NULL: never) says the user will not wait: then what is still
 * asked is taken as not found, no server is asked again, and false. */
bool debuginfo_wait(bool (*give_up)(void *arg), void *arg);
/* Whether ENTRY, a NAME=VALUE of the environment, is a limit profil put
 * there for libdebuginfod: a program profil starts is given its
 * environment without those. */
bool debuginfo_env_ours(const char *entry);

/* Close what debuginfo_find opened. */
void debuginfo_file_close(struct debuginfo_file *f);

/* The CRC-32 .gnu_debuglink carries (zlib's, as gdb computes it) of the
 * file open at FD, from its start: 0, or a negative errno. */
int debuginfo_crc32(int fd, uint32_t *crc);

#endif
