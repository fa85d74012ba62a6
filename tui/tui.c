/*
 * The live screen's one loop (redis's ae.c is the small model): drain the
 * clock driver into the session, read the program's pty, dispatch keys to the
 * focused view, act on the view's reaction flags, and redraw at most once per
 * refresh tick, only when something changed.  Signals arrive by signalfd.
 */
#include "config.h"

#include "elf/debuginfo.h"
#include "prf/replay.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/stacks.h"
#include "tui/bars.h"
#include "tui/keys.h"
#include "tui/screen.h"
#include "tui/state.h"
#include "tui/tui.h"
#include "util/xmalloc.h"
#include "views/outbuf.h"
#include "views/view.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define STOP_GRACE_NS 2000000000ull

static void tui_emit(void *arg, const struct event *ev)
{
    session_ingest(arg, ev);
}

static void tui_layout(struct tui *t)
{
    getmaxyx(stdscr, t->rows, t->cols);
    for (int i = 0; i < NVIEWS; i++) {
        if (t->win[i] != NULL)
            delwin(t->win[i]);
        t->win[i] = NULL;
        t->place[i] = (struct place){0};
    }
    if (t->help_win != NULL)
        delwin(t->help_win);
    t->help_win = NULL;
    int top = HEADER_ROWS, main_h = t->rows - HEADER_ROWS - 1;
    /* A message takes the views' last row while it shows, so that the keys
     * below stay whole (tui_draw_status); not where that leaves too little. */
    t->msg_row = t->status[0] != '\0' && main_h - 1 >= 3;
    int pty_h = main_h;
    main_h -= t->msg_row;
    if (main_h < 3 || t->cols < 20)
        return; /* too small: the header says so */
    if (t->mode ==
        MODE_HELP) { /* every key, scrolled when it does not fit: the header's rows too */
        t->help_win = newwin(t->rows - 1 - t->msg_row, t->cols, 0, 0);
        return;
    }
    if (tui_wide(t) && (t->current == V_HISTOGRAM || t->current == V_FUNCTIONS)) {
        int tl = t->rows >= 32 ? 9 : 0;
        int half = t->cols / 2;
        t->place[V_HISTOGRAM] = (struct place){true, top, 0, main_h - tl, half};
        t->place[V_FUNCTIONS] = (struct place){true, top, half, main_h - tl, t->cols - half};
        if (tl > 0)
            t->place[V_TIMELINE] = (struct place){true, top + main_h - tl, 0, tl, t->cols};
    } else {
        t->place[t->current] = (struct place){true, top, 0, main_h, t->cols};
    }
    for (int i = 0; i < NVIEWS; i++) {
        if (t->place[i].shown)
            t->win[i] = newwin(t->place[i].h, t->place[i].w, t->place[i].y, t->place[i].x);
    }
    /* The program's terminal is as big as the area that shows its output
     * (without a message: the program is not resized for one). */
    if (t->pty >= 0) {
        struct winsize ws = {.ws_row = (unsigned short)pty_h, .ws_col = (unsigned short)t->cols};
        ioctl(t->pty, TIOCSWINSZ, &ws);
    }
}

static void tui_draw_once(struct tui *t);

/* Draw the screen: again, laid out anew, when a message came or went (a
 * view's own, said while it drew, included). */
static void tui_draw(struct tui *t)
{
    for (int pass = 0; pass < 2; pass++) {
        bool msg = t->status[0] != '\0';
        if (msg != t->msg_row && (!msg || t->rows - HEADER_ROWS - 2 >= 3))
            tui_layout(t);
        tui_draw_once(t);
        if ((t->status[0] != '\0') == msg)
            break;
    }
    doupdate();
    t->dirty = false;
    t->last_draw = clockdrv_now_ns();
}

static void tui_draw_once(struct tui *t)
{
    session_totals(t->s); /* the ranking, and Total where there are stacks */
    erase();
    tui_draw_header(t);
    tui_draw_status(t);
    wnoutrefresh(stdscr);
    if (t->mode == MODE_HELP && t->help_win != NULL) {
        struct view_ctx ctx;
        tui_ctx(t, &ctx, -1);
        werase(t->help_win);
        view_help_ops.draw(t->help_state, t->help_win, &ctx);
        wnoutrefresh(t->help_win);
    }
    for (int i = 0; i < NVIEWS; i++) {
        if (t->win[i] == NULL)
            continue;
        struct view_ctx ctx;
        tui_ctx(t, &ctx, i);
        werase(t->win[i]);
        tui_views[i]->draw(t->state[i], t->win[i], &ctx);
        if (ctx.status[0])
            tui_status(t, "%s", ctx.status);
        wnoutrefresh(t->win[i]);
    }
    if (t->mode == MODE_SAVE_AS)
        move(t->rows - 1, 9 + draw_width(t->save_name));
    else if (t->mode == MODE_SEARCH || t->mode == MODE_GO_TO)
        move(t->rows - 1, (t->mode == MODE_GO_TO ? 17 : 8) + (int)strlen(t->search));
}

