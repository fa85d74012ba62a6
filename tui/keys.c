/*
 * The keys typed on the screen: the prompts (search, go to a time, quit?),
 * the replay transport, the mouse, and the rest dispatched to the focused
 * view, whose reaction flags are acted on here.
 */
#include "config.h"

#include "prf/replay.h"
#include "session/session.h"
#include "session/threads.h"
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
    t->help = false;
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
                   (unsigned long long)t->s->c.total);
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
            tui_status(t, "%zu bucket%s of %u paragraph%s (%u bytes)", t->s->nbuckets,
                       t->s->nbuckets == 1 ? "" : "s", t->s->bucket_paragraphs,
                       t->s->bucket_paragraphs == 1 ? "" : "s", 16 * t->s->bucket_paragraphs);
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
            bool window = t->s->window;
            tui_filter(t, f);
            if (t->s->window)
                tui_status(t, "every view shows %s in %.1f-%.1f s only; Esc shows all", f->label,
                           (double)t->s->win_from / 10, (double)t->s->win_to / 10);
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
        bool filtered = t->s->filter != NULL;
        tui_window(t, ctx->window_from, ctx->window_to);
        if (t->s->filter != NULL)
            tui_status(t, "every view shows %s in %.1f-%.1f s only; Esc shows all",
                       t->s->filter->label, (double)ctx->window_from / 10,
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

/* The replay transport: play, step, speed, seek.  True when CH was one.  The
 * keys it shares with the live screen mean the same there: p and Space stop
 * and start time, Home and End stay the focused view's. */
static bool tui_replay_key(struct tui *t, int ch)
{
    struct replay *r = t->replay;
    switch (ch) {
    case ' ':
    case 'p':
        if (!t->playing && r->pos >= r->nframes)
            tui_replay_seek(t, 0); /* play again from the start */
        t->playing = !t->playing;
        break;
    case '.':
        t->playing = false;
        tui_replay_seek(t, r->pos + 1);
        break;
    case ',':
        t->playing = false;
        tui_replay_seek(t, r->pos > 0 ? r->pos - 1 : 0);
        break;
    case ']': t->speed = t->speed < 64 ? t->speed * 2 : 64; break;
    case '[': t->speed = t->speed > 1.0 / 16 ? t->speed / 2 : 1.0 / 16; break;
    case 'G': tui_replay_seek(t, r->nframes); break;
    case 'g':
        t->searching = t->asking_time = true;
        t->search[0] = '\0';
        break;
    case 's': tui_status(t, "a replay is already saved"); break;
    default: return false;
    }
    t->dirty = true;
    return true;
}

/* n and N: the last search again, forward or back, in the view it searches. */
static void tui_search_again(struct tui *t, int dir)
{
    int v = tui_search_view(t);
    struct view_ctx ctx;
    tui_ctx(t, &ctx, v);
    if (v != t->current)
        tui_show(t, v);
    tui_apply(t, tui_views[v]->search(t->state[v], t->last_search, dir, &ctx), &ctx);
}

void tui_key(struct tui *t, int ch)
{
    if (t->confirm_quit) {
        t->confirm_quit = false;
        if (ch == 'y' || ch == 'Y')
            tui_stop_program(t);
        t->dirty = true;
        return;
    }
    if (t->searching && t->asking_name) {
        size_t len = strlen(t->save_name);
        if (ch == 27) {
            t->searching = t->asking_name = false;
        } else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
            t->searching = t->asking_name = false;
            if (len > 0)
                tui_save_as(t);
        } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0) {
            t->save_name[len - 1] = '\0';
        } else if (ch >= 32 && ch < 127 && len + 1 < sizeof t->save_name) {
            t->save_name[len] = (char)ch;
            t->save_name[len + 1] = '\0';
        }
        t->dirty = true;
        return;
    }
    if (t->searching) {
        size_t len = strlen(t->search);
        if (ch == 27) {
            t->searching = t->asking_time = false;
        } else if ((ch == '\r' || ch == '\n' || ch == KEY_ENTER) && t->asking_time) {
            t->searching = t->asking_time = false;
            char *end;
            double sec = strtod(t->search, &end);
            /* "inf" and "nan" are numbers to strtod, not times; past the end is the end. */
            if (len > 0 && *end == '\0' && isfinite(sec) && sec >= 0) {
                double frames = sec * 1e9 / SESSION_FRAME_NS + 0.5;
                size_t last = t->replay->nframes;
                tui_replay_seek(t, frames < (double)last ? (size_t)frames : last);
            } else {
                tui_status(t, "'%s' is not a time in seconds", t->search);
            }
        } else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
            /* As in less, an empty search repeats the last one. */
            t->searching = false;
            if (len > 0)
                snprintf(t->last_search, sizeof t->last_search, "%s", t->search);
            if (t->last_search[0] != '\0') {
                int v = tui_search_view(t);
                struct view_ctx ctx;
                tui_ctx(t, &ctx, v);
                if (v != t->current)
                    tui_show(t, v);
                tui_apply(t,
                          tui_views[v]->search(t->state[v], t->last_search, len > 0 ? 0 : 1, &ctx),
                          &ctx);
            }
        } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0) {
            t->search[len - 1] = '\0';
        } else if (ch >= 32 && ch < 127 && len + 1 < sizeof t->search) {
            t->search[len] = (char)ch;
            t->search[len + 1] = '\0';
        }
        t->dirty = true;
        return;
    }
    if (t->input_mode) {
        if (ch == 0x1d) {
            t->input_mode = false;
            t->dirty = true;
        } else {
            tui_forward_key(t, ch);
        }
        return;
    }
    if (t->help) { /* the help scrolls where it does not fit */
        struct view_ctx ctx;
        tui_ctx(t, &ctx, -1);
        if (view_help_ops.key(t->help_state, ch, &ctx) != VIEW_IGNORED) {
            t->dirty = true;
            return;
        }
    }
    if (t->help && ch != KEY_RESIZE && ch != KEY_MOUSE) {
        t->help = false;
        t->relayout = t->dirty = true;
        if (ch == '?' || ch == 'h' || ch == KEY_F(1) || ch == 27 || ch == 'q')
            return;
    }
    t->status[0] = '\0';
    /* Keys a view takes before the shell: the Flame's h (hjkl move there: ?
     * and F1 are the help), the Source's ] and [ (the hot lines: the
     * replay's speed is theirs in the other views). */
    bool first = (ch == 'h' && t->current == V_FLAME) ||
                 ((ch == ']' || ch == '[') && t->current == V_SOURCE);
    if (!first && t->replay != NULL && tui_replay_key(t, ch))
        return;
    if (first) {
        struct view_ctx ctx;
        tui_ctx(t, &ctx, t->current);
        tui_apply(t, tui_views[t->current]->key(t->state[t->current], ch, &ctx), &ctx);
        return;
    }
    switch (ch) {
    case 27:
        if (t->s->filter != NULL || t->s->window) { /* Esc: every thread, the whole run */
            tui_status(t, "%s",
                       t->s->window && t->s->filter ? "every thread, the whole run shown"
                       : t->s->window               ? "the whole run shown"
                                                    : "every thread shown");
            tui_filter(t, NULL);
        }
        return;
    case KEY_F(4): /* htop's filter and tree: nothing here, and nothing shown */
    case KEY_F(5): return;
    case '.':
    case ',':
    case 'g':
    case 'G': tui_status(t, "only a replay steps or seeks"); return;
    case 'n':
    case 'N': tui_search_again(t, ch == 'n' ? 1 : -1); return;
    case 'q':
    case 'Q':
    case KEY_F(10):
        if (!tui_live(t) || t->d->attached)
            t->quit = true; /* an attached process is let go of, not stopped */
        else
            t->confirm_quit = true;
        t->dirty = true;
        return;
    case '?':
    case 'h':
    case KEY_F(1): {
        struct view_ctx ctx;
        tui_ctx(t, &ctx, -1);
        view_help_ops.key(t->help_state, KEY_HOME, &ctx); /* from the top */
        t->help = true;
        t->relayout = t->dirty = true;
        return;
    }
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8': tui_show(t, ch - '1'); return;
    case '\t':
        if (tui_wide(t) && tui_tab(t->current) <= V_FUNCTIONS)
            tui_show(t, tui_tab(t->current) == V_HISTOGRAM ? V_FUNCTIONS : V_HISTOGRAM);
        else
            tui_show(t, (tui_tab(t->current) + 1) % NTABS);
        return;
    case KEY_BTAB: tui_show(t, (tui_tab(t->current) + NTABS - 1) % NTABS); return;
    case 'p':
    case ' ':
        if (tui_live(t)) {
            clockdrv_pause(t->d, !t->d->paused);
            tui_status(t,
                       t->d->paused ? "clock paused: the program runs unsampled" : "clock running");
        } else {
            tui_status(t, "the program has ended: no clock to pause");
        }
        return;
    case 'c':
        if (t->replay != NULL) {
            tui_status(t, "a replay shows the session as it was: nothing to clear");
            return;
        }
        session_clear(t->s);
        tui_status(t, "counters cleared");
        return;
    case 's': tui_save(t); return;
    case 'S':
        if (t->cfg->save_as != NULL) {
            t->searching = t->asking_name = true;
            t->save_name[0] = '\0';
            t->dirty = true;
        }
        return;
    case 'i':
        if (t->pty >= 0 && tui_live(t)) {
            t->input_mode = true;
            tui_show(t, V_OUTPUT);
        }
        return;
    case 3:    /* Ctrl-C */
    case 0x1c: /* Ctrl-\ */
        if (t->replay != NULL || (tui_live(t) && t->d->attached && ch == 3)) {
            /* An attached process has no terminal of profil's to send it
             * to: the session ends as q ends it, letting go of the process. */
            t->quit = true;
            t->dirty = true;
            return;
        }
        if (tui_live(t)) {
            char c = (char)ch;
            tui_pty_write(t, &c, 1);
            tui_status(t, "%s sent to the program", ch == 3 ? "Ctrl-C" : "Ctrl-\\");
        }
        return;
    case '/':
    case KEY_F(3):
        t->searching = true;
        t->search[0] = '\0';
        t->dirty = true;
        return;
    case KEY_MOUSE: tui_click(t); return;
    case KEY_RESIZE: t->relayout = t->dirty = true; return;
    }
    struct view_ctx ctx;
    tui_ctx(t, &ctx, t->current);
    tui_apply(
        t,
        tui_views[t->current]->key ? tui_views[t->current]->key(t->state[t->current], ch, &ctx) : 0,
        &ctx);
}
