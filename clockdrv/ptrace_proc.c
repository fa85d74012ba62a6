/*
 * The ptrace driver's thread and process tables, what it reads under /proc
 * (maps, schedstat, syscall files) and the scheduling policy it runs at.
 */
#include "config.h"

#include "clockdrv/ptrace_proc.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PTRACE_FD_RESERVE 32 /* descriptors left to the rest of profil */

/* Read the maps again this often when stacks are taken, at least: a stack's
 * callers may lie in libraries no sampled PC was in yet.  A process with
 * many mappings is read less often, so that reading costs under 1 %. */
#define PTRACE_STACK_MAPS_NS 10000000ull

/* ... and at every sample this long after an exec, while the dynamic loader
 * maps the libraries. */
#define PTRACE_STACK_START_NS 30000000ull

/* Hand EV to the session, when a drain is under way to take it. */
void ptrace_emit(struct clockdrv_ptrace *d, const struct event *ev)
{
    if (d->emit != NULL)
        d->emit(d->arg, ev);
}

/* Add MSG to the remark for the user. */
void ptrace_note(struct clockdrv_ptrace *d, const char *msg)
{
    char *n = d->base.note == NULL ? xstrdup(msg) : xasprintf("%s; %s", d->base.note, msg);
    free(d->base.note);
    d->base.note = n;
}

/* Give the scheduling policy we found back.  Without CAP_SYS_NICE the kernel
 * refuses to clear SCHED_FLAG_RESET_ON_FORK once set: then keep it, which
 * matters only to children profil does not have. */
void ptrace_unprioritize(struct clockdrv_ptrace *d)
{
    int r = clockdrv_unprioritize();
    if (r == 0)
        return;
    char *msg = xasprintf("ptrace: cannot give back the scheduling policy (%s)", strerror(-r));
    ptrace_note(d, msg);
    free(msg);
}

/* Spread consecutive tids over the table. */
static uint32_t ptrace_hash(pid_t tid)
{
    return (uint32_t)tid * 2654435761u;
}

/* The live thread TID, or NULL. */
struct ptrace_thread *ptrace_thread(struct clockdrv_ptrace *d, pid_t tid)
{
    size_t mask = d->threads_alloc - 1;
    for (size_t i = ptrace_hash(tid) & mask;; i = (i + 1) & mask) {
        struct ptrace_thread *t = &d->threads[i];
        if (t->slot == SLOT_EMPTY)
            return NULL;
        if (t->slot == SLOT_USED && t->tid == tid)
            return t;
    }
}

/* Rebuild the table without tombstones, a quarter full at most. */
static void ptrace_rehash(struct clockdrv_ptrace *d)
{
    struct ptrace_thread *old = d->threads;
    size_t n = d->threads_alloc, alloc = 64;
    while (alloc < 4 * (d->threads_used + 1))
        alloc *= 2;
    d->threads = xcalloc(alloc, sizeof *d->threads);
    d->threads_alloc = alloc;
    d->threads_gone = 0;
    for (size_t k = 0; k < n; k++) {
        if (old[k].slot != SLOT_USED)
            continue;
        for (size_t i = ptrace_hash(old[k].tid) & (alloc - 1);; i = (i + 1) & (alloc - 1)) {
            if (d->threads[i].slot == SLOT_EMPTY) {
                d->threads[i] = old[k];
                break;
            }
        }
    }
    free(old);
}

/* Add TID of process PID, not yet in the table. */
struct ptrace_thread *ptrace_thread_add(struct clockdrv_ptrace *d, pid_t tid, pid_t pid)
{
    if (2 * (d->threads_used + d->threads_gone + 1) > d->threads_alloc)
        ptrace_rehash(d);
    size_t mask = d->threads_alloc - 1;
    struct ptrace_thread *t;
    for (size_t i = ptrace_hash(tid) & mask;; i = (i + 1) & mask) {
        t = &d->threads[i];
        if (t->slot != SLOT_USED)
            break;
    }
    if (t->slot == SLOT_GONE)
        d->threads_gone--;
    *t = (struct ptrace_thread){.tid = tid,
                                .pid = pid,
                                .sysfd = -1,
                                .schedfd = -1,
                                .slot = SLOT_USED,
                                .live = true,
                                .detach = d->freeing};
    d->threads_used++;
    d->base.threads++;
    if (d->base.threads > d->base.max_threads)
        d->base.max_threads = d->base.threads;
    return t;
}

