#include "config.h"

#include "analysis/settle.h"
#include "clockdrv/clockdrv.h"
#include "clockdrv/drivers.h"
#include "clockdrv/ustack.h"
#include "elf/debuginfo.h"
#include "launcher/control.h"
#include "launcher/launcher.h"
#include "prf/prf.h"
#include "report/report.h"
#include "session/lines.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/threads.h"
#include "tui/tui.h"
#include "util/files.h"
#include "util/quote.h"
#include "util/save.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUN_TICK_MS       50
#define RUN_STOP_GRACE_NS 2000000000ull /* --duration: TERM, then KILL this much later */

static void run_emit(void *arg, const struct event *ev)
{
    session_ingest(arg, ev);
}

/* profil's exit status mirrors the program's, as strace and time do. */
static int run_status(const struct session *s)
{
    if (s->attached)
        return 0; /* not its run: profil's own status */
    if (s->exit_kind == EXIT_ABORTED)
        return 128 + s->exit_signal;
    return s->exit_code;
}

/* Ctrl-C or Ctrl-\ while the debug information is read or downloaded,
 * before the program starts: nothing has been run or written yet, so profil
 * says so and goes.  Once the program runs, they are for it (it shares this
 * terminal, or has the screen's), and profil lets them pass. */
static volatile sig_atomic_t run_started;
static bool run_catching;
static struct sigaction run_old_int, run_old_quit;

static void run_early_signal(int sig)
{
    static const char msg[] = "\nprofil: interrupted before the program started: nothing was run\n";
    if (run_started)
        return;
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
    _exit(128 + sig);
}

void launcher_catch_early_signals(bool on)
{
    if (on && !run_catching) {
        struct sigaction early = {.sa_handler = run_early_signal};
        sigemptyset(&early.sa_mask);
        run_started = 0;
        sigaction(SIGINT, &early, &run_old_int);
        sigaction(SIGQUIT, &early, &run_old_quit);
    } else if (!on && run_catching) {
        sigaction(SIGINT, &run_old_int, NULL);
        sigaction(SIGQUIT, &run_old_quit, NULL);
    }
    run_catching = on;
}

/* The driver the options ask for, checked; NULL after saying why. */
static const struct clockdrv_ops *run_driver(const struct options *o,
                                             const struct clockdrv_config *cfg)
{
    char *cause = NULL;
    bool automatic = strcmp(o->driver, "auto") == 0;
    const struct clockdrv_ops *ops =
        automatic ? clockdrv_choose(cfg, &cause) : clockdrv_find(o->driver);
    if (ops != NULL && !automatic && ops->probe(cfg, &cause) < 0)
        ops = NULL;
    if (ops == NULL) {
        fprintf(stderr, "profil: %s\n", cause ? cause : "no such driver");
        free(cause);
    }
    return ops;
}

/* The end of a run waits for the debug files still on its way, so that
 * the file has their names, unless the user will not: Ctrl-C, Ctrl-\\,
 * TERM or HUP save the session without them.  A wait of more than a second
 * is said, with how to end it. */
static volatile sig_atomic_t run_wait_signal;

static void run_wait_handler(int sig)
{
    run_wait_signal = sig;
}

static bool run_wait_given_up(void *arg)
{
    uint64_t *since = arg;
    if (*since != 0 && clockdrv_now_ns() - *since > 1000000000ull) {
        fprintf(stderr, "profil: waiting for debug info from debuginfod (Ctrl-C: save without "
                        "it)\n");
        *since = 0;
    }
    return run_wait_signal != 0;
}

static void run_wait_debuginfo(struct session *s)
{
    if (debuginfo_pending() == 0)
        return;
    static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
    struct sigaction sa = {.sa_handler = run_wait_handler}, old[4];
    sigemptyset(&sa.sa_mask);
    sigset_t set, was;
    sigemptyset(&set);
    for (size_t i = 0; i < 4; i++) {
        sigaction(sigs[i], &sa, &old[i]);
        sigaddset(&set, sigs[i]);
    }
    sigprocmask(SIG_UNBLOCK, &set, &was);
    run_wait_signal = 0;
    uint64_t since = clockdrv_now_ns();
    if (!session_debuginfo_wait(s, run_wait_given_up, &since))
        fprintf(stderr, "profil: %s: saving without the debug info still on its way\n",
                session_signal_name((int)run_wait_signal));
    sigprocmask(SIG_SETMASK, &was, NULL);
    for (size_t i = 0; i < 4; i++)
        sigaction(sigs[i], &old[i], NULL);
}

