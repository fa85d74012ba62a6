/*
 * Attaching to a running process (-p): its threads, its mappings, and what
 * to say when the kernel will not let profil watch it.  Both drivers use
 * these; neither signals the process.
 */
#include "config.h"

#include "clockdrv/clockdrv.h"
#include "util/xmalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATTACH_CAP_SYS_PTRACE 19
#define ATTACH_CAP_PERFMON    38
#define ATTACH_CAP_SYS_ADMIN  21

static int attach_pid_cmp(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* The state letter of thread TID of PID (R, S, D, Z, ...), or 0. */
static char attach_task_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    if (clockdrv_proc_read(path, buf, sizeof buf) <= 0)
        return 0;
    const char *end = strrchr(buf, ')'); /* the name may hold anything but its last ')' */
    return end != NULL && end[1] == ' ' ? end[2] : 0;
}

int clockdrv_tasks(pid_t pid, pid_t **tids, size_t *n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(path);
    if (dir == NULL)
        return errno == ENOENT ? -ESRCH : -errno;
    size_t alloc = 0;
    *tids = NULL;
    *n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || tid <= 0)
            continue;
        /* A main thread that called pthread_exit stays a zombie while the
         * others run: nothing to trace or sample there (PTRACE_SEIZE says
         * EPERM), and its /proc files are empty. */
        char state = attach_task_state(pid, (pid_t)tid);
        if (state == 'Z' || state == 'X')
            continue;
        *tids = xgrowarray(*tids, &alloc, *n + 1, sizeof **tids);
        (*tids)[(*n)++] = (pid_t)tid;
    }
    closedir(dir);
    if (*n == 0) {
        free(*tids);
        *tids = NULL;
        return -ESRCH; /* a zombie: no thread left to watch */
    }
    qsort(*tids, *n, sizeof **tids, attach_pid_cmp);
    return 0;
}

/* The number after KEY in /proc/PID/status (a tid works too), or FALLBACK. */
static long long attach_status(pid_t pid, const char *key, int base, long long fallback)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fallback;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[r > 0 ? r : 0] = '\0';
    char want[32];
    snprintf(want, sizeof want, "\n%s:", key);
    const char *s = strstr(buf, want);
    if (s == NULL)
        return fallback;
    return strtoll(s + strlen(want), NULL, base);
}

pid_t clockdrv_tracer(pid_t tid)
{
    return (pid_t)attach_status(tid, "TracerPid", 10, -1);
}

/* Whether profil has capability CAP in its effective set. */
static bool attach_capable(int cap)
{
    unsigned long long eff = (unsigned long long)attach_status(getpid(), "CapEff", 16, 0);
    return (eff >> cap) & 1;
}

/* The command name of PID, into BUF ("?" when it cannot be read). */
static const char *attach_comm(pid_t pid, char *buf, size_t size)
{
    if (!clockdrv_task_comm(pid, pid, buf, size) || buf[0] == '\0')
        snprintf(buf, size, "?");
    return buf;
}

char *clockdrv_attach_refusal(const char *driver, pid_t pid, int err)
{
    struct stat st;
    char path[64], comm[64];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    if (err == ESRCH || stat(path, &st) < 0)
        return xasprintf("%s: no process %d", driver, (int)pid);
    if (err != EPERM && err != EACCES)
        return xasprintf("%s: cannot watch process %d: %s", driver, (int)pid, strerror(err));
    bool other = st.st_uid != geteuid();
    if (strcmp(driver, "ptrace") == 0) {
        pid_t tracer = clockdrv_tracer(pid);
        if (tracer > 0 && tracer != getpid())
            return xasprintf("ptrace: process %d is already traced by process %d (%s): a "
                             "process has one tracer at a time (try --driver perf)",
                             (int)pid, (int)tracer, attach_comm(tracer, comm, sizeof comm));
        int scope = clockdrv_read_int("/proc/sys/kernel/yama/ptrace_scope", -1);
        bool cap = attach_capable(ATTACH_CAP_SYS_PTRACE);
        if (scope >= 3)
            return xasprintf("ptrace: not permitted: kernel.yama.ptrace_scope is %d, which "
                             "forbids attaching to any process until the next boot "
                             "(try --driver perf)",
                             scope);
        if (scope == 2 && !cap)
            return xstrdup("ptrace: not permitted: kernel.yama.ptrace_scope is 2: only "
                           "CAP_SYS_PTRACE may attach (run profil as root, or "
                           "sysctl kernel.yama.ptrace_scope=1)");
        if (scope == 1 && !cap && !other)
            return xasprintf("ptrace: not permitted: kernel.yama.ptrace_scope is 1: only a "
                             "process's ancestors may attach to it, and profil is not one of "
                             "process %d's; CAP_SYS_PTRACE or sysctl "
                             "kernel.yama.ptrace_scope=0 is needed",
                             (int)pid);
        if (other && !cap)
            return xasprintf("ptrace: not permitted: process %d belongs to another user (uid "
                             "%u); run profil as that user or with CAP_SYS_PTRACE",
                             (int)pid, (unsigned)st.st_uid);
        return xasprintf("ptrace: not permitted to attach to process %d (it may run a "
                         "setuid program or have made itself undumpable, or a security "
                         "module forbids it)",
                         (int)pid);
    }
    int paranoid = clockdrv_read_int("/proc/sys/kernel/perf_event_paranoid", -99);
    bool cap = attach_capable(ATTACH_CAP_PERFMON) || attach_capable(ATTACH_CAP_SYS_ADMIN);
    if (other && !attach_capable(ATTACH_CAP_SYS_PTRACE))
        return xasprintf("perf: not permitted: process %d belongs to another user (uid %u); "
                         "run profil as that user or with CAP_SYS_PTRACE",
                         (int)pid, (unsigned)st.st_uid);
    if (paranoid > 2 && !cap)
        return xasprintf("perf: not permitted (kernel.perf_event_paranoid is %d; it must be 2 "
                         "or less, or profil needs CAP_PERFMON)",
                         paranoid);
    return xasprintf("perf: not permitted to watch process %d (kernel.perf_event_paranoid is "
                     "%d; it may run a setuid program or have made itself undumpable)",
                     (int)pid, paranoid);
}

