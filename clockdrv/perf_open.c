/*
 * Opening the perf driver's events: the probe, the attributes of the clock,
 * side-band and context-switch events, each CPU's ring (sized within the
 * locked-memory limits, and mapped), and the events of a task on every
 * CPU.  Every perf_event_open of the driver is here.
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "clockdrv/ustack.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
                            unsigned long flags)
{
    return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* The attribute every per-CPU event shares. */
static void perf_attr(struct perf_event_attr *attr, const struct clockdrv_config *cfg,
                      bool exclude_kernel)
{
    memset(attr, 0, sizeof *attr);
    attr->size = sizeof *attr;
    attr->type = PERF_TYPE_SOFTWARE;
    attr->config = PERF_COUNT_SW_CPU_CLOCK;
    attr->sample_period = (uint64_t)cfg->interval_us * 1000;
    attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    attr->disabled = 1;
    attr->enable_on_exec = 1;
    attr->inherit = 1;
    attr->mmap = 1;
    attr->comm = 1;
    attr->comm_exec = 1;
    attr->task = 1;
    attr->sample_id_all = 1;
    attr->exclude_hv = 1;
    attr->exclude_kernel = exclude_kernel;
    attr->exclude_guest = 1;
    attr->context_switch = cfg->clock == CLOCK_KIND_WALL;
    attr->use_clockid = 1;
    attr->clockid = CLOCK_MONOTONIC;
    attr->watermark = 1;
    if (cfg->stacks) {
        /* The kernel's part of the stack as PCs; the user's as registers
         * and a copy of the stack, to unwind with CFI (Debian's code has
         * no frame pointers).  The identifier tells the two events apart. */
        attr->sample_type |= PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN |
                             PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        attr->exclude_callchain_user = 1;
        attr->sample_regs_user = ustack_perf_mask();
        /* A whole record must fit in 64 KiB. */
        uint32_t size = cfg->stack_size > 65528 - 2048 ? 65528 - 2048 : cfg->stack_size;
        attr->sample_stack_user = size & ~7u;
    }
}

/* The side-band event (perf record's "dummy", as with --delay and
 * --control): it never samples, but reports the mappings, names, forks,
 * execs and exits, and is never disabled, so that what a process maps,
 * starts or runs while the clock is off is known when it comes back on (a
 * library mapped then was the high area's).  The clock events report none
 * of these.  The same sample_type: records of both are read alike. */
static void perf_sideband_attr(struct perf_event_attr *attr, const struct clockdrv_config *cfg,
                               bool exclude_kernel)
{
    perf_attr(attr, cfg, exclude_kernel);
    attr->config = PERF_COUNT_SW_DUMMY;
    attr->sample_period = 1;
    attr->context_switch = 0;
}

/* No side-band records from a clock event (the side-band event has them). */
static void perf_no_sideband(struct perf_event_attr *attr)
{
    attr->mmap = 0;
    attr->comm = 0;
    attr->comm_exec = 0;
    attr->task = 0;
}

/* The context-switch event: a sample, with its stack, each time a thread of
 * the program leaves a CPU; the one before a blocked stretch says where the
 * thread blocked.  It writes into the clock event's ring. */
static void perf_cs_attr(struct perf_event_attr *attr, const struct clockdrv_config *cfg)
{
    perf_attr(attr, cfg, false);
    attr->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    attr->sample_period = 1;
    attr->mmap = 0;
    attr->comm = 0;
    attr->comm_exec = 0;
    attr->task = 0;
    attr->context_switch = 0;
    attr->watermark = 0;
}

/* Open a probe event on ourselves to learn what the kernel allows. */
int clockdrv_perf_probe(const struct clockdrv_config *cfg, char **cause)
{
    struct perf_event_attr attr;
    perf_attr(&attr, cfg, true);
    attr.enable_on_exec = 0;
    attr.inherit = 0;
    int fd = (int)perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int err = errno;
    int paranoid = clockdrv_read_int("/proc/sys/kernel/perf_event_paranoid", -99);
    if (err == EACCES || err == EPERM)
        *cause = xasprintf("perf: not permitted (kernel.perf_event_paranoid is %d; it must be 2 "
                           "or less, or profil needs CAP_PERFMON)",
                           paranoid);
    else if (err == ENOENT || err == ENOSYS)
        *cause = xasprintf("perf: this kernel has no perf events (%s)", strerror(err));
    else
        *cause = xasprintf("perf: perf_event_open: %s", strerror(err));
    return -err;
}

/* Map one CPU's ring buffer, shrinking it when the locked-memory limit bites. */
static int perf_map(struct perf_cpu *pc, size_t want)
{
    long page = sysconf(_SC_PAGESIZE);
    for (size_t pages = want; pages >= 4; pages /= 2) {
        size_t len = (pages + 1) * (size_t)page;
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, pc->fd, 0);
        if (p != MAP_FAILED) {
            pc->meta = p;
            pc->data = (uint8_t *)p + page;
            pc->size = pages * (size_t)page;
            return 0;
        }
        if (errno != EPERM && errno != ENOMEM)
            return -errno;
    }
    return -EPERM;
}

