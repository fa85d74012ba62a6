#include "config.h"

#include "clockdrv/clockdrv.h"
#include "launcher/launcher.h"
#include "session/prf.h"
#include "session/report.h"
#include "session/xmalloc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_TICK_MS 50

static void run_emit(void *arg, const struct event *ev)
{
    session_ingest(arg, ev);
}

/* Record how the program ended, from its wait status. */
static void run_set_exit(struct session *s, int wstatus)
{
    if (WIFSIGNALED(wstatus)) {
        s->exit_kind = EXIT_ABORTED;
        s->exit_signal = WTERMSIG(wstatus);
    } else {
        s->exit_kind = EXIT_TERMINATED;
        s->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
    }
}

/* profil's exit status mirrors the program's, as strace and time do. */
static int run_status(const struct session *s)
{
    if (s->exit_kind == EXIT_ABORTED)
        return 128 + s->exit_signal;
    return s->exit_code;
}

int launcher_run_plain(struct session *s, const struct options *o, const char *path,
                       const struct args *a, const char *output)
{
    struct clockdrv_config cfg = { s->interval_us, o->clock };
    char *cause = NULL;
    const struct clockdrv_ops *ops = strcmp(o->driver, "auto") == 0 ? clockdrv_choose(&cfg, &cause)
                                                                     : clockdrv_find(o->driver);
    if (ops == NULL) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        return 1;
    }
    if (strcmp(o->driver, "auto") != 0 && ops->probe(&cfg, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        return 1;
    }

    /* Ctrl-C and Ctrl-\ are for the program, as they were under PROFIL; a
     * TERM or HUP sent to profil is passed on to it, and the session kept. */
    struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigset_t fwd, old_mask;
    sigemptyset(&fwd);
    sigaddset(&fwd, SIGTERM);
    sigaddset(&fwd, SIGHUP);
    sigprocmask(SIG_BLOCK, &fwd, &old_mask);
    int sfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);

    char **argv = xcalloc(a->argc + 2, sizeof *argv);
    argv[0] = (char *)o->target;
    for (size_t i = 0; i < a->argc; i++)
        argv[i + 1] = a->argv[i];
    struct launch l = { path, argv, a->stdin_path, a->stdout_path, a->stdout_append,
                        a->stderr_path, -1 };
    free(s->driver);
    s->driver = xstrdup(ops->name);
    s->clock = o->clock;
    s->start_time = (int64_t)time(NULL);
    fprintf(stderr, "profil: sampling every %u us with the %s driver, %s clock\n", s->interval_us,
            ops->name, o->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
    fflush(NULL); /* nothing buffered may reach the program's output twice */
    uint64_t t0 = clockdrv_now_ns();
    struct clockdrv *d = ops->start(&cfg, &l, &cause);
    int status = 1;
    if (d == NULL) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        goto out;
    }
    if (d->note != NULL)
        fprintf(stderr, "profil: %s\n", d->note);
    s->pid = (uint32_t)d->pid;
    for (;;) {
        struct pollfd pfd[2] = { { d->fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        if (poll(pfd, sfd >= 0 ? 2 : 1, RUN_TICK_MS) < 0 && errno != EINTR)
            break;
        if (sfd >= 0 && (pfd[1].revents & POLLIN)) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                kill(d->pid, (int)si.ssi_signo);
        }
        if (d->ops->drain(d, run_emit, s) == 1)
            break;
    }
    s->duration_s = (double)(clockdrv_now_ns() - t0) / 1e9;
    s->max_threads = d->max_threads;
    run_set_exit(s, d->wstatus);
    d->ops->free(d);

    char msg[160];
    printf("%s\n", report_termination(s, msg, sizeof msg));
    fflush(stdout);
    char *name = o->output == NULL && getenv("PROFDIR") != NULL && *getenv("PROFDIR") != '\0'
                     ? launcher_output_name(o, path, (long)s->pid)
                     : xstrdup(output);
    if (prf_write_file(s, name, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        free(name);
        status = 1;
        goto out;
    }
    fprintf(stderr, "profil: %llu samples (%llu lost) written to %s\n",
            (unsigned long long)s->c.total, (unsigned long long)s->c.lost, name);
    free(name);
    report_text(s, NULL, stdout, 20);
    status = run_status(s);
out:
    free(argv);
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return status;
}