static void tui_read_pty(struct tui *t)
{
    char buf[8192];
    for (;;) {
        ssize_t n = read(t->pty, buf, sizeof buf);
        if (n > 0) {
            outbuf_feed(t->out, buf, (size_t)n);
            if (t->current == V_OUTPUT)
                t->dirty = true;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        /* EIO: every holder of the program's terminal is gone. */
        close(t->pty);
        t->pty = -1;
        return;
    }
}

static void tui_resize(struct tui *t)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
    t->relayout = t->dirty = true;
}

/* Play the replay on: SPEED frames of the session per 100 ms of real time. */
static void tui_replay_tick(struct tui *t, uint32_t delay_ms)
{
    if (!t->playing)
        return;
    t->frame_acc += t->speed * (double)delay_ms * 1e6 / (double)SESSION_FRAME_NS;
    size_t n = (size_t)t->frame_acc;
    if (n == 0)
        return;
    size_t pos = t->replay->pos;
    tui_replay_seek(t, pos + n);
    t->frame_acc = t->frame_acc - (double)n;
}

/* While the end of the run waits for debug files: q (or Ctrl-C, Esc) saves
 * without them. */
static bool tui_wait_given_up(void *arg)
{
    struct tui *t = arg;
    int ch;
    while ((ch = getch()) != ERR) {
        if (ch == 'q' || ch == 'Q' || ch == 3 || ch == 27)
            return true;
    }
    tui_status(t, "waiting for debug info from debuginfod before saving (q: save without it)");
    tui_draw_status(t);
    refresh();
    return false;
}

/* The program has ended, or an attached process was let go of: record the
 * end (the file saved next must say how it ended) and save. */
static void tui_ended(struct tui *t)
{
    t->dirty = true;
    if (t->mode == MODE_CONFIRM_QUIT) /* "Stop it and quit?": nothing runs to stop now */
        t->mode = MODE_NORMAL;
    if (t->d->released)
        session_set_detached_end(t->s, false); /* it runs on */
    else if (t->d->exit_unknown)
        session_set_detached_end(t->s, true);
    else
        session_set_exit(t->s, t->d->wstatus);
    t->s->max_threads = t->d->max_threads;
    t->s->duration_s = (double)(clockdrv_now_ns() - t->s->start_ns) / 1e9;
    if (t->stopping && t->stopped_by == NULL)
        t->quit = true; /* the user asked profil to end */
    else if (t->cfg->save != NULL && !t->saved_at_end) {
        char *cause = NULL;
        t->saved_at_end = true;
        /* The file gets the names of what is still being fetched, unless q. */
        const char *saved = session_debuginfo_wait(t->s, tui_wait_given_up, t)
                                ? "saved"
                                : "saved without the debug info still on its way";
        if (t->cfg->save(t->cfg->save_arg, t->s, &cause) < 0)
            tui_save_failed(t, cause);
        else if (t->d->released)
            tui_status(t, "stopped by %s: let go of process %d, which runs on; %s. q to quit",
                       t->stopped_by, (int)t->d->pid, saved);
        else if (t->stopped_by != NULL)
            tui_status(t, "stopped by %s: %s. q to quit", t->stopped_by, saved);
        else
            tui_status(t, "%s. q to quit", saved); /* the header says how it ended */
        free(cause);
    }
}

/* --duration or --until-settled on an attached process: what was gathered
 * is taken, the process let go of, and the screen stays, as at an end. */
static void tui_release(struct tui *t, const char *by)
{
    t->d->ops->drain(t->d, tui_emit, t->s);
    if (t->d->ended) {
        tui_ended(t); /* it ended on its own meanwhile */
        return;
    }
    clockdrv_release(t->d);
    t->stopped_by = by;
    tui_ended(t);
}