/* The sched:sched_switch tracepoint's id, or -1 without tracefs. */
static long perf_switch_tracepoint(void)
{
    static const char *const paths[] = {"/sys/kernel/tracing/events/sched/sched_switch/id",
                                        "/sys/kernel/debug/tracing/events/sched/sched_switch/id"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        int id = clockdrv_read_int(paths[i], -1);
        if (id >= 0)
            return id;
    }
    return -1;
}

/* The switch event on CPU I, into its ring; without it blocked samples carry
 * no stack.  Best the sched_switch tracepoint filtered to the switches where
 * the thread blocks (its prev_state is a sleep, not R nor R+ for preempted):
 * a program that is only preempted pays nothing.  Else every context switch,
 * which costs a stack copy at each preemption too. */
static int perf_open_cs(struct clockdrv_perf *d, pid_t pid, int i)
{
    struct perf_event_attr attr;
    perf_cs_attr(&attr, &d->cfg);
    long tp = perf_switch_tracepoint();
    int fd = -1;
    if (tp >= 0) {
        attr.type = PERF_TYPE_TRACEPOINT;
        attr.config = (uint64_t)tp;
        fd = (int)perf_event_open(&attr, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "prev_state & 255") < 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        perf_cs_attr(&attr, &d->cfg);
        fd = (int)perf_event_open(&attr, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
    }
    uint64_t id;
    if (fd < 0)
        return -1;
    if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, d->cpus[i].fd) < 0 ||
        ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
        close(fd);
        return -1;
    }
    d->cs = true;
    d->cs_ids = xreallocarray(d->cs_ids, d->ncs_ids + 1, sizeof *d->cs_ids);
    d->cs_ids[d->ncs_ids++] = id;
    return fd;
}

/* The data pages each of NCPUS rings may have within what the kernel lets
 * this user lock: its allowance for perf (kernel.perf_event_mlock_kb for
 * each online CPU) and RLIMIT_MEMLOCK beyond it, shared evenly (a ring is a
 * power of two pages and one more for its header); 0 when there is no such
 * limit (root: CAP_IPC_LOCK).  Mapped in turn at the most each could have,
 * the first CPU took 8 MiB and the second the 1 MiB left. */
static size_t perf_pages_allowed(int ncpus)
{
    long page = sysconf(_SC_PAGESIZE), online = sysconf(_SC_NPROCESSORS_ONLN);
    struct rlimit rl;
    if (geteuid() == 0 || page <= 0 || getrlimit(RLIMIT_MEMLOCK, &rl) < 0 ||
        rl.rlim_cur == RLIM_INFINITY)
        return 0;
    int kb = clockdrv_read_int("/proc/sys/kernel/perf_event_mlock_kb", 516);
    if (kb < 0)
        kb = 0;
    uint64_t total = (uint64_t)kb * 1024 / (uint64_t)page * (uint64_t)(online > 0 ? online : 1) +
                     (uint64_t)rl.rlim_cur / (uint64_t)page;
    uint64_t each = total / (uint64_t)ncpus;
    size_t pages = 4;
    while ((uint64_t)pages * 2 + 1 <= each && pages < 8192)
        pages *= 2;
    return pages;
}

/* The CPUs, and the size of their rings. */
void clockdrv_perf_setup_cpus(struct clockdrv_perf *d)
{
    long ncpus = sysconf(_SC_NPROCESSORS_CONF);
    d->ncpus = ncpus > 0 ? (int)ncpus : 1;
    d->cpus = xcalloc((size_t)d->ncpus, sizeof *d->cpus);
    d->heads = xcalloc((size_t)d->ncpus, sizeof *d->heads);
    /* Bigger buffers for faster clocks: about half a second of samples. */
    size_t pages = d->cfg.interval_us <= 100 ? 128 : d->cfg.interval_us <= 500 ? 64 : 32;
    if (d->cfg.stacks) {
        /* Four seconds of samples with their stacks, up to 32 MiB a CPU and
         * 128 MiB in all: a front end that a loaded machine starves (or a
         * sanitizer slows) must not lose them while it waits for a CPU. */
        uint64_t bytes = 4 * (1000000ull / d->cfg.interval_us) * (d->cfg.stack_size + 512);
        size_t most = 32768 / (size_t)d->ncpus;
        if (most > 8192)
            most = 8192;
        size_t allowed = perf_pages_allowed(d->ncpus);
        if (allowed != 0 && most > allowed)
            most = allowed;
        while (2 * pages <= most && (uint64_t)pages * 4096 < bytes)
            pages *= 2;
    }
    d->pages = pages;
    d->ids = d->cfg.stacks;
    for (int i = 0; i < d->ncpus; i++)
        d->cpus[i].fd = d->cpus[i].cs_fd = -1;
}

/* Keep FD, an event of a thread after the first, to enable, disable and close. */
static void perf_keep_extra(struct clockdrv_perf *d, int fd)
{
    d->extra = xgrowarray(d->extra, &d->extra_alloc, d->nextra + 1, sizeof *d->extra);
    d->extra[d->nextra++] = fd;
}

