/*
 * The keys typed on the screen, as tmux binds them: one mode at a time
 * (struct tui's mode), and in the normal mode a table of key -> command for
 * a replay, one for the screen, and the focused view for the rest, whose
 * reaction flags are acted on here.  The prompts (search, go to a time,
 * save as, quit?) and the program's input are modes of their own.
 */
#include "config.h"

#include "prf/replay.h"
#include "session/session.h"
#include "session/threads.h"
#include "session/view.h"
#include "tui/keys.h"
#include "views/view.h"

#include <curses.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void tui_show(struct tui *t, int view)
{
    t->current = view;
    if (t->mode == MODE_HELP)
        t->mode = MODE_NORMAL;
    t->relayout = true;
    t->dirty = true;
}

static void tui_pty_write(struct tui *t, const char *bytes, size_t n)
{
    if (t->pty < 0) {
        if (n == 1 && bytes[0] == 3 && tui_live(t) && !t->d->attached)
            kill(t->d->pid, SIGINT);
        return;
    }
    while (n > 0) {
        ssize_t w = write(t->pty, bytes, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        bytes += w;
        n -= (size_t)w;
    }
}

/* Keys typed for the program: curses codes back into terminal bytes. */
static void tui_forward_key(struct tui *t, int ch)
{
    const char *seq = NULL;
    switch (ch) {
    case KEY_UP: seq = "\033[A"; break;
    case KEY_DOWN: seq = "\033[B"; break;
    case KEY_RIGHT: seq = "\033[C"; break;
    case KEY_LEFT: seq = "\033[D"; break;
    case KEY_HOME: seq = "\033[H"; break;
    case KEY_END: seq = "\033[F"; break;
    case KEY_BACKSPACE: seq = "\177"; break;
    case KEY_ENTER: seq = "\r"; break;
    case KEY_DC: seq = "\033[3~"; break;
    }
    if (seq != NULL) {
        tui_pty_write(t, seq, strlen(seq));
    } else if (ch >= 0 && ch < 256) {
        char c = (char)ch;
        tui_pty_write(t, &c, 1);
    }
}

/* Ask the program to stop; a program that ignores TERM is killed after a grace. */
static void tui_stop_program(struct tui *t)
{
    if (!tui_live(t) || t->stopping)
        return;
    if (t->d->paused)
        clockdrv_pause(t->d, false);
    clockdrv_stop(t->d, SIGTERM);
    t->stopping = true;
    t->stop_at = clockdrv_now_ns();
    tui_status(t, "stopping the program...");
}

static void tui_save(struct tui *t)
{
    if (t->cfg->save == NULL)
        return;
    char *cause = NULL;
    if (t->cfg->save(t->cfg->save_arg, t->s, &cause) == 0)
        tui_status(t, "snapshot saved (%llu samples)",
                   (unsigned long long)session_run_counters(t->s).total);
    else
        tui_save_failed(t, cause);
    free(cause);
}

void tui_save_failed(struct tui *t, const char *cause)
{
    tui_status(t, "%s%s", cause ? cause : "cannot save",
               t->cfg->save_as != NULL ? "; S: save under another name" : "");
}

/* 'S': ask for a name, then save there (and at the end, there). */
static void tui_save_as(struct tui *t)
{
    char *cause = NULL;
    if (t->cfg->save_as(t->cfg->save_arg, t->s, t->save_name, &cause) == 0)
        tui_status(t, "saved as %s (%llu samples)", t->save_name,
                   (unsigned long long)t->s->view.c.total);
    else
        tui_save_failed(t, cause);
    free(cause);
}

static void tui_apply(struct tui *t, int flags, struct view_ctx *ctx)
{
    if (ctx->status[0])
        tui_status(t, "%s", ctx->status);
    if (flags & VIEW_REBUCKET) {
        if (session_rebucket(t->s, ctx->want_paragraphs) < 0)
            tui_status(t, "a classic PROFIL file has no exact hits to re-bucket");
        else
            tui_status(t, "%zu bucket%s of %u paragraph%s (%u bytes)", t->s->view.nbuckets,
                       t->s->view.nbuckets == 1 ? "" : "s", t->s->view.bucket_paragraphs,
                       t->s->view.bucket_paragraphs == 1 ? "" : "s",
                       16 * t->s->view.bucket_paragraphs);
    }
    if (flags & VIEW_CALLERS) {
        struct view_ctx jc;
        tui_ctx(t, &jc, V_CALLERS);
        jc.jump_module = ctx->jump_module;
        jc.jump_start = ctx->jump_start;
        view_callers_ops.jump(t->state[V_CALLERS], &jc);
        tui_show(t, V_CALLERS);
    }
    if (flags & VIEW_SOURCE) {
        struct view_ctx jc;
        tui_ctx(t, &jc, V_SOURCE);
        jc.jump_module = ctx->jump_module;
        jc.jump_start = ctx->jump_start;
        view_source_ops.jump(t->state[V_SOURCE], &jc);
        if (jc.status[0])
            tui_status(t, "%s", jc.status);
        else
            tui_show(t, V_SOURCE);
    }
    if (flags & VIEW_FILTER) {
        char *cause = NULL;
        uint32_t pid = ctx->filter_pid, tid = ctx->filter_tid;
        struct session_filter *f =
            session_filter_make(t->s, tid ? &tid : NULL, tid ? NULL : &pid, NULL, &cause);
        if (f == NULL) {
            tui_status(t, "%s", cause);
            free(cause);
        } else {
            bool window = t->s->view.window;
            tui_filter(t, f);
            if (t->s->view.window)
                tui_status(t, "every view shows %s in %.1f-%.1f s only; Esc shows all", f->label,
                           (double)t->s->view.win_from / 10, (double)t->s->view.win_to / 10);
            else if (window) /* a file's frames do not say which thread took them */
                tui_status(t,
                           "every view shows %s only, over the whole run: the saved "
                           "timeline does not say which thread took a frame's samples",
                           f->label);
            else
                tui_status(t, "every view shows %s only; Esc shows all", f->label);
        }
    }
    if (flags & VIEW_WINDOW) {
        bool filtered = t->s->view.filter != NULL;
        tui_window(t, ctx->window_from, ctx->window_to);
        if (t->s->view.filter != NULL)
            tui_status(t, "every view shows %s in %.1f-%.1f s only; Esc shows all",
                       t->s->view.filter->label, (double)ctx->window_from / 10,
                       (double)ctx->window_to / 10);
        else if (filtered) /* a file's frames do not say which thread took them */
            tui_status(t,
                       "every view shows %.1f-%.1f s of every thread: the saved timeline "
                       "does not say which thread took a frame's samples",
                       (double)ctx->window_from / 10, (double)ctx->window_to / 10);
        else
            tui_status(t, "every view shows %.1f-%.1f s only; Esc shows the whole run",
                       (double)ctx->window_from / 10, (double)ctx->window_to / 10);
    }
    if (flags & VIEW_BACK)
        tui_show(t, V_FUNCTIONS);
    if (flags & VIEW_JUMP) {
        struct view_ctx jc;
        tui_ctx(t, &jc, V_HISTOGRAM);
        jc.jump_module = ctx->jump_module;
        jc.jump_start = ctx->jump_start;
        jc.jump_end = ctx->jump_end;
        view_histogram_ops.jump(t->state[V_HISTOGRAM], &jc);
        if (jc.status[0])
            tui_status(t, "%s", jc.status);
        else
            tui_show(t, V_HISTOGRAM);
    }
    if (flags)
        t->dirty = true;
}

static void tui_click(struct tui *t)
{
    MEVENT me;
    if (getmouse(&me) != OK)
        return;
    if (me.y == t->rows - 1) { /* the tabs */
        for (int i = 0; i < NTABS; i++) {
            if (me.x >= t->tab_x[i] && me.x < t->tab_x[i] + t->tab_w[i]) {
                tui_show(t, i);
                return;
            }
        }
        return;
    }
    bool wheel_up = (me.bstate & BUTTON4_PRESSED) != 0;
    bool wheel_down = (me.bstate & BUTTON5_PRESSED) != 0;
    for (int i = 0; i < NVIEWS; i++) {
        const struct place *p = &t->place[i];
        if (!p->shown || me.y < p->y || me.y >= p->y + p->h || me.x < p->x || me.x >= p->x + p->w)
            continue;
        struct view_ctx ctx;
        tui_ctx(t, &ctx, i);
        if (wheel_up || wheel_down) {
            /* The wheel scrolls the view under the pointer, three rows a notch. */
            for (int k = 0; k < 3 && tui_views[i]->key != NULL; k++)
                tui_apply(t, tui_views[i]->key(t->state[i], wheel_up ? KEY_UP : KEY_DOWN, &ctx),
                          &ctx);
            t->dirty = true;
            return;
        }
        if (t->current != i)
            tui_show(t, i);
        if (tui_views[i]->click != NULL)
            tui_apply(t, tui_views[i]->click(t->state[i], me.y - p->y, &ctx), &ctx);
        t->dirty = true;
        return;
    }
}

/* The view '/' searches in: the focused one, or the functions. */
static int tui_search_view(const struct tui *t)
{
    return tui_views[t->current]->search != NULL ? t->current : V_FUNCTIONS;
}

/* Search for the last search in the view it searches: DIR 0 from the top,
 * 1 forward from the selection, -1 back. */
static void tui_search_run(struct tui *t, int dir)
{
    int v = tui_search_view(t);
    struct view_ctx ctx;
    tui_ctx(t, &ctx, v);
    if (v != t->current)
        tui_show(t, v);
    tui_apply(t, tui_views[v]->search(t->state[v], t->last_search, dir, &ctx), &ctx);
}

/* Ask on the status line: MODE is one of the prompts, BUF what it edits. */
static void tui_ask(struct tui *t, enum tui_mode mode, char *buf)
{
    t->mode = mode;
    buf[0] = '\0';
    t->dirty = true;
}

/*
 * The commands a key is bound to, one function each (htop's Action.c): CH
 * is the key that ran it, for the commands bound to several.
 */

static void cmd_whole_run(struct tui *t, int ch)
{
    (void)ch;
    if (t->s->view.filter != NULL || t->s->view.window) { /* Esc: every thread, the whole run */
        tui_status(t, "%s",
                   t->s->view.window && t->s->view.filter ? "every thread, the whole run shown"
                   : t->s->view.window                    ? "the whole run shown"
                                                          : "every thread shown");
        tui_filter(t, NULL);
    }
}

static void cmd_nothing(struct tui *t, int ch)
{
    (void)t, (void)ch; /* htop's F4 and F5: nothing here, and nothing shown */
}

static void cmd_replay_only(struct tui *t, int ch)
{
    (void)ch;
    tui_status(t, "only a replay steps or seeks");
}

static void cmd_search_again(struct tui *t, int ch)
{
    tui_search_run(t, ch == 'n' ? 1 : -1);
}

static void cmd_quit(struct tui *t, int ch)
{
    (void)ch;
    if (!tui_live(t) || t->d->attached)
        t->quit = true; /* an attached process is let go of, not stopped */
    else
        t->mode = MODE_CONFIRM_QUIT;
    t->dirty = true;
}

static void cmd_help(struct tui *t, int ch)
{
    (void)ch;
    struct view_ctx ctx;
    tui_ctx(t, &ctx, -1);
    view_help_ops.key(t->help_state, KEY_HOME, &ctx); /* from the top */
    t->mode = MODE_HELP;
    t->relayout = t->dirty = true;
}

static void cmd_view(struct tui *t, int ch)
{
    tui_show(t, ch - '1');
}

static void cmd_next_tab(struct tui *t, int ch)
{
    (void)ch;
    if (tui_wide(t) && tui_tab(t->current) <= V_FUNCTIONS)
        tui_show(t, tui_tab(t->current) == V_HISTOGRAM ? V_FUNCTIONS : V_HISTOGRAM);
    else
        tui_show(t, (tui_tab(t->current) + 1) % NTABS);
}

static void cmd_prev_tab(struct tui *t, int ch)
{
    (void)ch;
    tui_show(t, (tui_tab(t->current) + NTABS - 1) % NTABS);
}

static void cmd_pause(struct tui *t, int ch)
{
    (void)ch;
    if (tui_live(t)) {
        clockdrv_pause(t->d, !t->d->paused);
        tui_status(t, t->d->paused ? "clock paused: the program runs unsampled" : "clock running");
    } else {
        tui_status(t, "the program has ended: no clock to pause");
    }
}

static void cmd_clear(struct tui *t, int ch)
{
    (void)ch;
    if (t->replay != NULL) {
        tui_status(t, "a replay shows the session as it was: nothing to clear");
        return;
    }
    session_clear(t->s);
    tui_status(t, "counters cleared");
}

/* 'o': on-CPU time only, or all of it (the wall clock's waits too). */
static void cmd_oncpu(struct tui *t, int ch)
{
    (void)ch;
    struct session *s = t->s;
    bool on = !s->view.oncpu;
    if (!session_oncpu_set(s, on)) {
        tui_status(t, "a classic PROFIL file has no exact hits to count again");
        return;
    }
    if (t->replay != NULL)
        tui_replay_recount(t);
    t->dirty = true;
    double on_s, blocked_s;
    size_t nt;
    threads_times(s, &on_s, &blocked_s, &nt);
    if (!on)
        tui_status(t, "all time shown: the waits too (o: on-CPU only)");
    else if (s->clock == CLOCK_KIND_CPU)
        tui_status(t, "on-CPU time only: the CPU clock never samples a wait (o: all)");
    else if (s->has_stacks && s->blocked_module == UINT32_MAX && blocked_s > 0)
        tui_status(t, "on-CPU time only; this file's stacks do not tell waits apart "
                      "(recorded before profil kept them): its waits' stacks stay (o: all)");
    else
        tui_status(t, "on-CPU time only: the waits left out (o: all)");
}

static void cmd_save(struct tui *t, int ch)
{
    (void)ch;
    tui_save(t);
}

static void cmd_save_as(struct tui *t, int ch)
{
    (void)ch;
    if (t->cfg->save_as != NULL)
        tui_ask(t, MODE_SAVE_AS, t->save_name);
}

static void cmd_input(struct tui *t, int ch)
{
    (void)ch;
    if (t->pty >= 0 && tui_live(t)) {
        tui_show(t, V_OUTPUT);
        t->mode = MODE_INPUT;
    }
}

/* Ctrl-C and Ctrl-\: the program's, as in its own terminal. */
static void cmd_interrupt(struct tui *t, int ch)
{
    if (t->replay != NULL || (tui_live(t) && t->d->attached && ch == 3)) {
        /* An attached process has no terminal of profil's to send it to:
         * the session ends as q ends it, letting go of the process. */
        t->quit = true;
        t->dirty = true;
        return;
    }
    if (tui_live(t)) {
        char c = (char)ch;
        tui_pty_write(t, &c, 1);
        tui_status(t, "%s sent to the program", ch == 3 ? "Ctrl-C" : "Ctrl-\\");
    }
}

static void cmd_search(struct tui *t, int ch)
{
    (void)ch;
    tui_ask(t, MODE_SEARCH, t->search);
}

static void cmd_click(struct tui *t, int ch)
{
    (void)ch;
    tui_click(t);
}

static void cmd_resize(struct tui *t, int ch)
{
    (void)ch;
    t->relayout = t->dirty = true;
}

/* The replay's transport.  The keys it shares with the live screen mean the
 * same there: p and Space stop and start time. */
static void cmd_play(struct tui *t, int ch)
{
    (void)ch;
    if (!t->playing && t->replay->pos >= t->replay->nframes)
        tui_replay_seek(t, 0); /* play again from the start */
    t->playing = !t->playing;
}

static void cmd_step(struct tui *t, int ch)
{
    size_t pos = t->replay->pos;
    t->playing = false;
    tui_replay_seek(t, ch == '.' ? pos + 1 : pos > 0 ? pos - 1 : 0);
}

static void cmd_speed(struct tui *t, int ch)
{
    if (ch == ']')
        t->speed = t->speed < 64 ? t->speed * 2 : 64;
    else
        t->speed = t->speed > 1.0 / 16 ? t->speed / 2 : 1.0 / 16;
}

static void cmd_replay_end(struct tui *t, int ch)
{
    (void)ch;
    tui_replay_seek(t, t->replay->nframes);
}

static void cmd_go_to(struct tui *t, int ch)
{
    (void)ch;
    tui_ask(t, MODE_GO_TO, t->search);
}

static void cmd_replay_saved(struct tui *t, int ch)
{
    (void)ch;
    tui_status(t, "a replay is already saved");
}

/* A key and the command it runs; a table ends with key 0. */
struct binding {
    int key;
    void (*run)(struct tui *t, int ch);
};

/* The screen's keys, live and in a replay; the focused view gets the rest. */
static const struct binding tui_keys_normal[] = {
    {27, cmd_whole_run},
    {KEY_F(4), cmd_nothing},
    {KEY_F(5), cmd_nothing},
    {'.', cmd_replay_only},
    {',', cmd_replay_only},
    {'g', cmd_replay_only},
    {'G', cmd_replay_only},
    {'n', cmd_search_again},
    {'N', cmd_search_again},
    {'q', cmd_quit},
    {'Q', cmd_quit},
    {KEY_F(10), cmd_quit},
    {'?', cmd_help},
    {'h', cmd_help},
    {KEY_F(1), cmd_help},
    {'1', cmd_view},
    {'2', cmd_view},
    {'3', cmd_view},
    {'4', cmd_view},
    {'5', cmd_view},
    {'6', cmd_view},
    {'7', cmd_view},
    {'8', cmd_view},
    {'\t', cmd_next_tab},
    {KEY_BTAB, cmd_prev_tab},
    {'p', cmd_pause},
    {' ', cmd_pause},
    {'c', cmd_clear},
    {'o', cmd_oncpu},
    {'s', cmd_save},
    {'S', cmd_save_as},
    {'i', cmd_input},
    {3, cmd_interrupt},    /* Ctrl-C */
    {0x1c, cmd_interrupt}, /* Ctrl-\ */
    {'/', cmd_search},
    {KEY_F(3), cmd_search},
    {KEY_MOUSE, cmd_click},
    {KEY_RESIZE, cmd_resize},
    {0, NULL},
};

/* A replay's keys, looked up before the screen's. */
static const struct binding tui_keys_replay[] = {
    {' ', cmd_play},         {'p', cmd_play},  {'.', cmd_step},       {',', cmd_step},
    {']', cmd_speed},        {'[', cmd_speed}, {'G', cmd_replay_end}, {'g', cmd_go_to},
    {'s', cmd_replay_saved}, {0, NULL},
};

static const struct binding *tui_lookup(const struct binding *table, int ch)
{
    for (; table->run != NULL; table++)
        if (table->key == ch)
            return table;
    return NULL;
}

/* Keys a view takes before the screen's tables: the Flame's h (hjkl move
 * there: ? and F1 are the help), the Source's ] and [ (the hot lines: the
 * replay's speed is theirs in the other views). */
static bool tui_view_first(const struct tui *t, int ch)
{
    return (ch == 'h' && t->current == V_FLAME) ||
           ((ch == ']' || ch == '[') && t->current == V_SOURCE);
}

/* A key in MODE_NORMAL: a view's own first, then a replay's, the screen's,
 * and what is left to the focused view. */
static void tui_normal_key(struct tui *t, int ch)
{
    t->status[0] = '\0';
    const struct binding *b = NULL;
    if (!tui_view_first(t, ch)) {
        if (t->replay != NULL && (b = tui_lookup(tui_keys_replay, ch)) != NULL) {
            b->run(t, ch);
            t->dirty = true;
            return;
        }
        b = tui_lookup(tui_keys_normal, ch);
    }
    if (b != NULL) {
        b->run(t, ch);
        return;
    }
    struct view_ctx ctx;
    tui_ctx(t, &ctx, t->current);
    if (tui_views[t->current]->key != NULL)
        tui_apply(t, tui_views[t->current]->key(t->state[t->current], ch, &ctx), &ctx);
}

/* Edit the prompt's BUF (SIZE bytes) with CH; 1 when CH was Enter, -1 Esc, 0 else. */
static int tui_edit(char *buf, size_t size, int ch)
{
    size_t len = strlen(buf);
    if (ch == 27)
        return -1;
    if (ch == '\r' || ch == '\n' || ch == KEY_ENTER)
        return 1;
    if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0) {
        buf[len - 1] = '\0';
    } else if (ch >= 32 && ch < 127 && len + 1 < size) {
        buf[len] = (char)ch;
        buf[len + 1] = '\0';
    }
    return 0;
}