/* The program's environment: profil's, without the limits profil set for
 * libdebuginfod (debuginfo_env_ours), with PROFIL_CONTROL naming its control
 * socket.  The strings are borrowed. */
static char **run_environ(const struct control *ctl)
{
    const char *own = control_env(ctl);
    size_t n = 0, len = strlen(CONTROL_ENV);
    for (char **e = environ; *e != NULL; e++)
        n++;
    char **env = xcalloc(n + 2, sizeof *env), **o = env;
    for (char **e = environ; *e != NULL; e++) {
        bool control = strncmp(*e, CONTROL_ENV, len) == 0 && (*e)[len] == '=';
        if (!debuginfo_env_ours(*e) && !(control && own != NULL))
            *o++ = *e;
    }
    if (own != NULL)
        *o++ = (char *)own;
    return env;
}

/* Plain mode: the program keeps this terminal; Ctrl-C and Ctrl-\\ are for it,
 * as they were under PROFIL (OWN_SESSION: it has none of ours, its input
 * being no terminal, and profil passes them on); a TERM or HUP sent to
 * profil is passed on (and a second one soon after kills the program:
 * clockdrv_stop).  An attached
 * process has a terminal of its own: Ctrl-C, Ctrl-\\, TERM and HUP end the
 * session, and profil lets go of it.  --duration ends it too: an attached
 * process is let go of, a program profil started is stopped as
 * --until-settled stops it. */
static void run_plain_loop(struct session *s, struct clockdrv *d, const struct options *o,
                           struct control *ctl, bool own_session)
{
    double until_settled = o->until_settled;
    struct settle settle;
    settle_init(&settle);
    bool settled = false, timed_out = false;
    uint64_t stopped_at = 0;
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigset_t fwd, old_mask;
    sigemptyset(&fwd);
    sigaddset(&fwd, SIGTERM);
    sigaddset(&fwd, SIGHUP);
    if (d->attached || own_session) {
        sigaddset(&fwd, SIGINT);
        sigaddset(&fwd, SIGQUIT);
    } else {
        sigaction(SIGINT, &ign, &old_int);
        sigaction(SIGQUIT, &ign, &old_quit);
    }
    sigprocmask(SIG_BLOCK, &fwd, &old_mask);
    int sfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);
    for (;;) {
        struct pollfd pfd[2 + CONTROL_MAX_FDS] = {{d->fd, POLLIN, 0}, {sfd, POLLIN, 0}};
        size_t nctl = ctl != NULL ? control_fds(ctl, pfd + 2, CONTROL_MAX_FDS) : 0;
        if (sfd < 0) /* a place the poll skips */
            pfd[1].fd = -1;
        if (poll(pfd, 2 + nctl, RUN_TICK_MS) < 0 && errno != EINTR)
            break;
        if (nctl > 0) { /* --control, the program's profil_on/off: said on stderr when it matters */
            char msg[256] = "";
            if ((control_ready(ctl, pfd + 2, nctl, msg, sizeof msg) & CONTROL_SAY) && msg[0])
                fprintf(stderr, "profil: %s\n", msg);
        }
        bool detach = false;
        if (sfd >= 0 && (pfd[1].revents & POLLIN)) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (d->attached) {
                    fprintf(stderr, "profil: %s: detaching from process %d\n",
                            session_signal_name((int)si.ssi_signo), (int)d->pid);
                    detach = true;
                } else if (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT) {
                    /* Our terminal's Ctrl-C or Ctrl-\ for a program in a
                     * session of its own: to its process group, as the
                     * terminal would have sent it. */
                    if (!d->ended)
                        kill(-d->pid, (int)si.ssi_signo);
                } else if (clockdrv_stop(d, (int)si.ssi_signo)) {
                    fprintf(stderr,
                            "profil: %s again within %llu s: killing the program "
                            "(SIGKILL)\n",
                            si.ssi_signo == SIGHUP ? "SIGHUP" : "SIGTERM",
                            CLOCKDRV_ESCALATE_NS / 1000000000ull);
                }
            }
        }
        if (d->ops->drain(d, run_emit, s) == 1 || detach)
            break;
        session_debuginfo_poll(s); /* debug files fetched meanwhile, and what is said of them */
        uint64_t now = clockdrv_now_ns();
        if (o->duration > 0 && !timed_out && now - s->start_ns >= (uint64_t)(o->duration * 1e9)) {
            timed_out = true;
            if (d->attached) {
                fprintf(stderr, "profil: --duration %g s reached: detaching from process %d\n",
                        o->duration, (int)d->pid);
                break;
            }
            fprintf(stderr, "profil: --duration %g s reached: stopping the program\n", o->duration);
            clockdrv_stop(d, SIGTERM);
            stopped_at = now;
        }
        /* --until-settled: the ranking's top has stopped moving; stop the
         * program as a TERM would, and keep the session. */
        if (until_settled > 0 && !settled && !d->paused &&
            settle_update(&settle, s, (double)now / 1e9) >= until_settled) {
            settled = true;
            if (d->attached) {
                fprintf(stderr,
                        "profil: the top routines have kept their order for %.0f s "
                        "(--until-settled): detaching from process %d\n",
                        until_settled, (int)d->pid);
                break;
            }
            fprintf(stderr,
                    "profil: the top routines have kept their order for %.0f s "
                    "(--until-settled): stopping the program\n",
                    until_settled);
            clockdrv_stop(d, SIGTERM);
        }
        /* A program that ignores the TERM of --duration is killed after a grace. */
        if (stopped_at != 0 && now - stopped_at > RUN_STOP_GRACE_NS) {
            fprintf(stderr, "profil: the program ignored SIGTERM: killing it (SIGKILL)\n");
            clockdrv_stop(d, SIGKILL); /* within CLOCKDRV_ESCALATE_NS: SIGKILL */
            stopped_at = 0;
        }
    }
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (!d->attached && !own_session) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
    }
}

