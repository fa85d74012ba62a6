/*
 * The .PRF session file: a little-endian chunked container (see
 * docs/prf-format.md).  The reader never trusts a length, count, offset or
 * string from the file.
 */
#ifndef PROFIL_PRF_H
#define PROFIL_PRF_H

#include "session/session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PRF_MAGIC         "\x89PRF\r\n\x1a\n"
#define PRF_MAGIC_LEN     8
#define PRF_VERSION_MAJOR 1
#define PRF_VERSION_MINOR 5

/* Serialize S into a freshly allocated buffer; the caller owns *DATA. */
void prf_write_buffer(struct session *s, uint8_t **data, size_t *len);

/* Write S to PATH atomically (temp file in the same directory, fsync,
 * rename), as prf_write_save without flags.  0 or -errno with *cause an owned one-line explanation.
 */
int prf_write_file(struct session *s, const char *path, char **cause);

/* Write DATA to PATH atomically. */
int prf_write_atomic(const char *path, const uint8_t *data, size_t len, char **cause);

/* The same, and when KEEP_OLD and PATH is already a file, keep that file as
 * PATH.old (replacing an older one, as perf keeps perf.data.old) before the
 * new one takes its place; *KEPT says whether it did.  A failure at any step
 * loses neither file: the previous one stays at PATH or at PATH.old. */
int prf_write_atomic_keep(const char *path, const uint8_t *data, size_t len, bool keep_old,
                          bool *kept, char **cause);

/* How prf_write_save places the file. */
enum {
    PRF_SAVE_KEEP_OLD = 1, /* keep a file already at PATH as PATH.old */
    PRF_SAVE_NEW = 2,      /* replace nothing: PATH, else PATH with a random part */
    PRF_SAVE_THROUGH = 4,  /* a FIFO, character device or /dev name is written into */
};

/* Whether a file written as FLAGS say may take PATH's place: 0, or -errno
 * with *CAUSE (owned, one line).  A FIFO, device or socket at PATH (or at
 * PATH.old, with PRF_SAVE_KEEP_OLD), and any name in /dev (/dev/stdout is a
 * link), is never renamed over: `-o /dev/null` run as root must not replace
 * /dev/null.  With PRF_SAVE_THROUGH (an export to /dev/stdout or a FIFO) a
 * FIFO, a character device or a name in /dev is what the user meant, and is
 * written into instead; a block device or socket elsewhere is refused
 * still. */
int prf_write_check(const char *path, unsigned flags, char **cause);

/* Write DATA to PATH atomically, as FLAGS say (never over what
 * prf_write_check refuses), with the mode of the file it replaces, else
 * 0666 less the umask, and the directory flushed after the rename.  In a
 * sticky directory (/tmp, a shared PROFDIR) a name that is not already a
 * file of ours is taken as PRF_SAVE_NEW does, so that another user who made
 * a file there first cannot make the save fail.  With PRF_SAVE_THROUGH, a
 * FIFO or character device at PATH is written into.  0 with *SAVED_AS
 * (owned; NULL: not wanted) the name written, or -errno with *CAUSE, as
 * prf_write_atomic_keep. */
int prf_write_save(const char *path, const uint8_t *data, size_t len, unsigned flags, bool *kept,
                   char **saved_as, char **cause);

/* prf_write_file with prf_write_atomic_keep's KEEP_OLD and *KEPT. */
int prf_write_file_keep(struct session *s, const char *path, bool keep_old, bool *kept,
                        char **cause);

/* Parse a .PRF image.  Returns a session, or NULL with *cause set to an owned
 * explanation of what is wrong (without the file name). */
struct session *prf_read_buffer(const uint8_t *data, size_t len, char **cause);

/* Read PATH; NULL with *cause "PATH: what is wrong". */
struct session *prf_read_file(const char *path, char **cause);

#endif