pid_t clockdrv_live_task(pid_t pid)
{
    pid_t *tids, tid = pid;
    size_t n;
    if (clockdrv_tasks(pid, &tids, &n) < 0)
        return pid;
    tid = tids[0];
    for (size_t i = 0; i < n; i++)
        if (tids[i] == pid)
            tid = pid;
    free(tids);
    return tid;
}

int clockdrv_exec_maps(pid_t pid, struct clockdrv_map **maps, size_t *n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/maps", (int)pid, (int)clockdrv_live_task(pid));
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -errno;
    size_t alloc = 0;
    *maps = NULL;
    *n = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        unsigned long long start, end, pgoff;
        char perms[8];
        int name = 0;
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &start, &end, perms, &pgoff, &name) <
                4 ||
            strlen(perms) < 3 || perms[2] != 'x' || end <= start)
            continue;
        char *p = name > 0 ? line + name : line + strlen(line);
        /* perf names what it saw mapped, not what became of the file since. */
        size_t len = strlen(p);
        static const char deleted[] = " (deleted)";
        if (len >= sizeof deleted - 1 && strcmp(p + len - (sizeof deleted - 1), deleted) == 0)
            p[len - (sizeof deleted - 1)] = '\0';
        *maps = xgrowarray(*maps, &alloc, *n + 1, sizeof **maps);
        struct clockdrv_map *m = &(*maps)[(*n)++];
        m->start = start;
        m->len = end - start;
        m->pgoff = pgoff;
        m->path = xstrdup(*p == '\0' || strncmp(p, "[anon:", 6) == 0 ? "//anon" : p);
    }
    free(line);
    fclose(f);
    return 0;
}

void clockdrv_maps_free(struct clockdrv_map *maps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(maps[i].path);
    free(maps);
}

void clockdrv_attach_threads(pid_t pid, uint64_t time, clockdrv_emit_fn emit, void *arg)
{
    pid_t *tids = NULL;
    size_t n = 0;
    if (clockdrv_tasks(pid, &tids, &n) < 0)
        return;
    bool lead = false;
    for (size_t i = 0; i < n; i++)
        lead |= tids[i] == pid;
    if (!lead) {
        /* Its main thread ended before profil came (the others run on). */
        struct event ev = {
            .type = EVENT_THREAD_EXIT, .pid = (uint32_t)pid, .tid = (uint32_t)pid, .time_ns = time};
        emit(arg, &ev);
    }
    for (size_t i = 0; i < n; i++) {
        struct event ev = {
            .type = EVENT_THREAD, .pid = (uint32_t)pid, .tid = (uint32_t)tids[i], .time_ns = time};
        if (tids[i] != pid)
            emit(arg, &ev);
        char name[32];
        if (!clockdrv_task_comm(pid, tids[i], name, sizeof name))
            continue;
        ev.type = EVENT_COMM;
        ev.comm.name = name;
        emit(arg, &ev);
    }
    free(tids);
}

bool clockdrv_task_blocked(pid_t pid, pid_t tid)
{
    char state = attach_task_state(pid, tid);
    return state == 'S' || state == 'D';
}

bool clockdrv_schedstat_parse(const char *buf, uint64_t *exec, uint64_t *delay, uint64_t *runs)
{
    const char *p = buf;
    char *e;
    uint64_t *field[3] = {exec, delay, runs};
    for (int i = 0; i < 3; i++, p = e) {
        *field[i] = strtoull(p, &e, 10);
        if (e == p)
            return false;
    }
    return true;
}

ssize_t clockdrv_proc_read(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

bool clockdrv_task_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    if (clockdrv_proc_read(path, buf, size) <= 0)
        return false;
    buf[strcspn(buf, "\n")] = '\0';
    return true;
}

void clockdrv_exec_info(pid_t pid, char *path, size_t path_size, char *args, size_t args_size,
                        struct event *ev)
{
    char name[64];
    snprintf(name, sizeof name, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(name, path, path_size - 1);
    if (n > 0) {
        path[n] = '\0';
        ev->exec.path = path;
    }
    snprintf(name, sizeof name, "/proc/%d/cmdline", (int)pid);
    n = clockdrv_proc_read(name, args, args_size);
    if (n > 0) {
        ev->exec.cmdline = args;
        ev->exec.cmdline_len = (uint32_t)n;
    }
}
