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
 * rename), as save_write without flags.  0 or -errno with *cause an owned one-line explanation.
 */
int prf_write_file(struct session *s, const char *path, char **cause);

/* prf_write_file with save_atomic_keep's KEEP_OLD and *KEPT. */
int prf_write_file_keep(struct session *s, const char *path, bool keep_old, bool *kept,
                        char **cause);

/* Parse a .PRF image.  Returns a session, or NULL with *cause set to an owned
 * explanation of what is wrong (without the file name). */
struct session *prf_read_buffer(const uint8_t *data, size_t len, char **cause);

/* Read PATH; NULL with *cause "PATH: what is wrong". */
struct session *prf_read_file(const char *path, char **cause);

#endif
