/*
 * The live screen's one loop (redis's ae.c is the small model): drain the
 * clock driver into the session, read the program's pty, dispatch keys to the
 * focused view, act on the view's reaction flags, and redraw at most once per
 * refresh tick, only when something changed.  Signals arrive by signalfd.
 */
#include "config.h"

#include "elf/debuginfo.h"
#include "prf/replay.h"
#include "report/report.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "session/view.h"
#include "tui/keys.h"
#include "tui/screen.h"
#include "tui/state.h"
#include "tui/tui.h"
#include "util/pct.h"
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

#define HEADER_ROWS   4
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

/* A replay speed as people say it: "2×", "1/16×" ("x" outside UTF-8). */
static const char *tui_speed(double speed, char *buf, size_t size)
{
    const char *times = draw_utf8() ? "\xc3\x97" : "x";
    if (speed >= 1)
        snprintf(buf, size, "%g%s", speed, times);
    else
        snprintf(buf, size, "1/%g%s", 1 / speed, times);
    return buf;
}

static const char *tui_state(const struct tui *t, char *buf, size_t size)
{
    if (t->replay != NULL) {
        const struct replay *r = t->replay;
        if (r->pos >= r->nframes) {
            char end[128];
            snprintf(buf, size, "replay end: %s", report_termination(r->file, end, sizeof end));
        } else {
            char sp[32];
            snprintf(buf, size, "replay %s %s", t->playing ? "playing" : "paused",
                     tui_speed(t->speed, sp, sizeof sp));
        }
        return buf;
    }
    if (t->d->ended)
        return report_termination(t->s, buf, size); /* tui_drain recorded the end */
    if (t->stopping)
        return "stopping the program...";
    if (t->d->paused)
        return "paused";
    if (t->settled_for >= SETTLE_SECONDS) {
        snprintf(buf, size, "running, settled %.0f s", t->settled_for);
        return buf;
    }
    return "running";
}

/* Samples per second over the second of the session before frame UPTO (the
 * frames the timeline holds, so live and replay measure alike); -1 before a
 * whole frame has passed. */
static double tui_rate(const struct session *s, size_t upto)
{
    size_t first = upto > 10 ? upto - 10 : 0;
    if (upto == 0)
        return -1;
    uint64_t sum = session_frames_samples(s, first, upto); /* the filter's threads' */
    return (double)sum / ((double)(upto - first) * (double)SESSION_FRAME_NS / 1e9);
}

/* Under a time window, its samples per second, over as much of it as the
 * run has reached (a replay may not have come to its end); else -1. */
static double tui_window_rate(const struct session *s)
{
    size_t to = s->view.win_to < s->nframes ? s->view.win_to : s->nframes;
    if (!s->view.window || to <= s->view.win_from)
        return -1;
    return (double)s->view.c.total /
           ((double)(to - s->view.win_from) * (double)SESSION_FRAME_NS / 1e9);
}

/* One fact of the header, and how long it stays when room runs out. */
struct tui_field {
    char text[96];
    char alt[96]; /* a shorter one, where text does not fit (empty: none) */
    int keep;     /* higher stays longer */
};

/* Lay FIELDS out in WIDTH columns, two blanks apart: the ones kept longest
 * first, in their shorter words where the longer do not fit, the rest
 * dropped whole rather than run into each other. */
static void tui_fields(char *out, size_t size, const struct tui_field *f, size_t n, int width)
{
    const char *shown[16] = {NULL};
    int used = 0;
    for (int keep = 9; keep >= 0; keep--) {
        for (size_t i = 0; i < n && i < 16; i++) {
            const char *text = f[i].text;
            int sep = used ? 2 : 0, w = draw_width(text);
            if (used + w + sep > width && f[i].alt[0] != '\0') {
                text = f[i].alt;
                w = draw_width(text);
            }
            if (f[i].keep != keep || text[0] == '\0' || used + w + sep > width)
                continue;
            shown[i] = text;
            used += w + sep;
        }
    }
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && i < 16; i++) {
        if (shown[i] != NULL)
            len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", len ? "  " : "",
                                    shown[i]);
    }
}