/* Close the files kept open for T. */
void ptrace_thread_close(struct ptrace_thread *t)
{
    if (t->sysfd >= 0)
        close(t->sysfd);
    if (t->schedfd >= 0)
        close(t->schedfd);
    t->sysfd = t->schedfd = -1;
}

/* Open T's FILE (syscall, schedstat) under /proc; -1 when it would leave the
 * rest of profil fewer than PTRACE_FD_RESERVE descriptors. */
static int ptrace_thread_file(struct clockdrv_ptrace *d, const struct ptrace_thread *t,
                              const char *file)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)t->pid, (int)t->tid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && d->nofile != RLIM_INFINITY && (rlim_t)fd + PTRACE_FD_RESERVE >= d->nofile) {
        close(fd);
        fd = -1;
        errno = EMFILE;
    }
    return fd;
}

/* Open the files that tell whether T runs and how long it ran, without
 * stopping it.  Out of descriptors, T is unkept: what it ran is read at its
 * exit stop and counted as lost, and the user is told. */
static void ptrace_thread_open(struct clockdrv_ptrace *d, struct ptrace_thread *t)
{
    ptrace_thread_close(t);
    t->sysfd = ptrace_thread_file(d, t, "syscall");
    t->schedfd = ptrace_thread_file(d, t, "schedstat");
    t->unkept = false;
    if (t->sysfd >= 0 && t->schedfd >= 0)
        return;
    int err = errno;
    ptrace_thread_close(t);
    if (err != EMFILE && err != ENFILE)
        return; /* gone already */
    t->unkept = true;
    if (!d->out_of_fds) {
        d->out_of_fds = true;
        char *msg = xasprintf("ptrace: out of file descriptors (limit %llu): the CPU time of "
                              "the threads profil cannot watch is counted as lost, at their end",
                              (unsigned long long)d->nofile);
        ptrace_note(d, msg);
        free(msg);
    }
}

/* Read T's schedstat: ns on a CPU, ns waiting for one, times put on one.  The
 * first is exact only while T is off its CPU (the kernel brings it up to date
 * at a context switch and at its scheduler tick), as it is at a ptrace stop. */
bool ptrace_schedstat(struct clockdrv_ptrace *d, const struct ptrace_thread *t, uint64_t *exec,
                      uint64_t *delay, uint64_t *runs)
{
    char buf[96];
    ssize_t r = -1;
    if (t->schedfd >= 0) {
        r = pread(t->schedfd, buf, sizeof buf - 1, 0);
    } else if (t->unkept && d->spare >= 0) {
        /* Make room with the spare descriptor, read, and take it back. */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)t->pid, (int)t->tid);
        close(d->spare);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            r = pread(fd, buf, sizeof buf - 1, 0);
            close(fd);
        }
        d->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    if (r <= 0)
        return false;
    buf[r] = '\0';
    return clockdrv_schedstat_parse(buf, exec, delay, runs);
}

/* T's stop has come, or will not: the tick waits for it no longer. */
void ptrace_unwant(struct clockdrv_ptrace *d, struct ptrace_thread *t)
{
    if (t->want && t->want_tick == d->tick && d->pending > 0)
        d->pending--; /* only this tick's stops are counted */
    t->want = false;
}

/* Forget a thread that has ended; a tombstone keeps the probe chains intact. */
void ptrace_thread_gone(struct clockdrv_ptrace *d, struct ptrace_thread *t)
{
    ptrace_thread_close(t);
    ptrace_unwant(d, t);
    t->slot = SLOT_GONE;
    d->threads_used--;
    d->threads_gone++;
    d->base.threads = d->base.threads > 0 ? d->base.threads - 1 : 0;
}

/* The traced process PID, or NULL; a program has few, so a list will do. */
struct ptrace_proc *ptrace_proc(struct clockdrv_ptrace *d, pid_t pid)
{
    for (size_t i = 0; i < d->nprocs; i++) {
        if (d->procs[i]->pid == pid)
            return d->procs[i];
    }
    return NULL;
}

