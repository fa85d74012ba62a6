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
    if (t->s->view.c.total != t->seen_total || t->s->view.c.lost != t->seen_lost) {
        t->seen_total = t->s->view.c.total;
        t->seen_lost = t->s->view.c.lost;
        t->dirty = true;
    }
    if (t->d->ended && !was_ended)
        tui_ended(t);
}

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

/* What the loop waits on besides the screen: signals by signalfd, the
 * refresh tick by timerfd; and what it puts back when it ends. */
struct tui_loop {
    int sfd;
    int tfd;
    uint32_t delay; /* ms from one refresh tick to the next (--delay) */
    sigset_t old;   /* the signal mask before the loop blocked its own */
    debuginfo_progress_fn *old_progress;
    void *old_progress_arg;
};

/* Where the descriptors every turn waits on sit in a turn's pollfds. */
enum { TUI_POLL_KEYS, TUI_POLL_SIGNALS, TUI_POLL_TICK };

/* The descriptors one turn waits on: the keys, the signals and the tick,
 * then the driver's while a program runs, the program's pty while it is
 * open, and what the caller watches (the control FIFO); -1 where absent. */
struct tui_polled {
    struct pollfd pfd[5 + TUI_WATCH_MAX];
    int n;
    int i_drv;
    int i_pty;
    int i_watch;
    int n_watch;
};

/* Close the loop's descriptors and put the signal mask back as it was. */
static void tui_loop_close(struct tui_loop *l)
{
    if (l->sfd >= 0)
        close(l->sfd);
    if (l->tfd >= 0)
        close(l->tfd);
    sigprocmask(SIG_SETMASK, &l->old, NULL);
}

/* Take the signals the loop reads (blocked, by a signalfd) and start the
 * refresh tick, every DELAY ms: 0, or -1 with *cause and nothing kept. */
static int tui_loop_open(struct tui_loop *l, uint32_t delay, char **cause)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGWINCH);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, &l->old);
    l->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    l->delay = delay;
    struct itimerspec its = {{delay / 1000, (long)(delay % 1000) * 1000000},
                             {delay / 1000, (long)(delay % 1000) * 1000000}};
    if (l->sfd < 0 || l->tfd < 0 || timerfd_settime(l->tfd, 0, &its, NULL) < 0) {
        *cause = xasprintf("cannot set up the event loop: %s", strerror(errno));
        tui_loop_close(l);
        return -1;
    }
    return 0;
}

/* The screen once curses is up (COLORS: screen_start's answer): the views'
 * states, the first layout and draw, and debuginfod's progress said on the
 * status line (the one it replaces kept in L). */
static void tui_open(struct tui *t, int colors, struct tui_loop *l)
{
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
    debuginfo_set_progress(tui_debuginfo_progress, t, &l->old_progress, &l->old_progress_arg);
}

/* Undo tui_open and give the terminal back; the program's pty is closed. */
static void tui_close(struct tui *t, struct tui_loop *l)
{
    for (int i = 0; i < NVIEWS; i++) {
        if (t->win[i] != NULL)
            delwin(t->win[i]);
        tui_views[i]->destroy(t->state[i]);
    }
    if (t->help_win != NULL)
        delwin(t->help_win);
    view_help_ops.destroy(t->help_state);
    debuginfo_set_progress(l->old_progress, l->old_progress_arg, NULL, NULL);
    screen_stop();
    outbuf_free(t->out);
    if (t->pty >= 0)
        close(t->pty);
}

/* Fill P with what this turn waits on. */
static void tui_poll_fill(struct tui *t, const struct tui_loop *l, struct tui_polled *p)
{
    p->n = 0;
    p->i_drv = p->i_pty = -1;
    p->n_watch = 0;
    p->pfd[p->n++] = (struct pollfd){STDIN_FILENO, POLLIN, 0};
    p->pfd[p->n++] = (struct pollfd){l->sfd, POLLIN, 0};
    p->pfd[p->n++] = (struct pollfd){l->tfd, POLLIN, 0};
    if (tui_live(t)) {
        p->i_drv = p->n;
        p->pfd[p->n++] = (struct pollfd){t->d->fd, POLLIN, 0};
    }
    if (t->pty >= 0) {
        p->i_pty = p->n;
        p->pfd[p->n++] = (struct pollfd){t->pty, POLLIN, 0};
    }
    p->i_watch = p->n;
    if (t->cfg->watch_fds != NULL)
        p->n_watch = (int)t->cfg->watch_fds(t->cfg->watch_arg, p->pfd + p->n, TUI_WATCH_MAX);
    p->n += p->n_watch;
}