/* The facts every mode shares: samples and their rate, lost and preempted ticks. */
static size_t tui_counts(const struct session *s, double rate, bool average, struct tui_field *f)
{
    size_t n = 0;
    uint64_t want = report_samples_wanted(s);
    if (want > 0) { /* the report's "Too few samples to rely on" */
        snprintf(f[n].text, sizeof f[n].text, "too few samples: ~%llu for +-1",
                 (unsigned long long)want);
        f[n++].keep = 5;
    }
    char r[40] = "";
    if (rate >= 0)
        snprintf(r, sizeof r, " (%.0f/s%s)", rate, average ? " avg" : "");
    snprintf(f[n].text, sizeof f[n].text, "samples %llu%s", (unsigned long long)s->view.c.total, r);
    f[n++].keep = 9;
    /* Lost: a share of the ticks the clock took (the report's); preempted: of
     * all the ticks that came due, sampled, lost or preempted. */
    uint64_t due = s->view.c.total + s->view.c.lost + s->view.c.preempted;
    if (s->view.c.lost > 0)
        snprintf(f[n].text, sizeof f[n].text, "lost %llu (%.1f%%)",
                 (unsigned long long)s->view.c.lost, report_lost_pct(&s->view.c));
    else
        snprintf(f[n].text, sizeof f[n].text, "lost 0");
    f[n++].keep = s->view.c.lost > 0 ? 8 : 0;
    if (s->view.c.preempted > 0) {
        snprintf(f[n].text, sizeof f[n].text, "preempted %llu (%.1f%%)",
                 (unsigned long long)s->view.c.preempted,
                 100.0 * (double)s->view.c.preempted / (double)due);
        f[n++].keep = 7;
    }
    return n;
}

/* The filter, and the time the threads' samples stand for, summed over
 * them: a Time column past the elapsed time is explained here. */
static size_t tui_who(const struct session *s, struct tui_field *f)
{
    size_t n = 0;
    if (s->view.filter != NULL || s->view.window) { /* both, when both: they combine */
        char win[48] = "";
        if (s->view.window)
            snprintf(win, sizeof win, "%s%.1f-%.1f s", s->view.filter ? " in " : "",
                     (double)s->view.win_from / 10, (double)s->view.win_to / 10);
        snprintf(f[n].text, sizeof f[n].text, "only %s%s (Esc: all)",
                 s->view.filter ? s->view.filter->label : "", win);
        snprintf(f[n].alt, sizeof f[n].alt, "only %s%s",
                 s->view.filter ? s->view.filter->label : "", win);
        f[n++].keep = 9;
    }
    double on, bl;
    size_t nt;
    threads_times(s, &on, &bl, &nt);
    if (s->view.oncpu) {
        snprintf(f[n].text, sizeof f[n].text, "on-CPU time only (o: all)");
        snprintf(f[n].alt, sizeof f[n].alt, "on-CPU only");
        f[n++].keep = 9;
    } else if (bl > on) { /* a wall clock's view mostly of threads waiting */
        snprintf(f[n].text, sizeof f[n].text, "mostly waits: o shows on-CPU time");
        snprintf(f[n].alt, sizeof f[n].alt, "o: on-CPU");
        f[n++].keep = 3; /* after the replay's frame and the thread count */
    }
    if (nt > 1) {
        if (bl > 0)
            snprintf(f[n].text, sizeof f[n].text, "cpu %.1f s + blocked %.1f s over %zu threads",
                     on, bl, nt);
        else
            snprintf(f[n].text, sizeof f[n].text, "cpu %.1f s over %zu threads", on, nt);
        f[n++].keep = 2;
    }
    return n;
}

/* One meter, htop style: "Label [||||      ] 12.3% 1234". */
static void tui_meter(struct tui *t, int y, int x, int w, const char *label, uint64_t v, int pair)
{
    double pct = pct_of(v, t->s->view.c.total);
    char num[48];
    if (w >= 50)
        snprintf(num, sizeof num, " %6.2f%% %9llu", pct, (unsigned long long)v);
    else
        snprintf(num, sizeof num, " %5.1f%%", pct); /* narrow: the bar matters more */
    int barw = w - 9 - 2 - (int)strlen(num);
    attron(A_BOLD);
    mvprintw(y, x, "%-8s", label);
    attroff(A_BOLD);
    mvaddch(y, x + 8, '[');
    if (barw > 0)
        draw_bar(stdscr, y, x + 9, barw, pct / 100, pair, t->colors);
    mvaddch(y, x + 9 + (barw > 0 ? barw : 0), ']');
    addstr(num);
}