struct run_save {
    const char *program; /* the program's file: never saved over */
    char *name;          /* where the session goes (owned) */
    char *taken;         /* the name first meant, when another user had taken it (owned) */
    bool saved;          /* once this run has saved, NAME is its own: no more .old */
};

/* The 's' key, the end of the program and the end of profil: write the file
 * now.  The first save keeps a file left by an earlier run as NAME.old; in a
 * sticky directory it may choose another name, which later saves keep. */
static int run_save(void *arg, struct session *s, char **cause)
{
    struct run_save *rs = arg;
    uint8_t *data;
    size_t len;
    prf_write_buffer(s, &data, &len);
    bool kept;
    char *as = NULL;
    int r = save_write(rs->name, data, len, rs->saved ? 0 : SAVE_KEEP_OLD, &kept, &as, cause);
    free(data);
    if (r == 0) {
        rs->saved = true;
        if (strcmp(as, rs->name) != 0) {
            free(rs->taken);
            rs->taken = rs->name;
            rs->name = as;
        } else {
            free(as);
        }
    }
    if (kept)
        fprintf(stderr, "profil: kept the previous %s as %s.old\n", rs->name, rs->name);
    return r;
}

/* The live screen's hooks into the control channels. */
static size_t run_control_fds(void *arg, struct pollfd *pfd, size_t max)
{
    return control_fds(arg, pfd, max);
}

static int run_control_ready(void *arg, const struct pollfd *pfd, size_t n, char *msg, size_t size)
{
    return control_ready(arg, pfd, n, msg, size);
}

/* 'S' on the screen after a failed save: NAME from now on, if it saves. */
static int run_save_as(void *arg, struct session *s, const char *name, char **cause)
{
    struct run_save *rs = arg;
    if (launcher_same_file(name, rs->program)) {
        *cause = xasprintf("%s: that is the program: not saved over it", name);
        return -1;
    }
    char *was = rs->name;
    bool saved = rs->saved;
    rs->name = xstrdup(name);
    rs->saved = false; /* a file already there is kept as NAME.old */
    if (run_save(arg, s, cause) == 0) {
        free(was);
        return 0;
    }
    free(rs->name);
    rs->name = was;
    rs->saved = saved;
    return -1;
}

