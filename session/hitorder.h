/* The program's hits in offset order, so that a bucket is labelled from its
 * own hits (a binary search and a walk) rather than by probing every offset
 * of the bucket or passing over the whole hit table. */
#ifndef PROFIL_HITORDER_H
#define PROFIL_HITORDER_H

#include "session/model.h"

#include <stddef.h>
#include <stdint.h>

/* One hit of the program, by its stable id; OFFSET is hit_keys[id].offset. */
struct hitorder_entry {
    uint64_t offset;
    uint32_t id;
};

/* Embedded in its user (hitorder_init/hitorder_fini).  It keeps hit ids,
 * never hit pointers, and the table slot of each id only until the hit table
 * changes: a new PC (nhits) brings the new ids in and the slots up to date. */
struct hitorder {
    struct hitorder_entry *e; /* the program's hits, by offset */
    size_t n;
    size_t *slot_of; /* by hit id: its index in session.hits */
    size_t seen_nkeys;
    size_t seen_nhits;
    size_t seen_alloc;
    uint32_t module; /* the program area's module it was built for */
};

void hitorder_init(struct hitorder *o);
void hitorder_fini(struct hitorder *o);

/* Bring O up to date with S's hit table: nothing to do while no new PC came;
 * otherwise one pass over the table, the new ids sorted and merged in. */
void hitorder_update(struct hitorder *o, const struct session *s);

/* Bucket I's label, as session_bucket_label documents it, from the bucket's own
 * hits: a binary search, then one symbol lookup per hit in the bucket.
 * Updates O first when S has new hits.  Borrowed from the program's symbols. */
const char *hitorder_label(struct hitorder *o, const struct session *s, size_t i, size_t *others);

#endif
