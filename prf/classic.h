/*
 * The 1983 MS-DOS PROFIL file: nine little-endian 16-bit words (clock_grain,
 * bucket_num, bucket_siz, prog_low_pa, prog_high_pa, dos_pa, hit_io, hit_dos,
 * hit_high), then bucket_num words of bucket counts.  No magic: a file is
 * classic when its size is exactly 18 + 2 * bucket_num and its words are sane.
 */
#ifndef PROFIL_CLASSIC_H
#define PROFIL_CLASSIC_H

#include "session/session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLASSIC_HEADER_LEN 18
/* PROFIL asked for a sample time >= 60 us, as profil does. */
#define CLASSIC_MIN_GRAIN 60

/* Whether DATA looks like a classic PROFIL file: its size, and header words
 * that make sense together. */
bool classic_detect(const uint8_t *data, size_t len);

/* A session from a classic file: buckets and counters, no exact hits and no
 * symbols.  NAME becomes the program.  NULL with *cause when it is not one. */
struct session *classic_read(const uint8_t *data, size_t len, const char *name, char **cause);

/* The classic image of S; values that do not fit saturate at 65535 and
 * *saturated names the first field that did (a static string), or NULL. */
void classic_write_buffer(const struct session *s, uint8_t **data, size_t *len,
                          const char **saturated);

#endif
