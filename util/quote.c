#include "config.h"

#include "util/quote.h"
#include "util/xmalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether C is a UTF-8 continuation byte in [LO, HI]. */
static bool quote_cont(unsigned char c, unsigned char lo, unsigned char hi)
{
    return c >= lo && c <= hi;
}

size_t quote_safe_len(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    unsigned char c = u[0];
    if (c >= 0x20 && c < 0x7f)
        return 1;
    if (c < 0xc2 || c > 0xf4)
        return 0; /* a control byte, DEL, a stray continuation, an overlong lead */
    if (c < 0xe0) /* U+0080..U+009F are the C1 controls: CSI is U+009B */
        return c > 0xc2 && quote_cont(u[1], 0x80, 0xbf)    ? 2
               : c == 0xc2 && quote_cont(u[1], 0xa0, 0xbf) ? 2
                                                           : 0;
    /* The second byte's range rules out overlong forms, surrogates and
     * code points past U+10FFFF, as RFC 3629's table does. */
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (!quote_cont(u[1], lo, hi) || !quote_cont(u[2], 0x80, 0xbf))
        return 0;
    if (c < 0xf0)
        return 3;
    return quote_cont(u[3], 0x80, 0xbf) ? 4 : 0;
}

char *quote_json(char *text)
{
    if (text == NULL)
        return NULL;
    size_t extra = 0;
    for (const char *p = text; *p != '\0';) {
        size_t n = (unsigned char)*p < 0x80 ? 1 : quote_safe_len(p);
        if (n > 0) {
            p += n;
        } else if ((unsigned char)p[0] == 0xc2 && (unsigned char)p[1] >= 0x80 &&
                   (unsigned char)p[1] <= 0x9f) {
            extra += 6 - 2; /* \u009b for C2 9B */
            p += 2;
        } else {
            extra += 3 - 1; /* U+FFFD for the byte */
            p++;
        }
    }
    if (extra == 0)
        return text;
    char *out = xmalloc(strlen(text) + extra + 1), *o = out;
    for (const char *p = text; *p != '\0';) {
        size_t n = (unsigned char)*p < 0x80 ? 1 : quote_safe_len(p);
        if (n > 0) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else if ((unsigned char)p[0] == 0xc2 && (unsigned char)p[1] >= 0x80 &&
                   (unsigned char)p[1] <= 0x9f) {
            o += sprintf(o, "\\u%04x", (unsigned char)p[1]);
            p += 2;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = '\0';
    free(text);
    return out;
}

bool quote_needed(const char *s)
{
    while (*s != '\0') {
        size_t n = quote_safe_len(s);
        if (n == 0)
            return true;
        s += n;
    }
    return false;
}

/* The escaped form of the byte C, into OUT (5 bytes); its length. */
static size_t quote_byte(unsigned char c, char *out)
{
    static const char letters[] = "abtnvfr"; /* \a (7) .. \r (13) */
    if (c >= 7 && c <= 13) {
        out[0] = '\\';
        out[1] = letters[c - 7];
        return 2;
    }
    out[0] = '\\';
    out[1] = (char)('0' + (c >> 6));
    out[2] = (char)('0' + ((c >> 3) & 7));
    out[3] = (char)('0' + (c & 7));
    return 4;
}

/* S escaped into *BUF (of *ALLOC bytes, grown as needed). */
static char *quote_into(const char *s, char **buf, size_t *alloc)
{
    size_t need = strlen(s) * 4 + 1, k = 0; /* at most 4 bytes a byte */
    *buf = xgrowarray(*buf, alloc, need, 1);
    while (*s != '\0') {
        size_t n = quote_safe_len(s);
        if (n == 0) {
            k += quote_byte((unsigned char)*s, *buf + k);
            s++;
        } else {
            memcpy(*buf + k, s, n);
            k += n;
            s += n;
        }
    }
    (*buf)[k] = '\0';
    return *buf;
}

const char *quote(const char *s)
{
    static struct {
        char *buf;
        size_t alloc;
    } slots[QUOTE_SLOTS];
    static unsigned next;
    if (s == NULL || !quote_needed(s))
        return s;
    unsigned i = next++ % QUOTE_SLOTS;
    return quote_into(s, &slots[i].buf, &slots[i].alloc);
}

char *quote_dup(const char *s)
{
    char *buf = NULL;
    size_t alloc = 0;
    return quote_into(s, &buf, &alloc);
}

void quote_fputs(const char *s, FILE *out)
{
    while (*s != '\0') {
        size_t n = quote_safe_len(s);
        if (n == 0) {
            char e[5];
            fwrite(e, 1, quote_byte((unsigned char)*s, e), out);
            s++;
        } else {
            fwrite(s, 1, n, out);
            s += n;
        }
    }
}
