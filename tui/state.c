/* What the event loop and the keys both do to the screen's state: the
 * status line, the thread filter and time window of every view, the
 * replay's place, and what each view is given to draw with. */
#include "config.h"

#include "prf/replay.h"
#include "session/threads.h"
#include "session/view.h"
#include "tui/state.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const struct view_ops *const tui_views[NVIEWS] = {
    &view_histogram_ops, &view_functions_ops, &view_timeline_ops,
    &view_counters_ops,  &view_output_ops,    &view_flame_ops,
    &view_source_ops,    &view_threads_ops,   &view_callers_ops,
};

/* The tab a view belongs to: the callers are a step into the Functions. */
int tui_tab(int view)
{
    return view == V_CALLERS ? V_FUNCTIONS : view;
}

void tui_status(struct tui *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->status, sizeof t->status, fmt, ap);
    va_end(ap);
    t->status_at = clockdrv_now_ns();
    t->dirty = true;
}

/* Whether a program is running under the clock now. */
bool tui_live(const struct tui *t)
{
    return t->d != NULL && !t->d->ended;
}

/* Show frames [FROM, TO) only in every view. */
void tui_window(struct tui *t, size_t from, size_t to)
{
    session_window_set(t->s, from, to);
    t->dirty = true;
}

void tui_filter(struct tui *t, struct session_filter *f)
{
    session_filter_set(t->s, f);
    if (t->replay != NULL && f == NULL)
        tui_replay_recount(t);
    t->dirty = true;
}

void tui_replay_recount(struct tui *t)
{
    size_t pos = t->replay->pos;
    replay_seek(t->replay, 0);
    tui_replay_seek(t, pos);
}

void tui_replay_seek(struct tui *t, size_t pos)
{
    replay_seek(t->replay, pos);
    if (t->s->view.window) /* the window's frames, as far as the replay has come */
        session_window_set(t->s, t->s->view.win_from, t->s->view.win_to);
    else if (t->s->view.filter !=
             NULL) /* a replay's samples have no thread: the whole run's, filtered */
        session_filter_set(t->s, t->s->view.filter);
    t->frame_acc = 0;
    if (t->replay->pos >= t->replay->nframes)
        t->playing = false;
    t->dirty = true;
}

/* Side by side when there is room, one view at a time when there is not. */
bool tui_wide(const struct tui *t)
{
    return t->cols >= 100 && t->rows >= 20;
}

void tui_ctx(struct tui *t, struct view_ctx *ctx, int i)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->s = t->s;
    ctx->query = t->s;
    ctx->out = t->out;
    ctx->colors = t->colors;
    ctx->focused = i == t->current && t->mode != MODE_HELP;
    ctx->mode = t->replay != NULL ? VIEW_REPLAY : tui_live(t) ? VIEW_LIVE : VIEW_ENDED;
    ctx->playing = t->replay != NULL && t->playing;
    ctx->baseline = t->cfg->baseline;
    ctx->baseline_name = t->cfg->baseline_name;
}
