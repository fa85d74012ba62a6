/*
 * The .PRF reader's bounded reads, which the container (prf.c) and the
 * chunk decoders (prf_parse.c) share.  Inline, as they were in one file: a
 * timeline's varints are read a byte at a time.
 */
#ifndef PROFIL_PRF_CURSOR_H
#define PROFIL_PRF_CURSOR_H

#include "util/xmalloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A bounded reader: every get checks what is left, and the first failure
 * sticks, so parsers check once at the end of a record. */
struct cursor {
    const uint8_t *p;
    size_t left;
    bool bad;
};

static inline bool cursor_take(struct cursor *c, void *out, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = true;
        if (out != NULL)
            memset(out, 0, n);
        return false;
    }
    if (out != NULL)
        memcpy(out, c->p, n);
    c->p += n;
    c->left -= n;
    return true;
}

static inline uint64_t cursor_u64(struct cursor *c)
{
    uint8_t x[8];
    cursor_take(c, x, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | x[i];
    return v;
}

static inline uint32_t cursor_u32(struct cursor *c)
{
    uint8_t x[4];
    cursor_take(c, x, 4);
    return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

static inline uint16_t cursor_u16(struct cursor *c)
{
    uint8_t x[2];
    cursor_take(c, x, 2);
    return (uint16_t)(x[0] | x[1] << 8);
}

static inline uint8_t cursor_u8(struct cursor *c)
{
    uint8_t x;
    cursor_take(c, &x, 1);
    return x;
}

static inline uint64_t cursor_varint(struct cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t x = cursor_u8(c);
        if (c->bad)
            return 0;
        v |= (uint64_t)(x & 0x7f) << shift;
        if (!(x & 0x80))
            return v;
    }
    c->bad = true; /* more than ten bytes: not a number we wrote */
    return 0;
}

/* A length-prefixed string; NULL (and c->bad) when it does not fit or holds a NUL. */
static inline char *cursor_str(struct cursor *c)
{
    uint32_t n = cursor_u32(c);
    if (c->bad || n > c->left || memchr(c->p, '\0', n) != NULL) {
        c->bad = true;
        return NULL;
    }
    char *s = xstrndup((const char *)c->p, n);
    c->p += n;
    c->left -= n;
    return s;
}

/* Whether COUNT records of at least SIZE bytes each can fit in what is left. */
static inline bool cursor_fits(struct cursor *c, uint64_t count, size_t size)
{
    if (c->bad || (size > 0 && count > c->left / size)) {
        c->bad = true;
        return false;
    }
    return true;
}

#endif