/* A new process, with no mappings known yet. */
struct ptrace_proc *ptrace_proc_add(struct clockdrv_ptrace *d, pid_t pid)
{
    struct ptrace_proc *p = xcalloc(1, sizeof *p);
    p->pid = pid;
    d->procs = xreallocarray(d->procs, d->nprocs + 1, sizeof *d->procs);
    d->procs[d->nprocs++] = p;
    return p;
}

/* Forget a process that has ended. */
static void ptrace_proc_gone(struct clockdrv_ptrace *d, pid_t pid)
{
    for (size_t i = 0; i < d->nprocs; i++) {
        if (d->procs[i]->pid == pid) {
            free(d->procs[i]->maps);
            free(d->procs[i]);
            d->procs[i] = d->procs[--d->nprocs];
            return;
        }
    }
}

/* The known executable mapping holding PC, or NULL. */
const struct ptrace_map *ptrace_map_find(const struct ptrace_map *maps, size_t n, uint64_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (maps[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || pc >= maps[lo - 1].end)
        return NULL;
    return &maps[lo - 1];
}

/* Parse one line of /proc/PID/maps; true for an executable mapping. */
static bool ptrace_map_parse(char *line, struct ptrace_map *m, const char **path)
{
    char *e;
    m->start = strtoull(line, &e, 16);
    if (*e != '-')
        return false;
    m->end = strtoull(e + 1, &e, 16);
    if (*e != ' ' || strnlen(e + 1, 5) < 5 || e[5] != ' ')
        return false;
    bool exec = e[3] == 'x';
    m->pgoff = strtoull(e + 6, &e, 16);
    if (*e != ' ')
        return false;
    unsigned long major = strtoul(e + 1, &e, 16);
    if (*e != ':')
        return false;
    unsigned long minor = strtoul(e + 1, &e, 16);
    m->dev = (uint32_t)(major << 20 | minor);
    m->ino = strtoull(e, &e, 10);
    while (*e == ' ')
        e++;
    /* perf names what it saw mapped, not what became of the file since. */
    size_t len = strlen(e);
    static const char deleted[] = " (deleted)";
    if (len >= sizeof deleted - 1 && strcmp(e + len - (sizeof deleted - 1), deleted) == 0)
        e[len - (sizeof deleted - 1)] = '\0';
    if (*e == '\0' || strncmp(e, "[anon:", 6) == 0)
        *path = "//anon"; /* what perf says, and what the session expects */
    else
        *path = e;
    return exec && m->end > m->start;
}

/* Read P's executable mappings and hand the session those it has not seen. */
void ptrace_maps(struct clockdrv_ptrace *d, struct ptrace_proc *p)
{
    uint64_t began = clockdrv_now_ns();
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)p->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t len = 0;
    for (bool again = true;;) {
        if (d->buf_alloc - len < 4096) {
            d->buf_alloc = d->buf_alloc ? 2 * d->buf_alloc : 65536;
            d->buf = xreallocarray(d->buf, d->buf_alloc, 1);
        }
        ssize_t r = read(fd, d->buf + len, d->buf_alloc - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 && len == 0 && again) {
            /* Empty: its main thread has ended before the others (a
             * process profil attached to then); another thread's holds them. */
            again = false;
            pid_t tid = clockdrv_live_task(p->pid);
            if (tid == p->pid)
                break;
            close(fd);
            snprintf(path, sizeof path, "/proc/%d/task/%d/maps", (int)p->pid, (int)tid);
            if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
                return;
            continue;
        }
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    d->buf[len] = '\0';
    size_t n = 0;
    struct event ev = {
        .type = EVENT_MMAP, .pid = (uint32_t)p->pid, .tid = (uint32_t)p->pid, .time_ns = d->now};
    for (char *line = d->buf, *next; line < d->buf + len; line = next) {
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : d->buf + len;
        if (nl != NULL)
            *nl = '\0';
        struct ptrace_map m;
        const char *name;
        if (!ptrace_map_parse(line, &m, &name))
            continue;
        if (n == d->scratch_alloc) {
            d->scratch_alloc = d->scratch_alloc ? 2 * d->scratch_alloc : 64;
            d->scratch = xreallocarray(d->scratch, d->scratch_alloc, sizeof *d->scratch);
        }
        d->scratch[n++] = m;
        const struct ptrace_map *old = ptrace_map_find(p->maps, p->nmaps, m.start);
        if (old != NULL && old->start == m.start && old->end == m.end && old->pgoff == m.pgoff &&
            old->ino == m.ino && old->dev == m.dev)
            continue;
        ev.mmap.start = m.start;
        ev.mmap.len = m.end - m.start;
        ev.mmap.pgoff = m.pgoff;
        ev.mmap.path = name;
        ptrace_emit(d, &ev);
    }
    if (p->alloc < n) {
        p->alloc = d->scratch_alloc;
        p->maps = xreallocarray(p->maps, p->alloc, sizeof *p->maps);
    }
    memcpy(p->maps, d->scratch, n * sizeof *p->maps);
    p->nmaps = n;
    p->maps_ns = clockdrv_now_ns();
    p->maps_cost = p->maps_ns - began;
}

/* With stacks, P's maps as of now or nearly: read them at every sample
 * for PTRACE_STACK_START_NS after an exec (a first sample in the dynamic
 * loader comes before the libraries it maps) and every PTRACE_STACK_MAPS_NS
 * after. */
void ptrace_stack_maps(struct clockdrv_ptrace *d, struct ptrace_proc *p)
{
    if (p == NULL || !d->cfg.stacks)
        return;
    uint64_t every = 100 * p->maps_cost;
    if (every < PTRACE_STACK_MAPS_NS)
        every = PTRACE_STACK_MAPS_NS;
    if (!p->sampled || d->now - p->exec_ns < PTRACE_STACK_START_NS || d->now - p->maps_ns >= every)
        ptrace_maps(d, p);
    p->sampled = true;
}

/* Hand the session thread T's name NAME (up to a newline) when it changed. */
static void ptrace_name(struct clockdrv_ptrace *d, struct ptrace_thread *t, const char *name)
{
    size_t n = strcspn(name, "\n");
    if (n >= sizeof t->comm)
        n = sizeof t->comm - 1;
    if (strncmp(t->comm, name, n) == 0 && t->comm[n] == '\0')
        return;
    memcpy(t->comm, name, n);
    t->comm[n] = '\0';
    struct event ev = {.type = EVENT_COMM,
                       .pid = (uint32_t)t->pid,
                       .tid = (uint32_t)t->tid,
                       .time_ns = clockdrv_now_ns()};
    ev.comm.name = t->comm;
    ptrace_emit(d, &ev);
}

/* Thread T's name from its /proc status (in STATUS). */
static void ptrace_emit_comm(struct clockdrv_ptrace *d, struct ptrace_thread *t, const char *status)
{
    const char *s = strstr(status, "Name:\t");
    if (s != NULL)
        ptrace_name(d, t, s + 6);
}

void ptrace_comms(struct clockdrv_ptrace *d)
{
    char name[32];
    for (size_t i = 0; i < d->threads_alloc; i++) {
        struct ptrace_thread *t = &d->threads[i];
        if (t->slot == SLOT_USED && t->live &&
            clockdrv_task_comm(t->pid, t->tid, name, sizeof name))
            ptrace_name(d, t, name);
    }
}

/* First sight of TID, a thread or a process the program just made.  PARENT is
 * the process that made it when its event came first, else 0. */
struct ptrace_thread *ptrace_adopt(struct clockdrv_ptrace *d, pid_t tid, pid_t parent)
{
    struct ptrace_thread *t = ptrace_thread(d, tid);
    if (t != NULL)
        return t;
    char path[64], buf[1024];
    pid_t tgid = tid, ppid = parent;
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[r > 0 ? r : 0] = '\0';
        const char *s = strstr(buf, "\nTgid:");
        if (s != NULL)
            tgid = (pid_t)strtol(s + 6, NULL, 10);
        s = strstr(buf, "\nPPid:");
        if (s != NULL && ppid == 0)
            ppid = (pid_t)strtol(s + 6, NULL, 10);
    }
    if (tgid <= 0)
        tgid = tid;
    t = ptrace_thread_add(d, tid, tgid);
    ptrace_thread_open(d, t);
    if (tgid == tid && ptrace_proc(d, tid) == NULL) {
        /* A new process starts with its parent's mappings, here as in the session. */
        struct ptrace_proc *p = ptrace_proc_add(d, tid), *pp = ptrace_proc(d, ppid);
        if (pp != NULL && pp->nmaps > 0) {
            p->maps = xcalloc(pp->nmaps, sizeof *p->maps);
            memcpy(p->maps, pp->maps, pp->nmaps * sizeof *p->maps);
            p->nmaps = p->alloc = pp->nmaps;
        }
        struct event ev = {.type = EVENT_FORK,
                           .pid = (uint32_t)tid,
                           .tid = (uint32_t)tid,
                           .time_ns = clockdrv_now_ns()};
        ev.fork.ppid = (uint32_t)ppid;
        ptrace_emit(d, &ev);
    } else {
        if (ptrace_proc(d, tgid) == NULL)
            ptrace_proc_add(d, tgid);
        if (tgid != tid) {
            struct event ev = {.type = EVENT_THREAD,
                               .pid = (uint32_t)tgid,
                               .tid = (uint32_t)tid,
                               .time_ns = clockdrv_now_ns()};
            ptrace_emit(d, &ev);
        }
    }
    if (fd >= 0)
        ptrace_emit_comm(d, t, buf);
    return t;
}

