/*
 * The two bars around the views: the header above them (the title, the
 * facts of the run with their rate, the four meters) and the status line
 * below (a message, a prompt, the tabs, the keys worth knowing first).
 */
#include "config.h"

#include "prf/replay.h"
#include "report/report.h"
#include "session/threads.h"
#include "session/view.h"
#include "tui/bars.h"
#include "util/pct.h"
#include "views/view.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

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

/* The title with the mode on its right; the facts of the run, those kept
 * longest first, beside its state; the meters under them. */
void tui_draw_header(struct tui *t)
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

/* The last row: a prompt, a question, or the tabs and the keys to know. */
void tui_draw_status(struct tui *t)
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