/* Drain the driver; note what changed. */
static void tui_drain(struct tui *t)
{
    bool was_ended = t->d->ended;
    if (!was_ended)
        t->d->ops->drain(t->d, tui_emit, t->s);
    if (!t->d->ended && !t->d->paused) {
        double settled = settle_update(&t->settle, t->s, (double)clockdrv_now_ns() / 1e9);
        if ((settled >= SETTLE_SECONDS) != (t->settled_for >= SETTLE_SECONDS))
            t->dirty = true;
        t->settled_for = settled;
        if (t->cfg->until_settled > 0 && settled >= t->cfg->until_settled && t->d->attached) {
            tui_release(t, "--until-settled");
            return;
        } else if (t->cfg->until_settled > 0 && settled >= t->cfg->until_settled && !t->stopping) {
            clockdrv_stop(t->d, SIGTERM); /* as the TERM key would: the session is kept */
            t->stopping = true;
            t->stopped_by = "--until-settled";
            t->stop_at = clockdrv_now_ns();
            tui_status(t, "settled: stopping the program...");
        }
    }
    if (t->s->c.total != t->seen_total || t->s->c.lost != t->seen_lost) {
        t->seen_total = t->s->c.total;
        t->seen_lost = t->s->c.lost;
        t->dirty = true;
    }
    if (t->d->ended && !was_ended)
        tui_ended(t);
}

/* The loop both the live screen and the replay run. */
/* A debug file downloads while the screen is up (a library first sampled
 * needs its names): say so in the status line, drawn now, since the loop
 * waits for the download. */
static void tui_debuginfo_progress(void *arg, const struct debuginfo_progress *p)
{
    struct tui *t = arg;
    if (p->state == DEBUGINFO_DOWNLOADING && p->total > 0)
        tui_status(t, "downloading debug info for %s from debuginfod: %ld%%", p->name,
                   p->done * 100 / p->total);
    else if (p->state == DEBUGINFO_DOWNLOADING)
        tui_status(t, "downloading debug info for %s from debuginfod...", p->name);
    else if (p->found)
        tui_status(t, "downloaded debug info for %s from debuginfod", p->name);
    else if (p->error != NULL)
        tui_status(t, "no debug info for %s from debuginfod: %s", p->name, p->error);
    else
        tui_status(t, "debuginfod has no debug info for %s", p->name);
    tui_draw_status(t);
    refresh();
}