static void tui_draw_header(struct tui *t)
{
    const struct session *s = t->s;
    char line[512], st[160], title[512];
    struct tui_field f[14];
    size_t n = 0;
    memset(f, 0, sizeof f);
    const char *mode = NULL;
    if (t->replay != NULL) {
        const struct replay *r = t->replay;
        bool end = r->pos >= r->nframes;
        snprintf(title, sizeof title, " profil REPLAY  %s", t->cfg->title ? t->cfg->title : "");
        snprintf(f[n].text, sizeof f[n].text, "%.1f / %.1f s", replay_time(r, r->pos),
                 replay_time(r, r->nframes));
        f[n++].keep = 9;
        snprintf(f[n].text, sizeof f[n].text, "frame %zu/%zu", r->pos, r->nframes);
        f[n++].keep = 4;
        snprintf(f[n].text, sizeof f[n].text, "%s/%s %u us", s->driver ? s->driver : "?",
                 s->clock == CLOCK_KIND_CPU ? "cpu" : "wall", s->interval_us);
        f[n++].keep = 1;
        if (s->max_threads > 0) {
            snprintf(f[n].text, sizeof f[n].text, "threads max %u", s->max_threads);
            f[n++].keep = 2;
        }
        /* At the end, the average over the run; a 1983 file has no duration to average over. */
        double secs = s->duration_s - (double)s->clear_frame * SESSION_FRAME_NS / 1e9;
        double rate = end ? (s->duration_s > 0 && secs > 0 ? (double)s->view.c.total / secs : -1)
                          : tui_rate(s, r->pos);
        if (s->view.window)
            rate = tui_window_rate(s);
        n += tui_counts(s, rate, end || s->view.window, f + n);
    } else {
        bool ended = t->d->ended;
        mode = ended ? "ended" : "live";
        snprintf(title, sizeof title, " profil  %s", t->cfg->title ? t->cfg->title : s->program);
        double elapsed = (double)(clockdrv_now_ns() - s->start_ns) / 1e9;
        if (ended)
            elapsed = s->duration_s > 0 ? s->duration_s : (double)(s->end_ns - s->start_ns) / 1e9;
        snprintf(f[n].text, sizeof f[n].text, t->d->attached ? "pid %d attached" : "pid %d",
                 (int)t->d->pid);
        f[n++].keep = 3;
        snprintf(f[n].text, sizeof f[n].text, "%s/%s %u us", s->driver,
                 s->clock == CLOCK_KIND_CPU ? "cpu" : "wall", s->interval_us);
        f[n++].keep = 1;
        if (ended)
            snprintf(f[n].text, sizeof f[n].text, "threads max %u", t->d->max_threads);
        else
            snprintf(f[n].text, sizeof f[n].text, "threads %u", t->d->threads);
        f[n++].keep = 2;
        snprintf(f[n].text, sizeof f[n].text, "%.1f s", elapsed);
        f[n++].keep = 6;
        double rate;
        if (ended) { /* the average since the start, or since the last clear */
            double secs = elapsed - (double)s->clear_frame * SESSION_FRAME_NS / 1e9;
            rate = secs > 0 ? (double)s->view.c.total / secs : -1;
        } else { /* the newest whole frame may still wait in the driver's buffers */
            size_t now = (size_t)((clockdrv_now_ns() - s->start_ns) / SESSION_FRAME_NS);
            rate = tui_rate(s, now > 0 ? now - 1 : 0);
        }
        if (s->view.window)
            rate = tui_window_rate(s);
        n += tui_counts(s, rate, ended || s->view.window, f + n);
    }
    n += tui_who(s, f + n);

    /* The title, with the mode on the right. */
    attron(t->colors ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE);
    int modew = mode ? (int)strlen(mode) + 1 : 0;
    draw_text(stdscr, 0, 0, t->cols, "");
    draw_text(stdscr, 0, 0, t->cols - modew - 1, title);
    if (mode != NULL && t->cols > modew + 10)
        mvaddstr(0, t->cols - modew, mode);
    attrset(A_NORMAL);

    /* The state always shows in full; the facts give way, whole, when space is short. */
    const char *state = tui_state(t, st, sizeof st);
    int statew = draw_width(state);
    if (statew > t->cols - 1)
        statew = t->cols - 1;
    int room = t->cols - statew - 1 - 1 - 2; /* a margin each side, two blanks between */
    tui_fields(line, sizeof line, f, n, room > 0 ? room : 0);
    draw_text(stdscr, 1, 1, room > 0 ? room : 0, line);
    bool warn = t->replay == NULL && t->s->exit_kind == EXIT_ABORTED;
    attron(A_BOLD | (t->colors && warn ? COLOR_PAIR(PAIR_WARN) : 0));
    draw_text(stdscr, 1, t->cols - 1 - statew, statew, state);
    attrset(A_NORMAL);

    if (t->cols < 40 || t->rows < HEADER_ROWS + 4) {
        mvaddstr(2, 0, "(terminal too small)");
        return;
    }
    int half = t->cols / 2;
    tui_meter(t, 2, 0, half - 1, "Program", s->view.c.program, PAIR_PROGRAM);
    tui_meter(t, 2, half, half - 1, "DOS", s->view.c.dos, PAIR_DOS);
    tui_meter(t, 3, 0, half - 1, "I/O", s->view.c.io, PAIR_IO);
    tui_meter(t, 3, half, half - 1, "high", s->view.c.high, PAIR_HIGH);
}

