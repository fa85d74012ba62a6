/*
 * Putting a file the user named in place: written whole under a temporary
 * name beside it, then renamed over the old one, which may be kept as
 * NAME.old; never over a FIFO, device or name in /dev unless written into
 * as one, and never over another user's file in a sticky directory.  The
 * .PRF writer saves with it, and so do the exports and listings.
 */
#ifndef PROFIL_SAVE_H
#define PROFIL_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Write DATA to PATH atomically. */
int save_atomic(const char *path, const uint8_t *data, size_t len, char **cause);

/* The same, and when KEEP_OLD and PATH is already a file, keep that file as
 * PATH.old (replacing an older one, as perf keeps perf.data.old) before the
 * new one takes its place; *KEPT says whether it did.  A failure at any step
 * loses neither file: the previous one stays at PATH or at PATH.old. */
int save_atomic_keep(const char *path, const uint8_t *data, size_t len, bool keep_old, bool *kept,
                     char **cause);

/* How save_write places the file. */
enum {
    SAVE_KEEP_OLD = 1, /* keep a file already at PATH as PATH.old */
    SAVE_NEW = 2,      /* replace nothing: PATH, else PATH with a random part */
    SAVE_THROUGH = 4,  /* a FIFO, character device or /dev name is written into */
};

/* Whether a file written as FLAGS say may take PATH's place: 0, or -errno
 * with *CAUSE (owned, one line).  A FIFO, device or socket at PATH (or at
 * PATH.old, with SAVE_KEEP_OLD), and any name in /dev (/dev/stdout is a
 * link), is never renamed over: `-o /dev/null` run as root must not replace
 * /dev/null.  With SAVE_THROUGH (an export to /dev/stdout or a FIFO) a
 * FIFO, a character device or a name in /dev is what the user meant, and is
 * written into instead; a block device or socket elsewhere is refused
 * still. */
int save_check(const char *path, unsigned flags, char **cause);

/* Write DATA to PATH atomically, as FLAGS say (never over what
 * save_check refuses), with the mode of the file it replaces, else
 * 0666 less the umask, and the directory flushed after the rename.  In a
 * sticky directory (/tmp, a shared PROFDIR) a name that is not already a
 * file of ours is taken as SAVE_NEW does, so that another user who made
 * a file there first cannot make the save fail.  With SAVE_THROUGH, a
 * FIFO or character device at PATH is written into.  0 with *SAVED_AS
 * (owned; NULL: not wanted) the name written, or -errno with *CAUSE, as
 * save_atomic_keep. */
int save_write(const char *path, const uint8_t *data, size_t len, unsigned flags, bool *kept,
               char **saved_as, char **cause);

#endif