static int tui_run(struct tui *t0, char **cause)
{
    sigset_t mask, old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGWINCH);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, &old);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    uint32_t delay = t0->cfg->delay_ms ? t0->cfg->delay_ms : 100;
    struct itimerspec its = {{delay / 1000, (long)(delay % 1000) * 1000000},
                             {delay / 1000, (long)(delay % 1000) * 1000000}};
    if (sfd < 0 || tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0) {
        *cause = xasprintf("cannot set up the event loop: %s", strerror(errno));
        if (sfd >= 0)
            close(sfd);
        if (tfd >= 0)
            close(tfd);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    int colors = screen_start();
    if (colors < 0) {
        *cause = xstrdup("cannot start the screen: is TERM set?");
        close(sfd);
        close(tfd);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    struct tui *t = t0;
    struct clockdrv *d = t->d;
    t->colors = colors == 1;
    t->out = t->pty >= 0 ? outbuf_new(10000) : NULL;
    for (int i = 0; i < NVIEWS; i++)
        t->state[i] = tui_views[i]->create();
    t->help_state = view_help_ops.create();
    if (t->pty >= 0)
        fcntl(t->pty, F_SETFL, fcntl(t->pty, F_GETFL) | O_NONBLOCK);
    t->rate_at = clockdrv_now_ns();
    tui_layout(t);
    tui_draw(t); /* at once: the first refresh tick is a whole delay away */
    debuginfo_progress_fn *old_progress;
    void *old_progress_arg;
    debuginfo_set_progress(tui_debuginfo_progress, t, &old_progress, &old_progress_arg);

    while (!t->quit) {
        struct pollfd pfd[5 + TUI_WATCH_MAX];
        int n = 0, i_drv = -1, i_pty = -1, i_watch, n_watch = 0;
        pfd[n++] = (struct pollfd){STDIN_FILENO, POLLIN, 0};
        pfd[n++] = (struct pollfd){sfd, POLLIN, 0};
        pfd[n++] = (struct pollfd){tfd, POLLIN, 0};
        if (tui_live(t)) {
            i_drv = n;
            pfd[n++] = (struct pollfd){d->fd, POLLIN, 0};
        }
        if (t->pty >= 0) {
            i_pty = n;
            pfd[n++] = (struct pollfd){t->pty, POLLIN, 0};
        }
        i_watch = n;
        if (t->cfg->watch_fds != NULL)
            n_watch = (int)t->cfg->watch_fds(t->cfg->watch_arg, pfd + n, TUI_WATCH_MAX);
        n += n_watch;
        if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR)
            break;
        if (pfd[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo == SIGWINCH) {
                    tui_resize(t);
                } else if (!tui_live(t) || d->attached) {
                    t->quit = true; /* nothing runs: a signal to profil ends it */
                } else if (si.ssi_signo == SIGINT || si.ssi_signo == SIGQUIT) {
                    kill(d->pid, (int)si.ssi_signo);
                } else { /* TERM, HUP: stop the program, keep the session */
                    if (clockdrv_stop(d, (int)si.ssi_signo))
                        tui_status(t, "%s again: the program was killed (SIGKILL)",
                                   si.ssi_signo == SIGHUP ? "SIGHUP" : "SIGTERM");
                    if (!t->stopping)
                        t->stop_at = clockdrv_now_ns();
                    t->stopping = true;
                }
            }
        }
        if (i_pty >= 0 && (pfd[i_pty].revents & (POLLIN | POLLHUP | POLLERR)))
            tui_read_pty(t);
        bool tick = false;
        if (pfd[2].revents & POLLIN) {
            uint64_t expirations;
            tick = read(tfd, &expirations, sizeof expirations) > 0;
        }
        if (d != NULL && (tick || (i_drv >= 0 && (pfd[i_drv].revents & POLLIN))))
            tui_drain(t);
        if (d != NULL && tick && session_debuginfo_poll(t->s))
            t->dirty = true; /* a debug file came: names */
        if (t->replay != NULL && tick)
            tui_replay_tick(t, delay);
        if (n_watch > 0) {
            char msg[160] = "";
            if (t->cfg->watch_ready(t->cfg->watch_arg, pfd + i_watch, (size_t)n_watch, msg,
                                    sizeof msg) != 0) {
                t->dirty = true;
                if (msg[0])
                    tui_status(t, "%s", msg);
            }
        }
        if (pfd[0].revents & POLLIN) {
            int ch;
            while ((ch = getch()) != ERR)
                tui_key(t, ch);
        }
        uint64_t now = clockdrv_now_ns();
        if (t->cfg->duration > 0 && tui_live(t) && !t->stopping &&
            now - t->s->start_ns >= (uint64_t)(t->cfg->duration * 1e9)) {
            if (d->attached) {
                tui_release(t, "--duration");
            } else {
                clockdrv_stop(d, SIGTERM); /* as --until-settled does */
                t->stopping = true;
                t->stopped_by = "--duration";
                t->stop_at = now;
                tui_status(t, "--duration reached: stopping the program...");
            }
        }
        if (t->stopping && tui_live(t) && !d->attached && now - t->stop_at > STOP_GRACE_NS)
            kill(d->pid, SIGKILL);
        if (tui_live(t) && now - t->rate_at >= 500000000ull) {
            t->rate_at = now;
            t->dirty = true; /* the elapsed time and the rate moved */
        }
        /* A message set above, after NOW was read, is newer than NOW. */
        if (t->status[0] && now > t->status_at && now - t->status_at > 5000000000ull &&
            t->mode != MODE_CONFIRM_QUIT) {
            t->status[0] = '\0';
            t->dirty = true;
        }
        if (t->relayout) {
            tui_layout(t);
            t->relayout = false;
        }
        bool busy = i_drv >= 0 && (pfd[i_drv].revents & POLLIN);
        if (t->dirty && (tick || !busy || now - t->last_draw > (uint64_t)delay * 1000000ull / 2))
            tui_draw(t);
    }

    for (int i = 0; i < NVIEWS; i++) {
        if (t->win[i] != NULL)
            delwin(t->win[i]);
        tui_views[i]->destroy(t->state[i]);
    }
    if (t->help_win != NULL)
        delwin(t->help_win);
    view_help_ops.destroy(t->help_state);
    debuginfo_set_progress(old_progress, old_progress_arg, NULL, NULL);
    screen_stop();
    outbuf_free(t->out);
    if (t->pty >= 0)
        close(t->pty);
    close(sfd);
    close(tfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 0;
}

int tui_run_live(struct session *s, struct clockdrv *d, int pty, const struct tui_config *cfg,
                 char **cause)
{
    struct tui t = {.s = s, .d = d, .cfg = cfg, .pty = pty};
    settle_init(&t.settle);
    return tui_run(&t, cause);
}

int tui_run_replay(struct replay *r, const struct tui_config *cfg, char **cause)
{
    struct tui t = {.s = r->now, .replay = r, .cfg = cfg, .pty = -1, .speed = 1, .playing = true};
    return tui_run(&t, cause);
}