/* The side-band event of task PID on CPU I, into its ring: 0, or -errno and
 * *cause (-ESRCH when the task is gone). */
static int perf_open_sideband(struct clockdrv_perf *d, pid_t pid, int i, char **cause)
{
    struct perf_event_attr attr;
    perf_sideband_attr(&attr, &d->cfg, d->exclude_kernel);
    if (d->base.attached) {
        attr.enable_on_exec = 0;
        attr.disabled = 0;
    }
    int fd = (int)perf_event_open(&attr, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, d->cpus[i].fd) == 0) {
        d->side = xgrowarray(d->side, &d->side_alloc, d->nside + 1, sizeof *d->side);
        d->side[d->nside++] = fd;
        return 0;
    }
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (err == ESRCH && d->base.attached)
        return -ESRCH;
    *cause = xasprintf("perf: cannot open the side-band event on CPU %d: %s", i, strerror(err));
    return -err;
}

/* Open the event on every CPU for the task PID (the held child, or a thread
 * of an attached process).  The first task's events own the CPUs' rings;
 * a later one's write into them (PERF_EVENT_IOC_SET_OUTPUT, as perf record
 * -p does), with the period its CPU's has.  -ESRCH when the task is gone. */
int clockdrv_perf_open_task(struct clockdrv_perf *d, pid_t pid, char **cause)
{
    int r;
    for (int i = 0; i < d->ncpus; i++) {
        bool owner = d->cpus[i].fd < 0;
        if (!owner && d->cpus[i].meta == NULL)
            continue; /* an offline CPU */
        struct perf_event_attr attr;
        perf_attr(&attr, &d->cfg, d->exclude_kernel);
        perf_no_sideband(&attr);
        if (d->base.attached) {
            attr.enable_on_exec = 0; /* it runs already: at once */
            attr.disabled = 0;
        }
        if (owner) {
            attr.sample_period = clockdrv_jitter_next(&d->jitter);
            clockdrv_perf_period_given(&d->cpus[i], 0, attr.sample_period);
        } else {
            attr.sample_period = d->cpus[i].periods[d->cpus[i].nperiods - 1].period;
        }
        int fd = (int)perf_event_open(&attr, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && !d->exclude_kernel) {
            d->exclude_kernel = true; /* paranoid 2: user-mode samples only */
            perf_attr(&attr, &d->cfg, true);
            perf_no_sideband(&attr);
            if (d->base.attached) {
                attr.enable_on_exec = 0;
                attr.disabled = 0;
            }
            attr.sample_period = d->cpus[i].periods[d->cpus[i].nperiods - 1].period;
            fd = (int)perf_event_open(&attr, pid, i, -1, PERF_FLAG_FD_CLOEXEC);
        }
        if (fd < 0 && errno == ENODEV && owner)
            continue; /* an offline CPU */
        if (fd < 0) {
            int err = errno;
            if (err == ESRCH && d->base.attached)
                return -ESRCH; /* the thread ended: the caller goes on without it */
            if (d->base.attached)
                *cause = clockdrv_attach_refusal("perf", d->base.pid, err);
            else
                *cause = xasprintf("perf: perf_event_open on CPU %d: %s", i, strerror(err));
            return -err;
        }
        if (!owner) {
            if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, d->cpus[i].fd) < 0) {
                int err = errno;
                close(fd);
                *cause = xasprintf("perf: cannot share CPU %d's ring buffer: %s", i, strerror(err));
                return -err;
            }
            perf_keep_extra(d, fd);
            if (d->cfg.stacks && d->wall && !d->exclude_kernel) {
                int cs = perf_open_cs(d, pid, i);
                if (cs >= 0)
                    perf_keep_extra(d, cs);
            }
            if ((r = perf_open_sideband(d, pid, i, cause)) < 0)
                return r;
            continue;
        }
        d->cpus[i].fd = fd;
        r = perf_map(&d->cpus[i], d->pages);
        if (r < 0) {
            *cause = xasprintf("perf: cannot map the ring buffer (%s); raise "
                               "kernel.perf_event_mlock_kb or RLIMIT_MEMLOCK",
                               strerror(-r));
            return r;
        }
        d->cpus[i].meta->data_tail = 0;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(d->base.fd, EPOLL_CTL_ADD, fd, &ev);
        if (d->cfg.stacks && d->wall && !d->exclude_kernel)
            d->cpus[i].cs_fd = perf_open_cs(d, pid, i);
        if ((r = perf_open_sideband(d, pid, i, cause)) < 0)
            return r;
    }
    if (d->exclude_kernel && d->base.note == NULL)
        d->base.note = xstrdup("kernel samples excluded: time on a CPU in the kernel is not seen");
    clockdrv_perf_scan_start(d);
    return 0;
}

/* Open the event on every CPU for the held child PID. */
int clockdrv_perf_open_all(struct clockdrv_perf *d, pid_t pid, char **cause)
{
    clockdrv_perf_setup_cpus(d);
    return clockdrv_perf_open_task(d, pid, cause);
}