/* Enter on the "go to" prompt: the replay to that second. */
static void tui_go_to(struct tui *t)
{
    char *end;
    double sec = strtod(t->search, &end);
    /* "inf" and "nan" are numbers to strtod, not times; past the end is the end. */
    if (t->search[0] != '\0' && *end == '\0' && isfinite(sec) && sec >= 0) {
        double frames = sec * 1e9 / SESSION_FRAME_NS + 0.5;
        size_t last = t->replay->nframes;
        tui_replay_seek(t, frames < (double)last ? (size_t)frames : last);
    } else {
        tui_status(t, "'%s' is not a time in seconds", t->search);
    }
}

/* A key while the status line asks: a search, a time, or a name. */
static void tui_prompt_key(struct tui *t, int ch)
{
    enum tui_mode mode = t->mode;
    char *buf = mode == MODE_SAVE_AS ? t->save_name : t->search;
    size_t size = mode == MODE_SAVE_AS ? sizeof t->save_name : sizeof t->search;
    int done = tui_edit(buf, size, ch);
    t->dirty = true;
    if (done == 0)
        return;
    t->mode = MODE_NORMAL;
    if (done < 0)
        return;
    if (mode == MODE_SAVE_AS) {
        if (buf[0] != '\0')
            tui_save_as(t);
    } else if (mode == MODE_GO_TO) {
        tui_go_to(t);
    } else {
        /* As in less, an empty search repeats the last one. */
        bool again = buf[0] == '\0';
        if (!again)
            snprintf(t->last_search, sizeof t->last_search, "%s", buf);
        if (t->last_search[0] != '\0')
            tui_search_run(t, again ? 1 : 0);
    }
}

