/*
 * The perf driver's records, in order of time, as the events they make:
 * samples with their ticks and stacks, mappings, execs and names, forks and
 * exits, lost and throttled ticks, and the context switches of the wall
 * clock.
 */
#include "config.h"

#include "clockdrv/perf_internal.h"

#include <linux/perf_event.h>

/* What process PID execs, for EV: /proc/PID/exe and /proc/PID/cmdline read
 * now, a little after the exec (the ring is drained every 50 ms); a process
 * gone or exec'd again since is left without them (the session takes its
 * executable from its first mapping). */
static void perf_exec_args(struct clockdrv_perf *d, uint32_t pid, struct event *ev)
{
    clockdrv_exec_info((pid_t)pid, d->exec_path, sizeof d->exec_path, d->exec_args,
                       sizeof d->exec_args, ev);
}

void clockdrv_perf_dispatch(struct clockdrv_perf *d, const struct perf_rec *r,
                            clockdrv_emit_fn emit, void *arg)
{
    struct event ev = {.pid = r->pid, .tid = r->tid, .time_ns = r->time};
    struct perf_thread *t;
    switch (r->type) {
    case PERF_RECORD_SAMPLE:
        if (r->cs) {
            clockdrv_perf_keep_stack(d, r);
            break;
        }
        if (r->has_stack) {
            clockdrv_perf_stack(d, r, &d->stack);
            ev.sample.stack = &d->stack;
        }
        ev.type = EVENT_SAMPLE;
        ev.sample.pc = r->a;
        ev.sample.count = clockdrv_perf_ticks(d, r);
        if (ev.sample.count == 0)
            break;
        ev.sample.mode = (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER
                             ? SAMPLE_USER
                             : SAMPLE_KERNEL;
        emit(arg, &ev);
        break;
    case PERF_RECORD_MMAP:
        t = clockdrv_perf_thread(d, r->tid, false);
        if (t != NULL)
            t->exec_bare = false;
        ev.type = EVENT_MMAP;
        ev.mmap.start = r->a;
        ev.mmap.len = r->b;
        ev.mmap.pgoff = r->c;
        ev.mmap.path = d->names + r->name;
        emit(arg, &ev);
        break;
    case PERF_RECORD_COMM:
        if (r->misc & PERF_RECORD_MISC_COMM_EXEC) {
            t = clockdrv_perf_thread(d, r->tid, false);
            if (t != NULL)
                t->exec_bare = true;
            ev.type = EVENT_EXEC;
            perf_exec_args(d, r->pid, &ev);
            emit(arg, &ev);
        }
        ev.type = EVENT_COMM;
        ev.comm.name = d->names + r->name;
        emit(arg, &ev);
        break;
    case PERF_RECORD_FORK:
        t = clockdrv_perf_thread(d, r->tid, true);
        t->pid = r->pid;
        d->jitter_stop = true;
        d->base.threads++;
        if (d->base.threads > d->base.max_threads)
            d->base.max_threads = d->base.threads;
        if (r->pid != (uint32_t)r->c) {
            ev.type = EVENT_FORK;
            ev.fork.ppid = (uint32_t)r->c;
        } else {
            ev.type = EVENT_THREAD;
        }
        emit(arg, &ev);
        break;
    case PERF_RECORD_EXIT:
        t = clockdrv_perf_thread(d, r->tid, false);
        if (t != NULL && t->exec_bare && !d->setuid_said)
            clockdrv_perf_note_setuid(d);
        clockdrv_perf_thread_gone(d, r->tid);
        /* The wait status is known for the program only, once reaped: the
         * session has it from there. */
        ev.type = r->pid == r->tid ? EVENT_EXIT : EVENT_THREAD_EXIT;
        emit(arg, &ev);
        break;
    case PERF_RECORD_LOST:
        if (!d->overflow_said) {
            d->overflow_said = true;
            clockdrv_perf_note_add(
                d, "a kernel buffer filled while profil waited for a CPU: the samples "
                   "it had no room for are lost");
        }
        ev.type = EVENT_LOST;
        ev.lost.count = r->c;
        emit(arg, &ev);
        break;
    case PERF_RECORD_THROTTLE:
        d->throttled_at = r->time;
        if (!d->throttle_said) {
            d->throttle_said = true;
            clockdrv_perf_note_throttle(d);
        }
        break;
    case PERF_RECORD_UNTHROTTLE:
        /* The ticks that fell while the kernel throttled us are lost, not hidden. */
        if (d->throttled_at != 0 && r->time > d->throttled_at) {
            ev.type = EVENT_LOST;
            ev.lost.count = (r->time - d->throttled_at) / d->period_ns;
            if (ev.lost.count > 0)
                emit(arg, &ev);
        }
        d->throttled_at = 0;
        break;
    case PERF_RECORD_SWITCH:
        if (!d->wall)
            break;
        t = clockdrv_perf_thread(d, r->tid, false);
        if (t == NULL)
            break;
        if (r->misc & PERF_RECORD_MISC_SWITCH_OUT) {
            if (!(r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)) {
                t->blocked = true;
                t->since = t->bstart = r->time;
                t->hushed = clockdrv_perf_hushed(t, r->time);
            }
        } else {
            if (t->blocked)
                clockdrv_perf_credit(d, t, r->time, emit, arg);
            t->blocked = false;
            t->hushed = false;
            t->bvalid = false; /* back on a CPU: its next wait has a stack of its own */
        }
        break;
    }
}
