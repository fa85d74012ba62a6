#include "config.h"

#include "util/xmalloc.h"
#include "views/outbuf.h"

#include <stdlib.h>
#include <string.h>

#define LINE_MAX_COLS 4096

struct outbuf *outbuf_new(size_t max_lines)
{
    struct outbuf *ob = xcalloc(1, sizeof *ob);
    ob->max_lines = max_lines > 1 ? max_lines : 2;
    ob->lines = xcalloc(ob->max_lines, sizeof *ob->lines);
    ob->lines[0] = xcalloc(1, 1);
    ob->count = 1;
    return ob;
}

void outbuf_free(struct outbuf *ob)
{
    if (ob == NULL)
        return;
    for (size_t i = 0; i < ob->max_lines; i++)
        free(ob->lines[i]);
    free(ob->lines);
    free(ob);
}

static char **outbuf_last(struct outbuf *ob)
{
    return &ob->lines[(ob->first + ob->count - 1) % ob->max_lines];
}

static void outbuf_newline(struct outbuf *ob)
{
    if (ob->count == ob->max_lines) {
        free(ob->lines[ob->first]);
        ob->lines[ob->first] = NULL;
        ob->first = (ob->first + 1) % ob->max_lines;
        ob->count--;
        ob->dropped++;
    }
    ob->count++;
    char **l = outbuf_last(ob);
    free(*l);
    *l = xcalloc(1, 1);
    ob->col = 0;
}

/* Put C at the cursor, overwriting what a \r left behind. */
static void outbuf_put(struct outbuf *ob, char c)
{
    if (ob->col >= LINE_MAX_COLS)
        return;
    char **l = outbuf_last(ob);
    size_t len = strlen(*l);
    if (ob->col < len) {
        (*l)[ob->col++] = c;
        return;
    }
    *l = xreallocarray(*l, ob->col + 2, 1);
    memset(*l + len, ' ', ob->col - len);
    (*l)[ob->col++] = c;
    (*l)[ob->col] = '\0';
}

void outbuf_feed(struct outbuf *ob, const char *data, size_t n)
{
    ob->total += n;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)data[i];
        /* Dropped whole, as ECMA-48 shapes them: ESC [ ... final (CSI);
         * ESC ] (OSC), ESC P (DCS), ESC X, ESC ^, ESC _ ... BEL or ST;
         * ESC, intermediates (0x20-0x2f), final: ESC ( 0 picks the line
         * drawing set, ESC ( B gives ASCII back, ESC # 8, ESC c. */
        if (ob->esc == 1) {
            ob->esc = c == '['                                                   ? 2
                      : c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_' ? 3
                      : c >= 0x20 && c <= 0x2f                                   ? 4
                                                                                 : 0;
            continue;
        }
        if (ob->esc == 4) {
            if (c >= 0x20 && c <= 0x2f)
                continue; /* more intermediates */
            ob->esc = 0;
            if (c >= 0x30 && c <= 0x7e)
                continue; /* the final byte */
            /* a control byte cuts the sequence short: it acts */
        }
        if (ob->esc == 2) {
            if (c >= 0x40 && c <= 0x7e)
                ob->esc = 0;
            continue;
        }
        if (ob->esc == 3) {
            if (c == 7 || c == '\\')
                ob->esc = 0;
            continue;
        }
        switch (c) {
        case 27: ob->esc = 1; break;
        case '\n': outbuf_newline(ob); break;
        case '\r': ob->col = 0; break;
        case '\b':
            if (ob->col > 0)
                ob->col--;
            break;
        case '\t':
            do
                outbuf_put(ob, ' ');
            while (ob->col % 8 != 0 && ob->col < LINE_MAX_COLS);
            break;
        default:
            if (c >= 32 && c != 127)
                outbuf_put(ob, (char)c); /* UTF-8 bytes pass through whole */
            break;
        }
    }
}

const char *outbuf_line(const struct outbuf *ob, size_t i)
{
    if (i >= ob->count)
        return "";
    const char *l = ob->lines[(ob->first + i) % ob->max_lines];
    return l ? l : "";
}
