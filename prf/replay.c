#include "config.h"

#include "prf/replay.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

#define REPLAY_T0 1 /* the replayed session's clock starts here */

struct replay *replay_new(struct session *file, struct session *copy)
{
    struct replay *r = xcalloc(1, sizeof *r);
    r->file = file;
    r->now = copy;
    r->nframes = file->nframes;
    /* The copy keeps the program, modules and symbols; nothing is counted yet. */
    session_reset(copy);
    session_timeline_reset(copy);
    copy->start_ns = REPLAY_T0;
    copy->exit_kind = EXIT_NONE;
    return r;
}

void replay_free(struct replay *r)
{
    if (r == NULL)
        return;
    session_free(r->now);
    session_free(r->file);
    free(r);
}

void replay_feed_frame(struct session *to, const struct session *from, size_t i, uint64_t t,
                       const uint32_t *module_map, const uint32_t *stack_map)
{
    const struct frame *f = &from->frames[i];
    uint64_t kernel = 0;
    for (uint32_t k = 0; k < f->nhits; k++) {
        if (f->hits[k].id >= from->nkeys)
            continue;
        const struct hit_key *key = &from->hit_keys[f->hits[k].id];
        if (key->module >= from->nmodules)
            continue;
        struct event ev = {.type = EVENT_HIT, .time_ns = t};
        ev.hit.module = module_map ? module_map[key->module] : key->module;
        ev.hit.offset = key->offset;
        ev.hit.count = f->hits[k].count;
        if (from->modules[key->module]->kind == MODULE_KERNEL)
            kernel += f->hits[k].count;
        session_ingest(to, &ev);
    }
    for (uint32_t k = 0; k < f->nstacks; k++) {
        if (f->stacks[k].id >= from->nstacks)
            continue;
        struct event ev = {.type = EVENT_STACK, .time_ns = t};
        ev.stack.id = stack_map ? stack_map[f->stacks[k].id] : f->stacks[k].id;
        ev.stack.count = f->stacks[k].count;
        session_ingest(to, &ev);
    }
    if (f->io > kernel) { /* I/O without a PC: time blocked in a system call */
        struct event ev = {.type = EVENT_SAMPLE, .time_ns = t};
        ev.sample.mode = SAMPLE_BLOCKED;
        for (uint64_t left = f->io - kernel; left > 0;) {
            ev.sample.count = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
            left -= ev.sample.count;
            session_ingest(to, &ev);
        }
    }
    if (f->lost > 0) {
        struct event ev = {.type = EVENT_LOST, .time_ns = t};
        ev.lost.count = f->lost;
        session_ingest(to, &ev);
    }
    if (f->preempted > 0) {
        struct event ev = {.type = EVENT_PREEMPTED, .time_ns = t};
        ev.lost.count = f->preempted;
        session_ingest(to, &ev);
    }
}

/* Feed frame I of the file into the replayed session. */
static void replay_apply(struct replay *r, size_t i)
{
    const struct session *file = r->file;
    struct session *now = r->now;
    const struct frame *f = &file->frames[i];
    uint64_t t = REPLAY_T0 + i * SESSION_FRAME_NS;
    if (f->cleared) {
        if (i > 0)
            session_frame_at(now, t - SESSION_FRAME_NS); /* the mark lands at frame i */
        session_clear(now);
    }
    if (file->classic) {
        /* A 1983 file has buckets and counters but no exact hits to feed. */
        memcpy(now->view.buckets, file->view.buckets,
               file->view.nbuckets * sizeof *now->view.buckets);
        now->view.c = file->view.c;
        struct frame *nf = session_frame_at(now, t);
        nf->program = f->program;
        nf->dos = f->dos;
        nf->io = f->io;
        nf->high = f->high;
        return;
    }
    replay_feed_frame(now, file, i, t, NULL, NULL);
}

void replay_seek(struct replay *r, size_t pos)
{
    if (pos > r->nframes)
        pos = r->nframes;
    if (pos < r->pos) {
        session_reset(r->now);
        session_timeline_reset(r->now);
        r->pos = 0;
    }
    for (; r->pos < pos; r->pos++)
        replay_apply(r, r->pos);
    if (r->pos == r->nframes) {
        /* The end: how the program ended, and how long it ran. */
        r->now->exit_kind = r->file->exit_kind;
        r->now->exit_code = r->file->exit_code;
        r->now->exit_signal = r->file->exit_signal;
    } else {
        r->now->exit_kind = EXIT_NONE;
    }
    r->now->end_ns = REPLAY_T0 + r->pos * SESSION_FRAME_NS;
}

double replay_time(const struct replay *r, size_t pos)
{
    return (double)pos * (double)SESSION_FRAME_NS / 1e9;
}