/* Process PID has exec'd: its old image and all its other threads are gone. */
void ptrace_exec(struct clockdrv_ptrace *d, pid_t pid)
{
    unsigned long former = 0;
    ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
    struct ptrace_thread *t = ptrace_thread(d, pid);
    if (t == NULL)
        t = ptrace_adopt(d, pid, 0);
    struct ptrace_thread *f = (pid_t)former != pid ? ptrace_thread(d, (pid_t)former) : NULL;
    if (f != NULL) {
        /* It took over the leader's tid, silently: its readings go on there,
         * not the ended leader's. */
        t->exec = f->exec;
        t->delay = f->delay;
        t->runs = f->runs;
        t->ran = f->ran;
        t->waited = f->waited;
        t->seen = f->seen;
        t->live = f->live;
        ptrace_thread_gone(d, f);
        ptrace_thread_open(d, t);
    }
    ptrace_unwant(d, t);
    struct ptrace_proc *p = ptrace_proc(d, pid);
    if (p == NULL)
        p = ptrace_proc_add(d, pid);
    p->sampled = false; /* a new image: its libraries are still to come */
    uint64_t now = clockdrv_now_ns();
    p->exec_ns = now;
    if (!t->held) {
        struct event ev = {
            .type = EVENT_EXEC, .pid = (uint32_t)pid, .tid = (uint32_t)pid, .time_ns = now};
        /* Stopped at its exec: what it runs now, for certain. */
        clockdrv_exec_info(pid, d->exec_path, sizeof d->exec_path, d->exec_args,
                           sizeof d->exec_args, &ev);
        ptrace_emit(d, &ev);
        char name[32];
        if (clockdrv_task_comm(pid, pid, name, sizeof name)) {
            t->comm[0] = '\0'; /* a new program: its name is said, even if the same */
            ptrace_name(d, t, name);
        }
    } else {
        t->held = false;
        t->live = true; /* the held child's own exec: the program starts here */
        ptrace_thread_open(d, t);
        if (ptrace_schedstat(d, t, &t->exec, &t->delay, &t->runs))
            t->seen = SEEN_RUNNABLE;
    }
    p->nmaps = 0;
    uint64_t keep = d->now;
    d->now = now;
    ptrace_maps(d, p);
    d->now = keep;
}