void launcher_debuginfo_progress(void *arg, const struct debuginfo_progress *p)
{
    static bool open_line; /* a terminal line is being rewritten */
    bool tty = isatty(STDERR_FILENO);
    if (p->state == DEBUGINFO_DOWNLOADING) {
        if (!tty)
            return;
        if (p->total > 0)
            fprintf(stderr, "\rprofil: downloading debug info for %s from debuginfod: %ld%%",
                    quote(p->name), p->done * 100 / p->total);
        else
            fprintf(stderr, "\rprofil: downloading debug info for %s from debuginfod...",
                    quote(p->name));
        open_line = true;
    } else {
        if (open_line)
            fputs("\r\033[K", stderr);
        open_line = false;
        if (p->found)
            fprintf(stderr, "profil: downloading debug info for %s from debuginfod: 100%%\n",
                    quote(p->name));
        else if (p->error != NULL)
            fprintf(stderr, "profil: no debug info for %s from debuginfod: %s\n", quote(p->name),
                    quote(p->error));
    }
    fflush(stderr);
}

/* The session could not be written as NAME (a full disk, a name taken in a
 * shared directory): save it under NAME's file name in the first place that
 * takes it, replacing nothing there: $XDG_STATE_HOME/profil, else
 * ~/.local/state/profil, else $TMPDIR, else /tmp.  0 with *WHERE (owned),
 * or -1 with *CAUSE (owned) the last place's failure. */
static int run_fallback(struct session *s, const char *name, char **where, char **cause)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    const char *tmpdir = getenv("TMPDIR");
    char *dirs[4];
    size_t n = 0;
    if (state != NULL && state[0] == '/')
        dirs[n++] = xasprintf("%s/profil", state);
    if (home != NULL && home[0] == '/')
        dirs[n++] = xasprintf("%s/.local/state/profil", home);
    if (tmpdir != NULL && tmpdir[0] == '/')
        dirs[n++] = xstrdup(tmpdir);
    dirs[n++] = xstrdup("/tmp");
    size_t states = (state != NULL && state[0] == '/') + (home != NULL && home[0] == '/');
    uint8_t *data;
    size_t len;
    prf_write_buffer(s, &data, &len);
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    int r = -1;
    for (size_t i = 0; i < n; i++) {
        if (r < 0) {
            if (i < states)
                files_mkdirs(dirs[i]);
            char *path = xasprintf("%s/%s", dirs[i], base);
            bool kept;
            free(*cause);
            *cause = NULL;
            r = save_write(path, data, len, SAVE_NEW, &kept, where, cause);
            free(path);
        }
        free(dirs[i]);
    }
    free(data);
    return r < 0 ? -1 : 0;
}

/* Say where the session went and how many samples it holds, with WHY
 * (may be NULL) at the end of the line. */
static void run_say_written(const struct session *s, const char *where, const char *why)
{
    struct counters run = session_run_counters(s); /* a clear, a window, a filter kept them */
    if (run.lost > 0)
        fprintf(stderr, "profil: %llu samples (%llu lost, %.2f%% of the ticks) written to %s%s\n",
                (unsigned long long)run.total, (unsigned long long)run.lost, report_lost_pct(&run),
                where, why ? why : "");
    else
        fprintf(stderr, "profil: %llu samples (0 lost) written to %s%s\n",
                (unsigned long long)run.total, where, why ? why : "");
}

/* The title line of the screen: the program and its parameters. */
static char *run_title(const struct session *s)
{
    char *t = xstrdup(s->program);
    for (size_t i = 0; i < s->nargs; i++) {
        char *n = xasprintf("%s %s", t, s->args[i]);
        free(t);
        t = n;
    }
    return t;
}

/* The run is over: wait for debug files still coming, say how it ended,
 * save it (elsewhere when that fails), and print the report when there was
 * no screen.  Returns the exit status. */