/* The signals that came: a resize; with nothing running, any other ends
 * profil; INT and QUIT go on to the program; TERM and HUP stop it, the
 * session kept. */
static void tui_signals(struct tui *t, int sfd)
{
    struct clockdrv *d = t->d;
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

/* The caller's N watched descriptors (the control FIFO) are ready: what
 * they did shows, and what they say is the message. */
static void tui_watched(struct tui *t, struct pollfd *pfd, int n)
{
    char msg[160] = "";
    if (t->cfg->watch_ready(t->cfg->watch_arg, pfd, (size_t)n, msg, sizeof msg) != 0) {
        t->dirty = true;
        if (msg[0])
            tui_status(t, "%s", msg);
    }
}

/* What time alone does, at NOW: --duration's end, the kill when a stopped
 * program outlives its grace, a redraw for the clock, a message's going. */
static void tui_timers(struct tui *t, uint64_t now)
{
    struct clockdrv *d = t->d;
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
}

/* One turn of the loop: wait for anything; take in the signals, the
 * program's output, the driver's samples, debug files come, the replay's
 * next frames, the watched descriptors, the keys, and what time does; lay
 * out and draw when something changed.  False when poll() failed. */
static bool tui_turn(struct tui *t, const struct tui_loop *l)
{
    struct clockdrv *d = t->d;
    struct tui_polled p;
    tui_poll_fill(t, l, &p);
    if (poll(p.pfd, (nfds_t)p.n, -1) < 0 && errno != EINTR)
        return false;
    if (p.pfd[TUI_POLL_SIGNALS].revents & POLLIN)
        tui_signals(t, l->sfd);
    if (p.i_pty >= 0 && (p.pfd[p.i_pty].revents & (POLLIN | POLLHUP | POLLERR)))
        tui_read_pty(t);
    bool tick = false;
    if (p.pfd[TUI_POLL_TICK].revents & POLLIN) {
        uint64_t expirations;
        tick = read(l->tfd, &expirations, sizeof expirations) > 0;
    }
    bool busy = p.i_drv >= 0 && (p.pfd[p.i_drv].revents & POLLIN); /* samples wait */
    if (d != NULL && (tick || busy))
        tui_drain(t);
    if (d != NULL && tick && session_debuginfo_poll(t->s))
        t->dirty = true; /* a debug file came: names */
    if (t->replay != NULL && tick)
        tui_replay_tick(t, l->delay);
    if (p.n_watch > 0)
        tui_watched(t, p.pfd + p.i_watch, p.n_watch);
    if (p.pfd[TUI_POLL_KEYS].revents & POLLIN) {
        int ch;
        while ((ch = getch()) != ERR)
            tui_key(t, ch);
    }
    uint64_t now = clockdrv_now_ns();
    tui_timers(t, now);
    if (t->relayout) {
        tui_layout(t);
        t->relayout = false;
    }
    if (t->dirty && (tick || !busy || now - t->last_draw > (uint64_t)l->delay * 1000000ull / 2))
        tui_draw(t);
    return true;
}

/* The loop both the live screen and the replay run: until q (or a signal),
 * or until poll() fails. */
static int tui_run(struct tui *t, char **cause)
{
    struct tui_loop l;
    if (tui_loop_open(&l, t->cfg->delay_ms ? t->cfg->delay_ms : 100, cause) < 0)
        return -1;
    int colors = screen_start();
    if (colors < 0) {
        *cause = xstrdup("cannot start the screen: is TERM set?");
        tui_loop_close(&l);
        return -1;
    }
    tui_open(t, colors, &l);
    while (!t->quit) {
        if (!tui_turn(t, &l))
            break;
    }
    tui_close(t, &l);
    tui_loop_close(&l);
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