/* Process PID has ended, with wait status ST when KNOWN. */
static void ptrace_proc_exit(struct clockdrv_ptrace *d, pid_t pid, int st, bool known)
{
    struct event ev = {.type = EVENT_EXIT,
                       .pid = (uint32_t)pid,
                       .tid = (uint32_t)pid,
                       .time_ns = clockdrv_now_ns()};
    ev.exit.known = known;
    ev.exit.wstatus = st;
    if (ptrace_proc(d, pid) != NULL)
        ptrace_emit(d, &ev);
    ptrace_proc_gone(d, pid);
}

/* Add the user and system CPU time of T, stopped at its exit, to the tally:
 * fields 14 and 15 of its stat file, after the name in parentheses. */
void ptrace_cputimes(struct clockdrv_ptrace *d, const struct ptrace_thread *t)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)t->pid, (int)t->tid);
    if (clockdrv_proc_read(path, buf, sizeof buf) <= 0)
        return;
    char *p = strrchr(buf, ')');
    unsigned long long user, sys;
    if (p != NULL &&
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &user, &sys) == 2) {
        d->cpu_user += user;
        d->cpu_system += sys;
    }
}

/* At the end of a program that ran long enough to tell: when far more of the
 * samples came on the way back from a system call than the program spent of
 * its CPU time in the kernel, say so.  An interrupt stops a running thread
 * on its next way back to user mode; where an interrupt between CPUs arrives
 * late (on some virtual machines, tens of microseconds) a thread that calls
 * the kernel more often than that stops at its system calls, not where the
 * tick found it, and the code around them is overstated. */
