/*
 * profil -p PID: the running process takes the place of the program.  Its
 * executable is what /proc/PID/exe names, its parameters what its command
 * line holds; only the bucket size and the sample time are asked.
 */
#include "config.h"

#include "clockdrv/clockdrv.h"
#include "elf/debuginfo.h"
#include "elf/module.h"
#include "launcher/launcher.h"
#include "launcher/prompt.h"
#include "session/view.h"
#include "util/quote.h"
#include "util/save.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The executable of PID, as its thread TID's /proc exe names it; NULL after one line. */
static char *attach_exe(long pid, long tid)
{
    char link[64], path[PATH_MAX];
    struct stat st;
    snprintf(link, sizeof link, "/proc/%ld", pid);
    if (stat(link, &st) < 0) {
        fprintf(stderr, "profil: -p %ld: no such process\n", pid);
        return NULL;
    }
    snprintf(link, sizeof link, "/proc/%ld/task/%ld/exe", pid, tid);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) {
        int err = errno;
        if (err == EACCES || err == EPERM)
            fprintf(stderr,
                    "profil: -p %ld: not permitted to read its program (%s): the process "
                    "belongs to uid %u; run profil as that user or with CAP_SYS_PTRACE\n",
                    pid, link, (unsigned)st.st_uid);
        else if (err == ENOENT)
            fprintf(stderr,
                    "profil: -p %ld: the process has no program to profile (a kernel "
                    "thread, or it has just ended)\n",
                    pid);
        else
            fprintf(stderr, "profil: -p %ld: %s: %s\n", pid, link, strerror(err));
        return NULL;
    }
    path[n] = '\0';
    static const char deleted[] = " (deleted)";
    size_t len = (size_t)n;
    if (len >= sizeof deleted - 1 && strcmp(path + len - (sizeof deleted - 1), deleted) == 0) {
        path[len - (sizeof deleted - 1)] = '\0';
        fprintf(stderr,
                "profil: -p %ld: its program %s was deleted or replaced since it started: its "
                "code and names cannot be read\n",
                pid, quote(path));
        return NULL;
    }
    return xstrdup(path);
}

/* The parameters PID was started with (its command line without argv[0]), from
 * its thread TID's /proc files. */
static void attach_args(struct session *s, long pid, long tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/cmdline", pid, tid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    char *word = NULL;
    size_t cap = 0;
    bool first = true;
    while (getdelim(&word, &cap, '\0', f) > 0) {
        if (first) {
            first = false;
            continue;
        }
        s->args = xreallocarray(s->args, s->nargs + 2, sizeof *s->args);
        s->args[s->nargs++] = xstrdup(word);
        s->args[s->nargs] = NULL;
    }
    free(word);
    fclose(f);
}

int launcher_attach(struct options *o)
{
    long pid = o->attach_pid;
    if (pid == (long)getpid()) {
        fprintf(stderr, "profil: -p %ld: that is profil itself\n", pid);
        return 1;
    }
    /* From here on profil works beside the running process: reading its
     * program, opening the events.  300 busy threads on two CPUs left it so
     * little of them that attaching took 10 s; 2.5 s now, most of it the
     * loader's, before main (docs/performance.md). */
    clockdrv_prioritize(o->interval == 0 || o->interval >= CLOCKDRV_FIFO_US);
    /* A thread of it that runs: a main thread that ended first has no
     * executable or command line in /proc. */
    long tid = (long)clockdrv_live_task((pid_t)pid);
    char *path = attach_exe(pid, tid);
    if (path == NULL) {
        clockdrv_unprioritize();
        return 1;
    }
    char *cause = NULL, *output = NULL;
    struct args a = {0};
    struct session *s = NULL;
    int status = 1, r;
    if (module_check_executable(path, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        goto out;
    }
    output = launcher_output_name(o, path, 0);
    if ((r = launcher_refuse_same(output, path, "the program")) != 0) {
        status = r;
        goto out;
    }
    r = launcher_check_output(output);
    if (r < 0) {
        fprintf(stderr, "profil: %s: Cannot open output file (%s)\n", output, strerror(-r));
        goto out;
    }
    if (save_check(output, SAVE_KEEP_OLD, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        goto out;
    }
    /* Nothing is asked: a running process has its parameters, and the
     * bucket size and sample time are the prompts' defaults unless given. */
    if (o->bucket == 0)
        o->bucket = BUCKET_DEFAULT;
    if (o->interval == 0)
        o->interval = INTERVAL_DEFAULT;
    launcher_catch_early_signals(true);
    clockdrv_prioritize(o->interval >= CLOCKDRV_FIFO_US); /* the interval asked */
    debuginfo_background(true); /* sampling starts at once: names come when they can */
    s = session_new(path, o->bucket, o->interval, &cause);
    if (s != NULL)
        s->view.oncpu = o->on_cpu; /* nothing counted yet: no counts to make again */
    if (s == NULL || (o->range != NULL && session_set_range(s, o->range, &cause) < 0)) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        goto out;
    }
    attach_args(s, pid, tid);
    free(s->program);
    s->program = xstrdup(path);
    s->comment = o->comment ? xstrdup(o->comment) : NULL;
    s->raw_names = o->no_demangle;
    s->embed_source = o->embed_source;
    s->attached = true;
    s->pid = (uint32_t)pid;
    status = launcher_run(s, o, path, &a, output);
out:
    clockdrv_unprioritize(); /* the driver gave it back, unless it never started */
    launcher_catch_early_signals(false);
    session_free(s);
    free(output);
    free(path);
    return status;
}
