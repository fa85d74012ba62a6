/*
 * The perf driver: a software clock event (cpu-clock) on the program, one
 * event and one ring buffer per CPU (an inherited event cannot be mmapped
 * with cpu = -1), enabled at exec.  Samples give user and kernel PCs; mmap,
 * comm, fork and exit records follow the address spaces; in wall-clock mode
 * context-switch records turn the time a thread spends blocked into I/O
 * ticks.  Records from the per-CPU buffers are merged by time first: a thread
 * switched out on one CPU comes back on another.
 *
 * Without SCHED_FIFO a copier thread (perf_copier) only moves whole records
 * from the rings to chunks of profil's memory, at a ring's watermark and
 * every 10 ms; the drain parses the chunks, each CPU's records in the order
 * they came (at SCHED_FIFO the drain moves them itself).  The copier
 * needs so little CPU that the scheduler lets it run when the front end,
 * unwinding stacks, is starved: as an ordinary user among 200 busy processes
 * (no SCHED_FIFO, rings of 4 MiB) the front end was off its CPU for longer
 * than the rings hold, and lost 9-61 % of the ticks where perf record, which
 * only copies, lost none.  A front end that falls behind now falls behind in
 * its own memory, up to PERF_COPY_MAX, and catches up when it can.
 *
 * Its parts, each in a file of its own (perf_internal.h is what they
 * share): perf_open.c opens the events and maps the rings, perf_copier.c
 * is the copier, perf_record.c parses the records, perf_dispatch.c turns
 * them into events, perf_blocked.c keeps the wall clock's blocked threads
 * (and scans them), perf_jitter.c the periods, perf_threads.c the thread
 * table, perf_note.c the note; this file starts, attaches, drains, frees.
 */
#include "config.h"

#include "clockdrv/perf.h"
#include "clockdrv/perf_internal.h"
#include "clockdrv/spawn.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PERF_SLACK_NS 2000000ull /* records older than this are surely in the buffers */

/* How far behind the samples profil may fall: a sample older than this
 * when its turn comes goes on without its stack (counted, and said) rather
 * than the ring, which holds 4 s of them, overflowing and losing them, as
 * happens when the machine starves profil (200 busy processes).  A lag, not
 * a time per drain: reading a library's debug information once (45 ms for
 * libc's) must not cost the stacks of the samples that came meanwhile. */
#define PERF_UNWIND_LAG_NS 1000000000ull
/* profil reads and unwinds at SCHED_FIFO (a program of many busy threads
 * starved it: 200 processes on 2 CPUs made it keep 0-17 % of the samples
 * without their stacks, 71-72 % under the sanitizers) at CLOCKDRV_FIFO_US
 * and longer, while its own work takes no more than this share of a CPU. */
#define PERF_FIFO_SHARE 0.5

/* Samples lose their stacks, to catch up, only when this much waits to be
 * read in one drain and they are older than PERF_UNWIND_LAG_NS. */
#define PERF_BACKLOG_SHED (64u << 20)

/* An attached process runs on: closing the events is all it takes (and the
 * copier stopped first, which reads their rings). */
static void clockdrv_perf_release(struct clockdrv *base)
{
    struct clockdrv_perf *d = (struct clockdrv_perf *)base;
    clockdrv_perf_copier_stop(d);
    for (size_t i = 0; i < d->nextra; i++)
        close(d->extra[i]);
    d->nextra = 0;
    for (size_t i = 0; i < d->nside; i++)
        close(d->side[i]);
    d->nside = 0;
    for (int i = 0; i < d->ncpus; i++) {
        if (d->cpus[i].cs_fd >= 0)
            close(d->cpus[i].cs_fd);
        if (d->cpus[i].fd >= 0)
            close(d->cpus[i].fd);
        d->cpus[i].cs_fd = d->cpus[i].fd = -1;
    }
}

