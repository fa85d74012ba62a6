/*
 * Replaying a saved session: the file's timeline is fed, frame by frame,
 * through session_ingest into a fresh session, exactly as live samples were.
 * A replay to the last frame gives the saved state.
 */
#ifndef PROFIL_REPLAY_H
#define PROFIL_REPLAY_H

#include "session/session.h"

#include <stddef.h>
#include <stdint.h>

struct replay {
    struct session *file; /* owned: the session as read, with its timeline */
    struct session *now;  /* owned: the state after the first pos frames */
    size_t pos;           /* frames applied to now */
    size_t nframes;       /* frames in the file (at least 1) */
};

/* Start a replay of FILE at frame 0.  COPY is a second reading of the same
 * file: it becomes the replayed session, emptied.  Both are taken over. */
struct replay *replay_new(struct session *file, struct session *copy);
void replay_free(struct replay *r);

/* Move to POS frames applied (0..nframes); going back rebuilds from 0. */
void replay_seek(struct replay *r, size_t pos);

/* Feed frame I of FROM into TO at time T as the events it was made of:
 * its hits, its stacks, its blocked time, its lost and preempted ticks.
 * FROM's module K is TO's MODULE_MAP[K], its stack K TO's STACK_MAP[K]
 * (NULL: the same ids, TO being a reading of the same file).  Clears are
 * the caller's; a 1983 file has no frames to feed. */
void replay_feed_frame(struct session *to, const struct session *from, size_t i, uint64_t t,
                       const uint32_t *module_map, const uint32_t *stack_map);

/* Seconds into the session at POS frames. */
double replay_time(const struct replay *r, size_t pos);

#endif
