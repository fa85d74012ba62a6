#include "config.h"

#include "prf/classic.h"
#include "prf/cursor.h"
#include "prf/meta.h"
#include "prf/prf.h"
#include "prf/prf_chunk.h"
#include "prf/prf_parse.h"
#include "session/limits.h"
#include "session/lines.h"
#include "session/session.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define PRF_MAX_FILE (1ull << 34)

/* A replay to the end must give the saved state: check the timeline adds up. */
static int prf_check_timeline(const struct session *s, char **cause)
{
    struct counters sum = {0};
    uint64_t *hits = xcalloc(s->nkeys + 1, sizeof *hits);
    /* A 1.0 clear threw away what came before it; a 1.1 clear is only a mark. */
    for (size_t i = s->legacy_clear ? s->clear_frame : 0; i < s->nframes; i++) {
        const struct frame *f = &s->frames[i];
        sum.program += f->program;
        sum.dos += f->dos;
        sum.io += f->io;
        sum.high += f->high;
        sum.lost += f->lost;
        sum.preempted += f->preempted;
        for (uint32_t k = 0; k < f->nhits; k++)
            hits[f->hits[k].id] += f->hits[k].count;
    }
    bool same =
        sum.program == s->view.c.program && sum.dos == s->view.c.dos && sum.io == s->view.c.io &&
        sum.high == s->view.c.high && sum.lost == s->view.c.lost &&
        sum.preempted == s->view.c.preempted &&
        s->view.c.total == s->view.c.program + s->view.c.dos + s->view.c.io + s->view.c.high;
    for (size_t i = 0; i < s->hits_alloc && same; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module != UINT32_MAX && h->id < s->nkeys && hits[h->id] != h->count)
            same = false;
    }
    free(hits);
    if (!same) {
        *cause = xstrdup("the timeline does not add up to the saved totals");
        return -1;
    }
    return 0;
}

/* (1.2) The end marker's CRC-32 of the AT bytes of DATA before it: a
 * damaged chunk header or a chunk type changed to an unknown one (which a
 * reader skips) is caught here.  1.0 and 1.1 files have none. */
static int prf_check_end(const uint8_t *data, size_t at, struct cursor *c, uint16_t minor,
                         char **cause)
{
    if (c->left == 0 && minor < 2)
        return 0;
    uint32_t want = cursor_u32(c);
    if (c->bad) {
        *cause = xstrdup("the end marker lacks the file's checksum");
        return -1;
    }
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* let the fuzzer past the checksum */
    if ((uint32_t)crc32_z(0, data, at) != want) {
        *cause = xstrdup("checksum mismatch: the file is damaged");
        return -1;
    }
#else
    (void)data;
    (void)at;
    (void)want;
#endif
    return 0;
}

/* Whether the stored bytes of a chunk are what its header says: 0, or -1
 * with *cause. */
static int prf_chunk_check(const uint8_t *stored, uint64_t stored_len, uint32_t flags,
                           uint32_t raw_len, uint32_t crc, char **cause)
{
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* let the fuzzer past the checksum */
    if ((uint32_t)crc32_z(0, stored, (size_t)stored_len) != crc) {
        *cause = xstrdup("checksum mismatch");
        return -1;
    }
#else
    (void)stored;
    (void)crc;
#endif
    if (!(flags & CHUNK_ZLIB)) {
        if (raw_len != stored_len && !(raw_len == 0 && stored_len > UINT32_MAX)) {
            *cause = xstrdup("its two lengths disagree");
            return -1;
        }
        return 0;
    }
    /* zlib cannot expand more than about 1032:1, so a larger claim is a lie. */
    if (raw_len == 0 || (uint64_t)raw_len > stored_len * 1032 + 64) {
        *cause = xstrdup("compressed chunk claims an impossible size");
        return -1;
    }
    return 0;
}

