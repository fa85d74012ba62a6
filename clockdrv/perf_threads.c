/*
 * The perf driver's thread table: each thread of the program it has seen,
 * by tid (open addressing, with tombstones), and the memory a thread owns.
 * perf.c says how the driver works.
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "util/xmalloc.h"

#include <pthread.h>
#include <stdlib.h>

void clockdrv_perf_snaps_free(struct perf_thread *t)
{
    if (t->snaps != NULL) {
        for (size_t i = 0; i < PERF_SNAPS; i++)
            free(t->snaps[i].data);
    }
    free(t->snaps);
    t->snaps = NULL;
    t->nsnaps = 0;
}

/* clockdrv_perf_thread, with the scan lock held when CREATE. */
static struct perf_thread *perf_thread_at(struct clockdrv_perf *d, uint32_t tid, bool create)
{
    size_t mask = d->threads_alloc - 1;
    for (size_t i = (tid * 2654435761u) & mask;; i = (i + 1) & mask) {
        struct perf_thread *t = &d->threads[i];
        if (t->used && t->tid == tid)
            return t;
        if (!t->used && t->tid == 0) {
            if (!create)
                return NULL;
            if (2 * (d->threads_live + 1) > d->threads_alloc) {
                struct perf_thread *old = d->threads;
                size_t n = d->threads_alloc;
                d->threads_alloc *= 2;
                d->threads = xcalloc(d->threads_alloc, sizeof *d->threads);
                d->threads_live = 0;
                for (size_t k = 0; k < n; k++) {
                    if (old[k].used)
                        *perf_thread_at(d, old[k].tid, true) = old[k];
                }
                free(old);
                return perf_thread_at(d, tid, true);
            }
            *t = (struct perf_thread){.tid = tid, .used = true};
            d->threads_live++;
            return t;
        }
    }
}

/* The state of TID, made on first sight when CREATE (the table may grow:
 * under the scan lock).  Only the drain's thread makes or forgets threads,
 * so a state found stays where it is until it does. */
struct perf_thread *clockdrv_perf_thread(struct clockdrv_perf *d, uint32_t tid, bool create)
{
    if (!create)
        return perf_thread_at(d, tid, false);
    pthread_mutex_lock(&d->scan_lock);
    struct perf_thread *t = perf_thread_at(d, tid, true);
    pthread_mutex_unlock(&d->scan_lock);
    return t;
}

/* Forget a thread that has exited; a tombstone keeps the probe chain intact. */
void clockdrv_perf_thread_gone(struct clockdrv_perf *d, uint32_t tid)
{
    struct perf_thread *t = clockdrv_perf_thread(d, tid, false);
    if (t == NULL)
        return;
    pthread_mutex_lock(&d->scan_lock);
    t->used = false;
    clockdrv_perf_snaps_free(t);
    pthread_mutex_unlock(&d->scan_lock);
    t->blocked = false;
    t->bvalid = false;
    free(t->bdata);
    t->bdata = NULL;
    free(t->hush);
    t->hush = NULL;
    t->nhush = 0;
    t->hushed = false;
    d->base.threads = d->base.threads > 0 ? d->base.threads - 1 : 0;
}