static int run_finish(struct session *s, struct run_save *rs, bool screen)
{
    char *cause = NULL;
    run_wait_debuginfo(s);
    char msg[160];
    printf("%s\n", report_termination(s, msg, sizeof msg));
    fflush(stdout);
    bool failed = run_save(rs, s, &cause) < 0;
    if (failed) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        cause = NULL;
    } else {
        char *why = rs->taken != NULL ? xasprintf(" (%s was taken)", rs->taken) : NULL;
        run_say_written(s, rs->name, why);
        free(why);
    }
    /* The report first: it is the run, whatever becomes of the file. */
    if (!screen)
        report_text(s, NULL, stdout, 20);
    fflush(stdout);
    int status = run_status(s);
    if (failed) {
        char *where = NULL;
        if (run_fallback(s, rs->name, &where, &cause) == 0) {
            char *why = xasprintf(" instead of %s", rs->name);
            run_say_written(s, where, why);
            free(why);
            free(where);
        } else {
            fprintf(stderr,
                    "profil: %s: nowhere else could take the session either: this run "
                    "is not saved\n",
                    cause);
            free(cause);
        }
        status = 1;
    }
    return status;
}

/* The live screen over S and D until q (the program's terminal MASTER, which
 * it closes): 0, or -1 after one line; *TITLE is the caller's to free. */