/* The chunk types a reader knows, each of which a file holds at most once. */
enum prf_kind {
    K_HEAD,
    K_BUCK,
    K_MODS,
    K_HITS,
    K_META,
    K_TIME,
    K_LINE,
    K_SRCE,
    K_STCK,
    K_THRD,
    K_END,
    K_OTHER
};

/* How messages name each kind, as the parsers' own messages do. */
static const char *const prf_kind_name[] = {"header",   "bucket",   "module", "hit",
                                            "metadata", "timeline", "line",   "source",
                                            "stacks",   "thread",   "end"};

static enum prf_kind prf_kind_of(const char type[4])
{
    static const char names[][5] = {"HEAD", "BUCK", "MODS", "HITS", "META", "TIME",
                                    "LINE", "SRCE", "STCK", "THRD", "END "};
    for (int k = K_HEAD; k < K_OTHER; k++) {
        if (memcmp(type, names[k], 4) == 0)
            return (enum prf_kind)k;
    }
    return K_OTHER;
}

/* Whether a chunk of KIND may inflate to RAW bytes, out of *LEFT, what the
 * file (LEN bytes) may still inflate to: 0, or -1 with *cause.  A chunk
 * made to inflate a thousandfold would otherwise cost gigabytes (a million
 * empty modules from 650 KB): BUCK and TIME are bounded by what the header
 * says the session is, META by a size of its own, the rest by the file's
 * size. */
static int prf_chunk_budget(const struct session *s, enum prf_kind kind, uint64_t raw, size_t len,
                            uint64_t *left, char **cause)
{
    uint64_t free_bytes = 0;
    switch (kind) {
    case K_BUCK: /* the header's buckets, and room for fields a newer format adds */
        if (raw > 8 + 8 * (uint64_t)s->view.nbuckets + 65536) {
            *cause = xasprintf("bucket chunk: %llu bytes for %zu buckets", (unsigned long long)raw,
                               s->view.nbuckets);
            return -1;
        }
        return 0;
    case K_TIME: /* an idle frame takes 8 bytes, and compresses a thousandfold */
        free_bytes = 64 + LIMIT_FRAME_BYTES * prf_parse_frames_for(s);
        break;
    case K_META:
        if (raw > LIMIT_META_BYTES) {
            *cause = xasprintf("metadata chunk: %llu bytes of JSON; the limit is %u",
                               (unsigned long long)raw, LIMIT_META_BYTES);
            return -1;
        }
        break;
    case K_SRCE:
        if (raw > LIMIT_SOURCE_BYTES) {
            *cause = xasprintf("source chunk: %llu bytes; the limit is %u", (unsigned long long)raw,
                               LIMIT_SOURCE_BYTES);
            return -1;
        }
        break;
    case K_END:
    case K_OTHER: /* never inflated */ return 0;
    default: break;
    }
    if (raw <= free_bytes)
        return 0;
    if (raw - free_bytes > *left) {
        uint64_t all = (uint64_t)len * LIMIT_INFLATE_RATIO;
        if (all < LIMIT_INFLATE_FREE)
            all = LIMIT_INFLATE_FREE;
        if (kind == K_TIME && prf_parse_frames_for(s) <= LIMIT_FRAMES)
            *cause = xasprintf("timeline chunk: inflates to %llu bytes for a %.9g s session; the "
                               "limit is %llu",
                               (unsigned long long)raw, s->duration_s,
                               (unsigned long long)(free_bytes + *left));
        else
            *cause = xasprintf("%s chunk: inflates to %llu bytes; a file of %zu bytes may inflate "
                               "to %llu in all",
                               prf_kind_name[kind], (unsigned long long)raw, len,
                               (unsigned long long)all);
        return -1;
    }
    raw -= free_bytes;
    *left -= raw;
    return 0;
}

/* The payload of a checked chunk, inflated when it is compressed; *owned is
 * set when it was allocated. */
