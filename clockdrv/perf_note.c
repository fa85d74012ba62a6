/*
 * What the perf driver tells the user, in its note (base.note): the start's
 * remark kept, each later one added for good, and the count of samples
 * kept without their stacks said anew.
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>

/* Say how many samples went without their stacks. */
void clockdrv_perf_note_shed(struct clockdrv_perf *d)
{
    if (!d->note0_kept) {
        d->note0 = d->base.note != NULL ? xstrdup(d->base.note) : NULL;
        d->note0_kept = true;
    }
    char *shed = xasprintf("%llu of %llu samples kept without their call stacks: profil could "
                           "not unwind them as fast as they came",
                           (unsigned long long)d->shed, (unsigned long long)d->samples);
    free(d->base.note);
    d->base.note = d->note0 != NULL ? xasprintf("%s; %s", d->note0, shed) : xstrdup(shed);
    free(shed);
}

/* Say MSG for good, beside what the start and earlier remarks said (and
 * the samples kept without stacks, which clockdrv_perf_note_shed says anew). */
void clockdrv_perf_note_add(struct clockdrv_perf *d, const char *msg)
{
    if (!d->note0_kept) {
        d->note0 = d->base.note != NULL ? xstrdup(d->base.note) : NULL;
        d->note0_kept = true;
    }
    char *n = d->note0 != NULL ? xasprintf("%s; %s", d->note0, msg) : xstrdup(msg);
    free(d->note0);
    d->note0 = n;
    free(d->base.note);
    d->base.note = xstrdup(n);
    if (d->shed > 0)
        clockdrv_perf_note_shed(d);
}

/* Jittered periods stopped: say so. */
void clockdrv_perf_note_jitter(struct clockdrv_perf *d)
{
    if (d->several) {
        clockdrv_perf_note_add(
            d, "the process had several threads when profil attached, so the sample "
               "periods do not change (each CPU keeps the random one it had); "
               "--driver ptrace keeps jittering");
        return;
    }
    clockdrv_perf_note_add(
        d, "the program started a thread or a process, so the sample periods stopped "
           "changing (each CPU keeps the random one it had: the kernel gives a new "
           "thread its parent's period of the moment for good); --driver ptrace "
           "keeps jittering");
}

/* The kernel held the clock back: its samples took too long for
 * kernel.perf_event_max_sample_rate, which it lowers itself when they do. */
void clockdrv_perf_note_throttle(struct clockdrv_perf *d)
{
    char msg[192];
    int rate = clockdrv_read_int("/proc/sys/kernel/perf_event_max_sample_rate", -1);
    snprintf(msg, sizeof msg,
             "the kernel throttled the clock (kernel.perf_event_max_sample_rate is %d now): the "
             "ticks it held back are lost",
             rate);
    clockdrv_perf_note_add(d, msg);
}

/* A process of the program executed a setuid or setgid program (or one
 * with file capabilities): the kernel takes the events off a process that
 * is no longer dumpable (begin_new_exec: perf_event_exit_task), which
 * writes an exit record right after the exec's comm record, before any
 * mapping of the new program.  Its samples stop there, for good; say so
 * rather than show a profile that silently ends.  (An exec that fails past
 * its point of no return looks the same, but the process dies then.) */
void clockdrv_perf_note_setuid(struct clockdrv_perf *d)
{
    d->setuid_said = true;
    clockdrv_perf_note_add(d, "the program ran a setuid program: not profiled after exec");
}