static int run_screen(struct session *s, struct clockdrv *d, const struct options *o, int master,
                      struct run_save *rs, struct control *ctl, char **title)
{
    *title = run_title(s);
    struct tui_config tc = {.delay_ms = o->delay ? o->delay * 100 : 100,
                            .title = *title,
                            .save = run_save,
                            .save_as = run_save_as,
                            .save_arg = rs,
                            .until_settled = o->until_settled,
                            .duration = o->duration,
                            .baseline = o->baseline_session,
                            .baseline_name = o->baseline,
                            .watch_fds = ctl != NULL ? run_control_fds : NULL,
                            .watch_ready = run_control_ready,
                            .watch_arg = ctl};
    char *cause = NULL;
    if (tui_run_live(s, d, master, &tc, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        return -1;
    }
    return 0;
}

int launcher_run(struct session *s, const struct options *o, const char *path, const struct args *a,
                 const char *output)
{
    struct clockdrv_config cfg = {s->interval_us, o->clock, !o->no_stacks,
                                  o->stack_size ? o->stack_size : USTACK_DEFAULT,
                                  o->no_jitter ? 0 : CLOCKDRV_JITTER};
    const struct clockdrv_ops *ops = run_driver(o, &cfg);
    if (ops == NULL)
        return 1;
    /* The ptrace driver samples on profil's own thread: open the debug
     * information of the program and its libraries before the clock starts,
     * not in its first ticks.  The perf driver's samples wait in its rings
     * (a copier thread empties them): the program starts at once, and each
     * module's debug information is read when its first PC is looked up
     * (libc's, compressed, takes 20 ms to open: /bin/true ran in a fifth of
     * the time). */
    if (strcmp(ops->name, "ptrace") == 0) {
        lines_open(s, 0);
        if (!o->no_stacks || !o->no_inline)
            launcher_open_libraries(s, s->modules[0]->path);
    }
    bool screen = !o->no_tui && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    bool attach = o->attach_pid > 0; /* no terminal to give: it has its own */

    char **argv = xcalloc(a->argc + 2, sizeof *argv);
    argv[0] = (char *)o->target;
    for (size_t i = 0; i < a->argc; i++)
        argv[i + 1] = a->argv[i];
    struct launch l = {.path = path,
                       .argv = argv,
                       .stdin_path = a->stdin_path,
                       .stdout_path = a->stdout_path,
                       .stdout_append = a->stdout_append,
                       .stderr_path = a->stderr_path,
                       .tty_fd = -1};
    int master = -1, slave = -1, status = 1;
    char **envp = NULL;
    struct run_save rs = {path, NULL, NULL, false};
    char *cause = NULL, *title = NULL, *note = NULL;
    /* --control's FIFO, and the program's own channel (PROFIL_CONTROL, in
     * the environment it inherits): made before it starts. */
    struct control *ctl = control_open(o->control, &cause);
    if (ctl == NULL) {
        fprintf(stderr, "profil: %s%s\n", quote(cause),
                o->control != NULL ? "" : ": profil_on() and profil_off() will do nothing");
        free(cause);
        cause = NULL;
        if (o->control != NULL)
            goto out;
    }
    envp = run_environ(ctl);
    l.envp = envp;
    if (screen && !attach) {
        struct winsize ws;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0)
            ws = (struct winsize){.ws_row = 24, .ws_col = 80};
        if (openpty(&master, &slave, NULL, NULL, &ws) < 0) {
            fprintf(stderr, "profil: cannot open a terminal for the program: %s\n",
                    strerror(errno));
            goto out;
        }
        fcntl(master, F_SETFD, FD_CLOEXEC);
        l.tty_fd = slave;
    } else if (!attach) {
        /* Its input not a terminal, it needs none of ours (struct launch). */
        l.own_session = l.stdin_path != NULL || !isatty(STDIN_FILENO);
    }
    free(s->driver);
    s->driver = xstrdup(ops->name);
    s->clock = o->clock;
    s->jitter_pct = cfg.jitter * 100;
    s->jitter_known = true;
    s->start_time = (int64_t)time(NULL);
    if (attach)
        s->attached_at = s->start_time;
    if (!screen && !attach)
        fprintf(stderr, "profil: sampling every %u us with the %s driver, %s clock\n",
                s->interval_us, ops->name, o->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
    fflush(NULL); /* nothing buffered may reach the program's output twice */
    s->start_ns = clockdrv_now_ns();
    run_started = 1;
    struct clockdrv *d =
        attach ? ops->attach(&cfg, (pid_t)o->attach_pid, &cause) : ops->start(&cfg, &l, &cause);
    if (slave >= 0)
        close(slave);
    if (d == NULL) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        goto out;
    }
    if (o->start_paused) { /* from the exec on: what ticked before the pause is dropped */
        clockdrv_pause(d, true);
        s->live.sample_from_ns = clockdrv_now_ns();
    }
    if (!screen && attach) /* said once it is so: a refusal is the only line */
        fprintf(stderr,
                "profil: attached to process %ld, sampling every %u us with the %s "
                "driver, %s clock\n",
                o->attach_pid, s->interval_us, ops->name,
                o->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
    note = d->note != NULL ? xstrdup(d->note) : NULL; /* what was said at the start */
    if (d->note != NULL && !screen)
        fprintf(stderr, "profil: %s\n", d->note);
    s->pid = (uint32_t)d->pid;
    threads_first(s, s->pid, s->start_ns);
    rs.name = o->output == NULL && getenv("PROFDIR") != NULL && *getenv("PROFDIR") != '\0'
                  ? launcher_output_name(o, path, (long)s->pid)
                  : xstrdup(output);
    if (ctl != NULL)
        control_bind(ctl, d, s, run_save, &rs);
    if (screen) {
        int r = run_screen(s, d, o, master, &rs, ctl, &title);
        master = -1; /* the screen closed it */
        if (r < 0) {
            d->ops->free(d);
            goto out;
        }
        if (d->note != NULL)
            fprintf(stderr, "profil: %s\n", d->note);
    } else {
        run_plain_loop(s, d, o, ctl, l.own_session);
        s->duration_s = (double)(clockdrv_now_ns() - s->start_ns) / 1e9;
        if (d->note != NULL && (note == NULL || strcmp(note, d->note) != 0))
            fprintf(stderr, "profil: %s\n", d->note);
    }
    s->max_threads = d->max_threads;
    if (d->attached && (!d->ended || d->exit_unknown || d->released))
        session_set_detached_end(s, d->ended && !d->released);
    else
        session_set_exit(s, d->wstatus);
    if (screen && d->attached && !d->ended)
        s->duration_s = (double)(clockdrv_now_ns() - s->start_ns) / 1e9; /* q: detached */
    d->ops->free(d);

    status = run_finish(s, &rs, screen);
out:
    control_free(ctl);
    if (master >= 0)
        close(master);
    free(note);
    free(title);
    free(rs.name);
    free(rs.taken);
    free(argv);
    free(envp);
    return status;
}