static void clockdrv_perf_free(struct clockdrv *base)
{
    struct clockdrv_perf *d = (struct clockdrv_perf *)base;
    if (d->base.pid > 0 && !d->base.ended && !d->base.attached) {
        kill(d->base.pid, SIGKILL);
        waitpid(d->base.pid, &d->base.wstatus, 0);
    }
    clockdrv_unprioritize();
    clockdrv_perf_release(base);
    free(d->extra);
    free(d->side);
    clockdrv_maps_free(d->maps, d->nmaps);
    if (d->copier_ep >= 0)
        close(d->copier_ep);
    if (d->copier_stop >= 0)
        close(d->copier_stop);
    for (int i = 0; i < 2; i++) {
        struct perf_chunk *c = i == 0 ? d->spare : d->passes;
        while (c != NULL) {
            struct perf_chunk *next = c->next;
            if ((uint8_t *)c < d->pool || (uint8_t *)c >= d->pool + d->pool_len)
                free(c);
            c = next;
        }
    }
    if (d->pool != NULL)
        munmap(d->pool, d->pool_len);
    free(d->heads);
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < d->ncpus; i++) {
        if (d->cpus[i].meta != NULL)
            munmap(d->cpus[i].meta, d->cpus[i].size + (size_t)page);
        if (d->cpus[i].cs_fd >= 0)
            close(d->cpus[i].cs_fd);
        if (d->cpus[i].fd >= 0)
            close(d->cpus[i].fd);
        free(d->cpus[i].periods);
    }
    for (size_t i = 0; i < d->threads_alloc; i++) {
        free(d->threads[i].bdata);
        free(d->threads[i].hush);
        clockdrv_perf_snaps_free(&d->threads[i]);
    }
    if (d->scan_fd >= 0)
        close(d->scan_fd);
    free(d->blob);
    free(d->cs_ids);
    free(d->note0);
    free(d->cpus);
    if (d->base.fd >= 0)
        close(d->base.fd);
    if (d->pidfd >= 0)
        close(d->pidfd);
    free(d->threads);
    free(d->recs);
    free(d->names);
    free(d->base.note);
    pthread_mutex_destroy(&d->scan_lock);
    free(d);
}

/* The driver's state before any event is open; NULL and *cause. */
static struct clockdrv_perf *perf_new(const struct clockdrv_config *cfg, char **cause)
{
    struct clockdrv_perf *d = xcalloc(1, sizeof *d);
    d->base.ops = &clockdrv_perf_ops;
    d->base.fd = -1;
    d->pidfd = -1;
    d->copier_ep = d->copier_stop = d->scan_fd = -1;
    pthread_mutex_init(&d->scan_lock, NULL);
    d->cfg = *cfg;
    d->period_ns = (uint64_t)cfg->interval_us * 1000;
    clockdrv_jitter_init(&d->jitter, d->period_ns, cfg->jitter);
    d->wall = cfg->clock == CLOCK_KIND_WALL;
    d->threads_alloc = 64;
    d->threads = xcalloc(d->threads_alloc, sizeof *d->threads);

    d->base.fd = epoll_create1(EPOLL_CLOEXEC);
    if (d->base.fd < 0) {
        *cause = xasprintf("perf: epoll: %s", strerror(errno));
        clockdrv_perf_free(&d->base);
        return NULL;
    }
    return d;
}

