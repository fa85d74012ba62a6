#include "config.h"

#include "prf/classic.h"
#include "session/lines.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

static uint16_t classic_word(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

bool classic_detect(const uint8_t *data, size_t len)
{
    if (len < CLASSIC_HEADER_LEN + 2)
        return false;
    uint16_t grain = classic_word(data), num = classic_word(data + 2), siz = classic_word(data + 4),
             low = classic_word(data + 6), high = classic_word(data + 8),
             dos = classic_word(data + 10);
    if (num == 0 || siz == 0 || len != CLASSIC_HEADER_LEN + 2 * (size_t)num)
        return false;
    /* Without a magic, the words must make sense as PROFIL wrote them (and
     * as --export classic does): a sample time PROFIL would take (>= 60 us),
     * the I/O system below DOS below the program, and as many buckets as the
     * program's paragraphs need, give or take the one a program that does not
     * start on a paragraph adds.  A word that saturated at 65535 says nothing
     * about the buckets.  Text rarely passes all of it. */
    if (grain < CLASSIC_MIN_GRAIN || dos > low || low > high)
        return false;
    if (num == UINT16_MAX || high == UINT16_MAX)
        return true;
    uint32_t need = ((uint32_t)high - low + siz - 1) / siz;
    if (need == 0)
        need = 1;
    return need == num || need == (uint32_t)num + 1;
}

struct session *classic_read(const uint8_t *data, size_t len, const char *name, char **cause)
{
    if (!classic_detect(data, len)) {
        *cause = xstrdup("not a classic PROFIL file");
        return NULL;
    }
    uint16_t w[9];
    for (int i = 0; i < 9; i++)
        w[i] = classic_word(data + 2 * i);
    struct session *s = session_new_empty();
    s->lines = xcalloc(1, sizeof *s->lines);
    s->lines->from_file = true; /* 1983 had no line tables */
    s->classic = true;
    s->interval_us = w[0];
    s->view.nbuckets = w[1];
    s->view.bucket_paragraphs = s->asked_paragraphs = w[2];
    /* The area the buckets cover; PROFIL's own upper bound is kept apart. */
    s->view.prog_low = (uint64_t)w[3] * 16;
    s->view.prog_high =
        s->view.prog_low + s->view.nbuckets * 16 * (uint64_t)s->view.bucket_paragraphs;
    s->prog_low = s->view.prog_low;
    s->prog_high = s->view.prog_high;
    s->classic_high_pa = w[4];
    s->classic_dos_pa = w[5];
    s->view.c.io = w[6];
    s->view.c.dos = w[7];
    s->view.c.high = w[8];
    s->view.buckets = xcalloc(s->view.nbuckets, sizeof *s->view.buckets);
    for (size_t i = 0; i < s->view.nbuckets; i++) {
        s->view.buckets[i] = classic_word(data + CLASSIC_HEADER_LEN + 2 * i);
        s->view.c.program += s->view.buckets[i];
    }
    s->view.c.total = s->view.c.program + s->view.c.dos + s->view.c.io + s->view.c.high;
    s->program = xstrdup(name);
    s->exit_kind = EXIT_NONE; /* the file does not say, nor which clock or how long */
    session_module(s, name, MODULE_PROGRAM);
    s->modules[0]->loaded = true; /* no image: nothing to read from disk */
    /* One frame holds it all, so a replay shows the whole session at once. */
    struct frame *f = session_frame_at(s, 0);
    f->program = s->view.c.program;
    f->dos = s->view.c.dos;
    f->io = s->view.c.io;
    f->high = s->view.c.high;
    f->compact = true;
    session_run_from_view(s);
    return s;
}

/* Saturate V into a word, remembering the first field that did not fit. */
static uint16_t classic_sat(uint64_t v, const char *field, const char **saturated)
{
    if (v <= UINT16_MAX)
        return (uint16_t)v;
    if (*saturated == NULL)
        *saturated = field;
    return UINT16_MAX;
}

void classic_write_buffer(const struct session *s, uint8_t **data, size_t *len,
                          const char **saturated)
{
    *saturated = NULL;
    uint16_t num = classic_sat(s->view.nbuckets, "bucket_num", saturated);
    uint16_t w[9] = {
        classic_sat(s->interval_us, "clock_grain", saturated),
        num,
        classic_sat(s->view.bucket_paragraphs, "bucket_siz", saturated),
        classic_sat(s->view.prog_low / 16, "prog_low_pa", saturated),
        /* A 1983 file's own word, kept as it was: nothing saturates there. */
        s->classic ? s->classic_high_pa
                   : classic_sat((s->view.prog_high + 15) / 16, "prog_high_pa", saturated),
        s->classic ? s->classic_dos_pa : 0,
        classic_sat(s->view.c.io, "hit_io", saturated),
        classic_sat(s->view.c.dos, "hit_dos", saturated),
        classic_sat(s->view.c.high, "hit_high", saturated),
    };
    *len = CLASSIC_HEADER_LEN + 2 * (size_t)num;
    uint8_t *out = xmalloc(*len);
    for (int i = 0; i < 9; i++) {
        out[2 * i] = (uint8_t)w[i];
        out[2 * i + 1] = (uint8_t)(w[i] >> 8);
    }
    for (size_t i = 0; i < num; i++) {
        uint16_t b = classic_sat(s->view.buckets[i], "buckets", saturated);
        out[CLASSIC_HEADER_LEN + 2 * i] = (uint8_t)b;
        out[CLASSIC_HEADER_LEN + 2 * i + 1] = (uint8_t)(b >> 8);
    }
    *data = out;
}