static int prf_chunk_payload(const uint8_t *stored, uint64_t stored_len, uint32_t flags,
                             uint32_t raw_len, const uint8_t **out, size_t *out_len,
                             uint8_t **owned, char **cause)
{
    *owned = NULL;
    if (!(flags & CHUNK_ZLIB)) {
        *out = stored;
        *out_len = (size_t)stored_len;
        return 0;
    }
    uLongf n = raw_len;
    uint8_t *buf = xmalloc(raw_len);
    if (uncompress(buf, &n, stored, (uLong)stored_len) != Z_OK || n != raw_len) {
        free(buf);
        *cause = xstrdup("compressed chunk is damaged");
        return -1;
    }
    *out = buf;
    *out_len = n;
    *owned = buf;
    return 0;
}

struct session *prf_read_buffer(const uint8_t *data, size_t len, char **cause)
{
    struct cursor file = {data, len, false};
    uint8_t magic[PRF_MAGIC_LEN];
    if (!cursor_take(&file, magic, PRF_MAGIC_LEN) || memcmp(magic, PRF_MAGIC, PRF_MAGIC_LEN) != 0) {
        *cause = xstrdup("not a profil session file");
        return NULL;
    }
    uint16_t major = cursor_u16(&file), minor = cursor_u16(&file);
    cursor_u32(&file);
    if (file.bad) {
        *cause = xstrdup("truncated file header");
        return NULL;
    }
    if (major != PRF_VERSION_MAJOR) {
        *cause = xasprintf("format version %u.%u; this profil reads %u.x", major, minor,
                           PRF_VERSION_MAJOR);
        return NULL;
    }
    struct session *s = session_new_empty();
    s->lines = xcalloc(1, sizeof *s->lines);
    s->lines->from_file = true; /* its lines are what the file says: never the disk's */
    bool have_head = false, have_end = false, have_mods = false, have_buck = false;
    unsigned seen = 0;                                   /* the kinds read so far, a bit each */
    uint64_t left = (uint64_t)len * LIMIT_INFLATE_RATIO; /* what the file may still inflate to */
    if (left < LIMIT_INFLATE_FREE)
        left = LIMIT_INFLATE_FREE;
    static char label[32]; /* what memory is for, should it run out */
    const char *was_for = xmalloc_for(label);
    char *why = NULL;
    while (!have_end) {
        char type[5] = {0};
        if (!cursor_take(&file, type, 4)) {
            why = xstrdup("truncated: the end marker is missing");
            goto fail;
        }
        char shown[5]; /* the type as messages may print it: no control bytes */
        for (int i = 0; i < 5; i++)
            shown[i] = i < 4 ? (type[i] >= 32 && type[i] < 127 ? type[i] : '?') : '\0';
        snprintf(label, sizeof label, "the %s chunk", shown);
        size_t chunk_at = len - file.left; /* where this chunk's header starts */
        uint32_t flags = cursor_u32(&file);
        uint64_t stored_len = cursor_u64(&file);
        uint32_t raw_len = cursor_u32(&file), crc = cursor_u32(&file);
        if (file.bad || stored_len > file.left) {
            why = xasprintf("truncated %s chunk", shown);
            goto fail;
        }
        if (prf_chunk_check(file.p, stored_len, flags, raw_len, crc, &why) < 0) {
            char *w = xasprintf("%s chunk: %s", shown, why);
            free(why);
            why = w;
            goto fail;
        }
        enum prf_kind kind = prf_kind_of(type);
        if (!have_head && kind != K_HEAD && kind != K_END) {
            why = xstrdup("the header chunk does not come first");
            goto fail;
        }
        if (kind == K_OTHER) { /* skipped, never inflated: newer files open in older builds */
            cursor_take(&file, NULL, (size_t)stored_len);
            continue;
        }
        if (kind != K_END && (seen & 1u << kind)) {
            why = xasprintf("a second %s chunk", shown);
            goto fail;
        }
        seen |= 1u << kind;
        if (prf_chunk_budget(s, kind, flags & CHUNK_ZLIB ? raw_len : stored_len, len, &left, &why) <
            0)
            goto fail;
        const uint8_t *payload;
        size_t payload_len;
        uint8_t *owned;
        if (prf_chunk_payload(file.p, stored_len, flags, raw_len, &payload, &payload_len, &owned,
                              &why) < 0) {
            char *w = xasprintf("%s chunk: %s", shown, why);
            free(why);
            why = w;
            goto fail;
        }
        cursor_take(&file, NULL, (size_t)stored_len);
        struct cursor c = {payload, payload_len, false};
        int r = 0;
        switch (kind) {
        case K_HEAD:
            r = prf_parse_head(s, &c, &why);
            have_head = true;
            break;
        case K_BUCK:
            r = prf_parse_buckets(s, &c, &why);
            have_buck = true;
            break;
        case K_MODS:
            r = prf_parse_modules(s, &c, &why);
            have_mods = true;
            break;
        case K_HITS: r = have_mods ? prf_parse_hits(s, &c, &why) : -1; break;
        case K_META: {
            char *json = xstrndup((const char *)payload, payload_len);
            r = meta_from_json(s, json, &why);
            free(json);
            break;
        }
        case K_TIME: r = have_mods ? prf_parse_timeline(s, &c, &why) : -1; break;
        case K_LINE: r = have_mods && !s->has_stacks ? prf_parse_lines(s, &c, &why) : -1; break;
        case K_SRCE: r = prf_parse_sources(s, &c, &why); break;
        case K_STCK: r = have_mods ? prf_parse_stacks(s, &c, &why) : -1; break;
        case K_THRD: /* after HITS: it names hits */
            r = have_mods && (seen & 1u << K_HITS) ? prf_parse_threads(s, &c, &why) : -1;
            break;
        case K_END:
            have_end = true;
            if (flags != 0)
                why = xstrdup("the end marker is damaged");
            r = flags != 0 ? -1 : prf_check_end(data, chunk_at - 4, &c, minor, &why);
            break;
        case K_OTHER: break;
        }
        free(owned);
        if (r < 0) {
            if (why == NULL)
                why = xasprintf("misplaced %s chunk", shown);
            goto fail;
        }
    }
    if (!have_head || !have_buck || !have_mods) {
        why = xstrdup("a required chunk is missing");
        goto fail;
    }
    if (s->nmodules == 0 || s->modules[0]->kind != MODULE_PROGRAM) {
        why = xstrdup("the program module is missing");
        goto fail;
    }
    if (s->nframes > 0 && prf_check_timeline(s, &why) < 0)
        goto fail;
    session_run_from_view(s); /* nothing filtered yet: what is shown is the run */
    xmalloc_for(was_for);
    return s;
fail:
    xmalloc_for(was_for);
    *cause = why;
    session_free(s);
    return NULL;
}

struct session *prf_read_file(const char *path, char **cause)
{
    /* A FIFO (or a device) would block the open, or do worse: it is looked
     * at first, and opened without blocking in case it was swapped in. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        *cause = xasprintf("%s: not a regular file", path);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        *cause = xasprintf("%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > PRF_MAX_FILE) {
        *cause = xasprintf("%s: %s", path,
                           S_ISREG(st.st_mode) ? "file too large" : "not a regular file");
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    size_t len = (size_t)st.st_size, done = 0;
    uint8_t *data = xmalloc(len);
    while (done < len) {
        ssize_t r = read(fd, data + done, len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    close(fd);
    char *why = NULL;
    struct session *s;
    if ((done < PRF_MAGIC_LEN || memcmp(data, PRF_MAGIC, PRF_MAGIC_LEN) != 0) &&
        classic_detect(data, done)) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        s = classic_read(data, done, base, &why); /* a PROFIL file from 1983 */
    } else {
        s = prf_read_buffer(data, done, &why);
    }
    free(data);
    if (s == NULL) {
        *cause = xasprintf("%s: %s", path, why);
        free(why);
    }
    return s;
}