static void ptrace_bias_note(struct clockdrv_ptrace *d)
{
    uint64_t cpu = d->cpu_user + d->cpu_system;
    if (d->ticks_sampled < 200 || cpu < 20)
        return;
    double at_sys = 100.0 * (double)d->ticks_at_syscall / (double)d->ticks_sampled;
    double in_kernel = 100.0 * (double)d->cpu_system / (double)cpu;
    if (at_sys < in_kernel + 10 || at_sys < 2 * in_kernel)
        return;
    char *msg = xasprintf("ptrace: %.0f %% of the samples stopped the program on its way back "
                          "from a system call, where it spent %.0f %% of its CPU time: this "
                          "machine's interrupts reach a running thread late, at its next system "
                          "call, so the code that calls the kernel often is overstated "
                          "(--driver perf samples where the tick finds it)",
                          at_sys, in_kernel);
    ptrace_note(d, msg);
    free(msg);
}

/* Thread TID has ended with wait status ST. */
void ptrace_exited(struct clockdrv_ptrace *d, pid_t tid, int st)
{
    struct ptrace_thread *t = ptrace_thread(d, tid);
    pid_t pid = t != NULL ? t->pid : tid;
    if (t != NULL)
        ptrace_thread_gone(d, t);
    if (tid == pid) {
        ptrace_proc_exit(d, pid, st, WIFEXITED(st) || WIFSIGNALED(st));
    } else {
        struct event ev = {.type = EVENT_THREAD_EXIT,
                           .pid = (uint32_t)pid,
                           .tid = (uint32_t)tid,
                           .time_ns = clockdrv_now_ns()};
        ptrace_emit(d, &ev);
    }
    if (tid == d->base.pid) {
        d->base.ended = true;
        d->base.wstatus = st;
        ptrace_bias_note(d);
        ptrace_unprioritize(d); /* the report and the screen are no real-time work */
    } else if (pid == d->base.pid) {
        ptrace_leaderless_check(d);
    }
}

void ptrace_leaderless_check(struct clockdrv_ptrace *d)
{
    pid_t pid = d->base.pid;
    if (!d->base.attached || d->base.ended || ptrace_thread(d, pid) != NULL)
        return;
    /* Attached after its main thread ended: the process ends with its last
     * thread, and its status goes to its parent, not to profil. */
    pid_t *tids;
    size_t n;
    if (clockdrv_tasks(pid, &tids, &n) < 0) {
        ptrace_proc_exit(d, pid, 0, false);
        d->base.ended = true;
        d->base.exit_unknown = true;
        ptrace_bias_note(d);
        ptrace_unprioritize(d);
    } else {
        free(tids);
    }
}

/* Whether T is runnable (on a CPU or waiting for one), by its syscall file:
 * "running" there is exactly state R. */
bool ptrace_runnable(struct clockdrv_ptrace *d, struct ptrace_thread *t, bool *runnable)
{
    char *buf = d->sysline;
    if (t->sysfd < 0)
        return false;
    ssize_t r = pread(t->sysfd, buf, sizeof d->sysline - 1, 0);
    if (r <= 0)
        return false;
    buf[r] = '\0';
    *runnable = r >= 7 && memcmp(buf, "running", 7) == 0;
    t->seen = *runnable ? SEEN_RUNNABLE : SEEN_BLOCKED;
    return true;
}
