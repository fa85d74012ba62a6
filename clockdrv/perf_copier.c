/*
 * The perf driver's copier thread (perf.c says why there is one): whole
 * records moved from the rings to chunks of profil's memory, every ring in
 * one pass, and the drain's side of it: the chunks taken, parsed CPU by
 * CPU in the order they came, and given back to be filled again.
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "util/xmalloc.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The most the copier holds for the drain, all CPUs, in bytes of records
 * (7 s of samples at 250 us with 8 KiB stacks): beyond it the rings fill,
 * and the kernel counts what it cannot write as lost.  Counted in whole
 * chunks, passes every few ms reached it 3 times as fast as the records
 * came, and an ordinary user's run under the sanitizers beside two busy
 * loops lost 22 % of its ticks with the front end 2.5 s behind. */
#define PERF_COPY_MAX (256u << 20)

/* How often the copier looks at the rings, at the least (ms). */
#define PERF_COPY_MS 10

/* Push chunk C on the list at *HEAD (one pusher, one taker of all at once,
 * or one popper: no ABA). */
static void perf_chunk_push(struct perf_chunk **head, struct perf_chunk *c)
{
    c->next = __atomic_load_n(head, __ATOMIC_RELAXED);
    while (
        !__atomic_compare_exchange_n(head, &c->next, c, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

/* A chunk to fill: a spare one, else a new one. */
static struct perf_chunk *perf_chunk_get(struct clockdrv_perf *d)
{
    struct perf_chunk *c = __atomic_load_n(&d->spare, __ATOMIC_ACQUIRE);
    while (c != NULL && !__atomic_compare_exchange_n(&d->spare, &c, c->next, true, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_ACQUIRE))
        ;
    if (c == NULL) /* beyond the pool: memory that faults as it is filled */
        c = xmalloc(sizeof *c);
    c->len = 0;
    c->next = NULL;
    return c;
}

/* Move the records in CPU I's ring up to HEAD to chunks, pushed on *CHAIN
 * (newest first; *LAST its oldest), and free their space, unless that would
 * take the chunks over PERF_COPY_MAX: then the rest stays.  The kernel
 * publishes data_head past whole records only.  False when records stayed
 * for want of room. */
static bool perf_copy_ring(struct clockdrv_perf *d, int i, uint64_t head, struct perf_chunk **chain,
                           struct perf_chunk **last)
{
    struct perf_cpu *pc = &d->cpus[i];
    if (pc->meta == NULL)
        return true;
    uint64_t tail = pc->meta->data_tail;
    size_t mask = pc->size - 1;
    struct perf_chunk *c = NULL;
    bool room = true;
    size_t held = __atomic_load_n(&d->copied, __ATOMIC_RELAXED), moved = 0;
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        size_t off = (size_t)(tail & mask);
        for (size_t k = 0; k < sizeof h; k++)
            ((uint8_t *)&h)[k] = pc->data[(off + k) & mask];
        if (h.size < sizeof h || tail + h.size > head)
            break;
        if (held + moved + h.size > PERF_COPY_MAX) {
            room = false;
            break;
        }
        if (c == NULL || c->len + h.size > PERF_CHUNK) {
            c = perf_chunk_get(d);
            c->cpu = i;
            c->next = *chain;
            if (*chain == NULL)
                *last = c;
            *chain = c;
        }
        size_t first = h.size <= pc->size - off ? h.size : pc->size - off;
        memcpy(c->data + c->len, pc->data + off, first);
        memcpy(c->data + c->len + first, pc->data, h.size - first);
        c->len += h.size;
        moved += h.size;
        tail += h.size;
    }
    __atomic_add_fetch(&d->copied, moved, __ATOMIC_RELAXED);
    __atomic_store_n(&pc->meta->data_tail, tail, __ATOMIC_RELEASE);
    return room;
}

/* One pass: every ring's head read first, each ring moved up to it, the
 * chunks pushed on the passes list in one go.  False if a ring had records
 * left for want of room. */
static bool perf_copy_pass(struct clockdrv_perf *d)
{
    uint64_t at = clockdrv_now_ns();
    for (int i = 0; i < d->ncpus; i++)
        d->heads[i] = d->cpus[i].meta != NULL
                          ? __atomic_load_n(&d->cpus[i].meta->data_head, __ATOMIC_ACQUIRE)
                          : 0;
    struct perf_chunk *chain = NULL, *last = NULL;
    bool room = true;
    for (int i = 0; i < d->ncpus; i++)
        room &= perf_copy_ring(d, i, d->heads[i], &chain, &last);
    if (chain != NULL) {
        last->next = __atomic_load_n(&d->passes, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&d->passes, &last->next, chain, true, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED))
            ;
    }
    if (room) /* every record made before AT is out of the rings */
        __atomic_store_n(&d->read_ns, at, __ATOMIC_RELEASE);
    return room;
}

/* The copier thread: it moves the rings' records to the chunk lists
 * whenever a ring reaches its watermark, and every PERF_COPY_MS, until told
 * to stop. */
static void *perf_copier(void *arg)
{
    struct clockdrv_perf *d = arg;
    bool room = true;
    /* SCHED_FIFO where it may (its work is a copy), else a 0.1 ms slice, with
     * which EEVDF lets it preempt the program's threads when it wakes. */
    struct clockdrv_sched_attr a = {.size = sizeof a};
    if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) == 0 && a.sched_policy == SCHED_OTHER) {
        struct clockdrv_sched_attr rt = {
            .size = sizeof rt, .sched_policy = SCHED_FIFO, .sched_priority = 1};
        a.sched_runtime = 100000;
        a.sched_flags = 0;
        if (syscall(SYS_sched_setattr, 0, &rt, 0) < 0)
            syscall(SYS_sched_setattr, 0, &a, 0);
    }
    while (!__atomic_load_n(&d->copier_quit, __ATOMIC_ACQUIRE)) {
        struct epoll_event evs[16];
        int n = 0;
        if (room) {
            n = epoll_wait(d->copier_ep, evs, 16, PERF_COPY_MS);
        } else {
            /* With no room, a full ring stays ready: only wait. */
            struct timespec ts = {0, PERF_COPY_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
        room = perf_copy_pass(d);
        for (int i = 0; i < n; i++) {
            /* A hung-up event stays ready: stop watching it (the drain
             * empties its ring at the end). */
            if (evs[i].data.u32 < (uint32_t)d->ncpus && (evs[i].events & (EPOLLHUP | EPOLLERR)))
                epoll_ctl(d->copier_ep, EPOLL_CTL_DEL, d->cpus[evs[i].data.u32].fd, NULL);
            if (evs[i].data.u32 == PERF_SCAN_KEY && clockdrv_perf_scan_due(d) &&
                pthread_mutex_trylock(&d->scan_lock) == 0) {
                clockdrv_perf_scan(d);
                pthread_mutex_unlock(&d->scan_lock);
            }
        }
    }
    return NULL;
}

/* The spare chunks the copier starts with: without SCHED_FIFO, two seconds
 * of samples (a front end starved by 200 busy processes caught up every
 * 0.3-1 s), up to 64 MiB, mapped and faulted in now.  Faulting in its
 * memory as it filled it took the copier 5-14 ms of CPU in 0.2 s, more than
 * its share among 200 busy processes, and the scheduler then kept it off
 * its CPU for 0.2-0.6 s, rings overflowing. */
void clockdrv_perf_pool(struct clockdrv_perf *d)
{
    uint64_t rate = (uint64_t)d->ncpus * (1000000u / d->cfg.interval_us) *
                    (d->cfg.stacks ? d->cfg.stack_size + 512 : 128);
    uint64_t want = 2 * rate > (64u << 20) ? (64u << 20) : 2 * rate;
    size_t n = (size_t)(want / sizeof(struct perf_chunk)) + 1;
    size_t len = n * sizeof(struct perf_chunk);
    void *p =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return;
    d->pool = p;
    d->pool_len = len;
    for (size_t i = 0; i < n; i++)
        perf_chunk_push(&d->spare, (struct perf_chunk *)(d->pool + i * sizeof(struct perf_chunk)));
}

/* Start the copier, with every signal blocked (they are the front end's),
 * unless profil runs at SCHED_FIFO: then nothing keeps the drain from the
 * rings, and it moves the records itself, as it does without the copier. */
void clockdrv_perf_copier_start(struct clockdrv_perf *d)
{
    if (d->copier_on || clockdrv_fifo())
        return;
    if (d->pool == NULL)
        clockdrv_perf_pool(d);
    d->copier_ep = epoll_create1(EPOLL_CLOEXEC);
    d->copier_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (d->copier_ep < 0 || d->copier_stop < 0)
        return;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(d->copier_ep, EPOLL_CTL_ADD, d->copier_stop, &ev);
    for (int i = 0; i < d->ncpus; i++) {
        if (d->cpus[i].meta == NULL)
            continue;
        ev.data.u32 = (uint32_t)i;
        epoll_ctl(d->copier_ep, EPOLL_CTL_ADD, d->cpus[i].fd, &ev);
    }
    /* The scan timer goes with it (see scan_lock). */
    ev.data.u32 = PERF_SCAN_KEY;
    bool scan = d->scan_fd >= 0 && epoll_ctl(d->copier_ep, EPOLL_CTL_ADD, d->scan_fd, &ev) == 0;
    if (scan)
        epoll_ctl(d->base.fd, EPOLL_CTL_DEL, d->scan_fd, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    d->copier_on = pthread_create(&d->copier, NULL, perf_copier, d) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (scan && !d->copier_on) {
        epoll_ctl(d->copier_ep, EPOLL_CTL_DEL, d->scan_fd, NULL);
        ev.data.u32 = PERF_SCAN_KEY;
        epoll_ctl(d->base.fd, EPOLL_CTL_ADD, d->scan_fd, &ev);
    }
}

/* Stop the copier and wait for it: the rings are the drain's from here. */
void clockdrv_perf_copier_stop(struct clockdrv_perf *d)
{
    if (!d->copier_on)
        return;
    __atomic_store_n(&d->copier_quit, true, __ATOMIC_RELEASE);
    uint64_t one = 1;
    if (write(d->copier_stop, &one, sizeof one) < 0) {
        /* it wakes within PERF_COPY_MS anyway */
    }
    pthread_join(d->copier, NULL);
    d->copier_on = false;
}

/* Parse the records of chunk C of CPU. */
static void perf_parse_chunk(struct clockdrv_perf *d, int cpu, const struct perf_chunk *c)
{
    size_t off = 0;
    while (off + sizeof(struct perf_event_header) <= c->len) {
        struct perf_event_header h;
        memcpy(&h, c->data + off, sizeof h);
        if (h.size < sizeof h || off + h.size > c->len)
            break;
        d->parsing_cpu = (uint16_t)cpu;
        clockdrv_perf_parse(d, &h, c->data + off + sizeof h, h.size - sizeof h);
        off += h.size;
    }
}

/* Parse every record there is, each CPU's oldest first: the passes the
 * copier made, and once it has stopped what is left in the rings.  Returns
 * the bytes parsed. */
size_t clockdrv_perf_read_all(struct clockdrv_perf *d)
{
    if (!d->copier_on)
        perf_copy_pass(d);
    struct perf_chunk *list = __atomic_exchange_n(&d->passes, NULL, __ATOMIC_ACQUIRE), *c = NULL;
    while (list != NULL) { /* newest first: reverse */
        struct perf_chunk *next = list->next;
        list->next = c;
        c = list;
        list = next;
    }
    size_t bytes = 0;
    while (c != NULL) {
        struct perf_chunk *next = c->next;
        perf_parse_chunk(d, c->cpu, c);
        bytes += c->len;
        __atomic_sub_fetch(&d->copied, c->len, __ATOMIC_RELAXED); /* before the copier has it */
        perf_chunk_push(&d->spare, c);
        c = next;
    }
    return bytes;
}