static struct clockdrv *clockdrv_perf_start(const struct clockdrv_config *cfg,
                                            const struct launch *l, char **cause)
{
    struct clockdrv_perf *d = perf_new(cfg, cause);
    if (d == NULL)
        return NULL;
    struct spawn sp;
    if (spawn_prepare(&sp, l, cause) < 0) {
        clockdrv_perf_free(&d->base);
        return NULL;
    }
    d->pidfd = (int)syscall(SYS_pidfd_open, sp.pid, 0);
    if (d->pidfd < 0 || clockdrv_perf_open_all(d, sp.pid, cause) < 0) {
        if (d->pidfd < 0)
            *cause = xasprintf("pidfd_open: %s", strerror(errno));
        spawn_abort(&sp);
        clockdrv_perf_free(&d->base);
        return NULL;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(d->base.fd, EPOLL_CTL_ADD, d->pidfd, &ev);
    /* The copier's memory is faulted in before the program runs: under the
     * sanitizers beside two busy loops that took longer than the rings
     * hold, and the first samples were lost. */
    clockdrv_prioritize(d->cfg.interval_us >= CLOCKDRV_FIFO_US);
    if (!clockdrv_fifo())
        clockdrv_perf_pool(d);
    if (spawn_go(&sp, l, cause) < 0) {
        d->base.ended = true; /* spawn_go reaped it */
        clockdrv_perf_free(&d->base);
        return NULL;
    }
    d->base.pid = sp.pid;
    struct perf_thread *t = clockdrv_perf_thread(d, (uint32_t)sp.pid, true);
    t->pid = (uint32_t)sp.pid;
    d->base.threads = d->base.max_threads = 1;
    clockdrv_perf_copier_start(d);
    return &d->base;
}

/* Open the events on every thread of PID, as perf record -p does, scanning
 * its task list again until a scan finds none new: a thread made meanwhile
 * by one already watched inherits its events, one made by a thread not yet
 * watched is opened on the next scan.  (A thread made by a watched one and
 * seen by that scan gets events of its own too, in the few microseconds
 * the opening takes: its samples would count twice.)  The kernel does not
 * replay the mappings there were: they are read from /proc/PID/maps once
 * the events are open (a mapping made meanwhile comes in both, which the
 * session takes as one) and handed over by the first drain.  The end is
 * seen by a pidfd; not our child, the process's exit status is unknown. */
static struct clockdrv *clockdrv_perf_attach(const struct clockdrv_config *cfg, pid_t pid,
                                             char **cause)
{
    struct clockdrv_perf *d = perf_new(cfg, cause);
    if (d == NULL)
        return NULL;
    d->base.attached = true;
    d->base.pid = pid;
    d->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (d->pidfd < 0) {
        *cause = errno == ESRCH || errno == EINVAL
                     ? clockdrv_attach_refusal("perf", pid, ESRCH)
                     : xasprintf("perf: pidfd_open: %s", strerror(errno));
        clockdrv_perf_free(&d->base);
        return NULL;
    }
    clockdrv_perf_setup_cpus(d);
    /* Before the events (the launcher may have done it already): a process
     * of 300 busy threads on two CPUs left profil so little of one that
     * opening theirs took seconds, samples piling up meanwhile. */
    clockdrv_prioritize(d->cfg.interval_us >= CLOCKDRV_FIFO_US);
    if (!clockdrv_fifo())
        clockdrv_perf_pool(d); /* before any event runs (see clockdrv_perf_start) */
    d->attach_ns = clockdrv_now_ns();
    for (int pass = 0;; pass++) {
        pid_t *tids;
        size_t n, added = 0;
        int r = clockdrv_tasks(pid, &tids, &n);
        if (r < 0) {
            *cause = clockdrv_attach_refusal("perf", pid, -r);
            clockdrv_perf_free(&d->base);
            return NULL;
        }
        for (size_t i = 0; i < n && r == 0; i++) {
            if (clockdrv_perf_thread(d, (uint32_t)tids[i], false) != NULL)
                continue;
            r = clockdrv_perf_open_task(d, tids[i], cause);
            if (r == -ESRCH) {
                r = 0; /* it ended meanwhile */
                continue;
            }
            if (r < 0)
                break;
            struct perf_thread *t = clockdrv_perf_thread(d, (uint32_t)tids[i], true);
            t->pid = (uint32_t)pid;
            if (d->wall && clockdrv_task_blocked(pid, tids[i])) {
                /* Asleep since before profil came: no switch record says so. */
                t->blocked = true;
                t->since = clockdrv_now_ns();
            }
            d->base.threads++;
            added++;
        }
        free(tids);
        if (r < 0 || (pass == 0 && added == 0)) {
            if (r == 0)
                *cause = clockdrv_attach_refusal("perf", pid, ESRCH);
            clockdrv_perf_free(&d->base);
            return NULL;
        }
        if (added == 0)
            break;
    }
    d->base.max_threads = d->base.threads;
    d->lead_gone = clockdrv_perf_thread(d, (uint32_t)pid, false) == NULL;
    if (d->base.threads > 1) {
        /* Each thread's events were given its CPU's period: they cannot
         * change together, so they keep it (see clockdrv_perf_jitter). */
        d->several = true;
        d->jitter_stop = true;
    }
    if (clockdrv_exec_maps(pid, &d->maps, &d->nmaps) < 0) {
        d->maps = NULL;
        d->nmaps = 0;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(d->base.fd, EPOLL_CTL_ADD, d->pidfd, &ev);
    clockdrv_perf_copier_start(d);
    return &d->base;
}

static int clockdrv_perf_drain(struct clockdrv *base, clockdrv_emit_fn emit, void *arg)
{
    struct clockdrv_perf *d = (struct clockdrv_perf *)base;
    struct epoll_event evs[16];
    int n;
    bool scan = false;
    while ((n = epoll_wait(d->base.fd, evs, 16, 0)) > 0) {
        for (int i = 0; i < n; i++) {
            uint32_t k = evs[i].data.u32;
            if (k == UINT32_MAX) {
                epoll_ctl(d->base.fd, EPOLL_CTL_DEL, d->pidfd, NULL);
                d->child_gone = true;
            } else if (k == PERF_SCAN_KEY) {
                scan = clockdrv_perf_scan_due(d) || scan;
            } else if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
                /* A hung-up event keeps polling ready: stop watching it. */
                epoll_ctl(d->base.fd, EPOLL_CTL_DEL, d->cpus[k].fd, NULL);
                d->cpus[k].hup = true;
            }
        }
        if (n < 16)
            break;
    }
    if (scan && !d->base.ended)
        clockdrv_perf_scan_locked(d);
    if (d->child_gone && !d->base.ended) {
        if (waitpid(d->base.pid, &d->base.wstatus, WNOHANG) == d->base.pid) {
            d->base.ended = true;
        } else if (d->base.attached) {
            /* Another's child: it ended, how is its parent's to know. */
            d->base.ended = true;
            d->base.exit_unknown = true;
        }
    }
    if (d->maps != NULL || d->nmaps > 0) {
        /* The mappings an attached process had before profil came. */
        for (size_t i = 0; i < d->nmaps; i++) {
            struct event mev = {.type = EVENT_MMAP,
                                .pid = (uint32_t)d->base.pid,
                                .tid = (uint32_t)d->base.pid,
                                .time_ns = d->attach_ns};
            mev.mmap.start = d->maps[i].start;
            mev.mmap.len = d->maps[i].len;
            mev.mmap.pgoff = d->maps[i].pgoff;
            mev.mmap.path = d->maps[i].path;
            emit(arg, &mev);
        }
        clockdrv_maps_free(d->maps, d->nmaps);
        d->maps = NULL;
        d->nmaps = 0;
        clockdrv_attach_threads(d->base.pid, d->attach_ns, emit, arg);
    }
    uint64_t now = clockdrv_now_ns();
    d->nrecs = 0;
    d->names_len = 0;
    d->blob_len = 0;
    /* Once the program has ended nothing more comes: the copier stops and
     * the drain takes what is left in the rings. */
    if (d->base.ended)
        clockdrv_perf_copier_stop(d);
    /* The records read now are all those made before READ_TO: the copier's
     * pass that began then published them, or this drain's own pass did.
     * As an ordinary user that is up to PERF_COPY_MS and more before now. */
    bool copier = d->copier_on;
    uint64_t read_to = __atomic_load_n(&d->read_ns, __ATOMIC_ACQUIRE);
    size_t backlog = clockdrv_perf_read_all(d);
    if (!copier)
        read_to = __atomic_load_n(&d->read_ns, __ATOMIC_ACQUIRE);
    if (d->nrecs > 1) /* no records at all: a stopped process, recs still NULL */
        qsort(d->recs, d->nrecs, sizeof *d->recs, clockdrv_perf_rec_cmp);
    uint64_t shed = d->shed;
    for (size_t i = 0; i < d->nrecs; i++) {
        struct perf_rec *r = &d->recs[i];
        /* A long drain (stacks unwound under the sanitizers, a backlog)
         * must not keep the scan from seeing the waits of the moment: as
         * an ordinary user beside two busy loops, 4-9 % of blockcall's
         * blocked samples went without a stack. */
        if (i % 32 == 31 && !d->base.ended && !copier && clockdrv_perf_scan_due(d))
            clockdrv_perf_scan_locked(d);
        if (r->type == PERF_RECORD_SAMPLE && !r->cs) {
            d->samples++;
            if (r->has_stack && backlog > PERF_BACKLOG_SHED &&
                clockdrv_now_ns() > r->time + PERF_UNWIND_LAG_NS) {
                r->has_stack = false;
                d->shed++;
            }
        }
        clockdrv_perf_dispatch(d, r, emit, arg);
    }
    if (d->shed > shed)
        clockdrv_perf_note_shed(d);
    if (d->base.ended && d->lead_gone) {
        /* An attached process whose main thread ended before profil came:
         * no exit record says when the last thread took it along. */
        d->lead_gone = false;
        struct event ev = {.type = EVENT_EXIT,
                           .pid = (uint32_t)d->base.pid,
                           .tid = (uint32_t)d->base.pid,
                           .time_ns = now};
        emit(arg, &ev);
    }
    /* Threads still blocked have been waiting all along: show it now, up
     * to where the records surely are all read (a switch-in may be among
     * those still to come: crediting past it counted time the thread ran,
     * 27 % too much I/O in stacks.sh's blockcall as an ordinary user). */
    if (d->wall && !d->base.ended && !d->base.paused && read_to > PERF_SLACK_NS) {
        for (size_t i = 0; i < d->threads_alloc; i++) {
            struct perf_thread *t = &d->threads[i];
            if (!t->used || !t->blocked)
                continue;
            clockdrv_perf_credit(d, t, read_to - PERF_SLACK_NS, emit, arg);
        }
    }
    clockdrv_perf_jitter(d, now);
    if (d->base.ended) {
        clockdrv_unprioritize(); /* the report and the screen are no real-time work */
    } else if (clockdrv_over_budget(now, PERF_FIFO_SHARE)) {
        clockdrv_unprioritize();
        clockdrv_perf_copier_start(d); /* the rings need it now */
        clockdrv_perf_note_add(
            d, "profil's own work took more than half a CPU, so it left SCHED_FIFO: "
               "the program's threads may now keep it from reading the samples in time");
    }
    return d->base.ended ? 1 : 0;
}

static void perf_ioctl_all(struct clockdrv_perf *d, unsigned long req)
{
    for (int i = 0; i < d->ncpus; i++) {
        if (d->cpus[i].fd >= 0)
            ioctl(d->cpus[i].fd, req, 0);
        if (d->cpus[i].cs_fd >= 0)
            ioctl(d->cpus[i].cs_fd, req, 0);
    }
    for (size_t i = 0; i < d->nextra; i++)
        ioctl(d->extra[i], req, 0);
}

static void clockdrv_perf_clock_off(struct clockdrv *base)
{
    struct clockdrv_perf *d = (struct clockdrv_perf *)base;
    perf_ioctl_all(d, PERF_EVENT_IOC_DISABLE);
    /* Blocked time while paused is not sampled: nothing is credited while
     * paused, and resumed_at starts what is credited again.  A thread stays
     * blocked: one that waits across the pause (a main thread in
     * pthread_join) has no switch-out after it to say so again, and its
     * waiting went unseen for the rest of the run (issue 24: p twice). */
    for (size_t i = 0; i < d->threads_alloc; i++)
        d->threads[i].hushed = false;
}

static void clockdrv_perf_hush(struct clockdrv *base, pid_t tid, uint64_t since)
{
    struct clockdrv_perf *d = (struct clockdrv_perf *)base;
    struct perf_thread *t = clockdrv_perf_thread(d, (uint32_t)tid, false);
    if (t == NULL)
        return;
    if (t->hush == NULL)
        t->hush = xmalloc(PERF_HUSHES * sizeof *t->hush);
    if (t->nhush == PERF_HUSHES) { /* the oldest is surely answered */
        memmove(t->hush, t->hush + 1, (PERF_HUSHES - 1) * sizeof t->hush[0]);
        t->nhush--;
    }
    t->hush[t->nhush].from = since;
    t->hush[t->nhush].until = clockdrv_now_ns();
    t->nhush++;
    /* Its switch-out may have been read already, or be in a ring still. */
    if (t->blocked && t->since >= since)
        t->hushed = true;
}

static void clockdrv_perf_clock_on(struct clockdrv *base)
{
    ((struct clockdrv_perf *)base)->resumed_at = clockdrv_now_ns();
    perf_ioctl_all((struct clockdrv_perf *)base, PERF_EVENT_IOC_ENABLE);
}

const struct clockdrv_ops clockdrv_perf_ops = {
    .name = "perf",
    .probe = clockdrv_perf_probe,
    .start = clockdrv_perf_start,
    .attach = clockdrv_perf_attach,
    .drain = clockdrv_perf_drain,
    .clock_on = clockdrv_perf_clock_on,
    .clock_off = clockdrv_perf_clock_off,
    .hush = clockdrv_perf_hush,
    .release = clockdrv_perf_release,
    .free = clockdrv_perf_free,
};