static void tui_draw_status(struct tui *t)
{
    int y = t->rows - 1, x = 0;
    move(y, 0);
    clrtoeol();
    /* A message has a row of its own above the keys (tui_layout), which stay
     * whole; on a terminal too short for that row, it follows the tabs. */
    bool inline_msg = t->status[0] && !t->msg_row;
    if (t->msg_row) {
        attron(A_BOLD);
        draw_text(stdscr, y - 1, 0, t->cols, "");
        draw_text(stdscr, y - 1, 1, t->cols - 1, t->status);
        attrset(A_NORMAL);
    }
    if (t->mode == MODE_SAVE_AS) {
        mvprintw(y, 0, "Save as: %s", t->save_name);
        curs_set(1);
        return;
    }
    if (t->mode == MODE_SEARCH || t->mode == MODE_GO_TO) {
        mvprintw(y, 0, "%s%s", t->mode == MODE_GO_TO ? "Go to (seconds): " : "Search: ", t->search);
        curs_set(1);
        return;
    }
    curs_set(0);
    if (t->mode == MODE_CONFIRM_QUIT) {
        attron(t->colors ? COLOR_PAIR(PAIR_WARN) : A_REVERSE);
        mvaddstr(y, 0, " The program is still running. Stop it and quit? (y/n) ");
        attrset(A_NORMAL);
        return;
    }
    if (t->mode == MODE_INPUT) {
        attron(t->colors ? COLOR_PAIR(PAIR_WARN) : A_REVERSE);
        mvaddstr(y, 0, " INPUT: keys go to the program; Ctrl-] gives them back ");
        attrset(A_NORMAL);
        return;
    }
    /* The tabs by their names where they all fit with the first keys to know
     * ("h Help  q Quit"), else all by their short names; where even those do
     * not fit, the last ones give up their names (their numbers stay), the
     * current one's last. */
    const char *label[NTABS];
    int used = 0, want = inline_msg ? draw_width(t->status) : 15;
    for (int i = 0; i < NTABS; i++) {
        label[i] = tui_views[i]->name;
        used += 1 + (int)strlen(label[i]) + 1;
    }
    bool tight = used + 1 + want > t->cols;
    for (int i = 0; i < NTABS && tight; i++) {
        if (tui_views[i]->short_name != NULL) {
            used -= (int)(strlen(label[i]) - strlen(tui_views[i]->short_name));
            label[i] = tui_views[i]->short_name;
        }
    }
    for (int i = NTABS - 1; i >= 0 && used + 1 + want > t->cols; i--) {
        if (t->mode == MODE_HELP || i != tui_tab(t->current)) {
            used -= (int)strlen(label[i]);
            label[i] = "";
        }
    }
    for (int i = 0; i < NTABS; i++) {
        bool cur = t->mode != MODE_HELP && (i == tui_tab(t->current));
        char tab[32];
        snprintf(tab, sizeof tab, "%d%s", i + 1, label[i]);
        t->tab_x[i] = x;
        t->tab_w[i] = (int)strlen(tab);
        if (cur)
            attron(t->colors ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE);
        draw_text(stdscr, y, x, t->tab_w[i] < t->cols - x ? t->tab_w[i] : t->cols - x, tab);
        attrset(A_NORMAL);
        x += t->tab_w[i] + 1;
        if (x >= t->cols)
            return;
    }
    if (inline_msg) {
        draw_text(stdscr, y, x + 1, t->cols - x - 1, t->status);
        return;
    }
    /* The keys worth knowing first, as many as fit. */
    struct tui_field k[10];
    size_t n = 0;
    memset(k, 0, sizeof k);
    static const struct {
        const char *text;
        int keep;
        int when; /* 1 live only, 2 replay only, 0 both */
    } hints[] = {
        {"Space Play", 7, 2}, {". , Step", 5, 2}, {"] [ Speed", 4, 2}, {"g G Go", 3, 2},
        {"p Pause", 5, 1},    {"c Clear", 2, 1},  {"s Save", 3, 1},    {"/ Search", 6, 0},
        {"h Help", 9, 0},     {"q Quit", 8, 0},
    };
    bool hjkl = t->current == V_FLAME; /* its h moves left */
    bool hot = t->current == V_SOURCE; /* its ] [ step through the hot lines */
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        if (hints[i].when == (t->replay ? 1 : 2))
            continue;
        if (hints[i].when == 1 && !tui_live(t) && hints[i].text[0] == 'p')
            continue; /* no clock left to pause */
        const char *text = hints[i].text;
        if (hjkl && text[0] == 'h')
            text = "? Help";
        if (hot && text[0] == ']')
            text = "] [ Hot";
        snprintf(k[n].text, sizeof k[n].text, "%s", text);
        k[n++].keep = hints[i].keep;
    }
    char line[256];
    tui_fields(line, sizeof line, k, n, t->cols - x - 1);
    draw_text(stdscr, y, x + 1, t->cols - x - 1, line);
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