/* A key while the help is shown: it scrolls where it does not fit, and any
 * other key closes it; true when the key is used up. */
static bool tui_help_key(struct tui *t, int ch)
{
    struct view_ctx ctx;
    tui_ctx(t, &ctx, -1);
    if (view_help_ops.key(t->help_state, ch, &ctx) != VIEW_IGNORED) {
        t->dirty = true;
        return true;
    }
    if (ch == KEY_RESIZE || ch == KEY_MOUSE)
        return false; /* the help stays over what they do */
    t->mode = MODE_NORMAL;
    t->relayout = t->dirty = true;
    return ch == '?' || ch == 'h' || ch == KEY_F(1) || ch == 27 || ch == 'q';
}

void tui_key(struct tui *t, int ch)
{
    switch (t->mode) {
    case MODE_CONFIRM_QUIT:
        t->mode = MODE_NORMAL;
        if (ch == 'y' || ch == 'Y')
            tui_stop_program(t);
        t->dirty = true;
        return;
    case MODE_SEARCH:
    case MODE_GO_TO:
    case MODE_SAVE_AS: tui_prompt_key(t, ch); return;
    case MODE_INPUT:
        if (ch == 0x1d) { /* Ctrl-]: the keys are the screen's again */
            t->mode = MODE_NORMAL;
            t->dirty = true;
        } else {
            tui_forward_key(t, ch);
        }
        return;
    case MODE_HELP:
        if (tui_help_key(t, ch))
            return;
        break;
    case MODE_NORMAL: break;
    }
    tui_normal_key(t, ch);
}
