/* The timeline: samples per 100 ms frame over the run, stacked by where they
 * counted (Program, DOS, I/O, high), newest on the right; below, a lane for
 * each of the functions that ran most in the frames shown: what ran when. */
#include "config.h"

#include "session/view.h"
#include "util/xmalloc.h"
#include "views/view.h"

#include <stdlib.h>
#include <string.h>

/* Lanes: at most this many, and only where the chart keeps 6 rows. */
#define TIMELINE_LANES 5

struct timeline {
    size_t end;    /* last frame shown + 1; 0 follows the live end */
    int width;     /* columns last drawn */
    size_t cursor; /* the frame { and } take, + 1; 0: the newest */
    size_t mark;   /* a window's start set with {, + 1; 0: none */
};

static void *timeline_create(void)
{
    return xcalloc(1, sizeof(struct timeline));
}

static void timeline_destroy(void *state)
{
    free(state);
}

/* The marks (--control's mark, profil_mark) over the frames they fell in:
 * a line down the column above its samples and the text on the top row, as far as the next
 * mark shown. */
static void timeline_draw_marks(WINDOW *win, const struct session *s, size_t first, size_t end,
                                int w, int h, int margin)
{
    for (size_t i = 0; i < s->nmarks; i++) {
        double f = s->marks[i].t_s * 1e9 / (double)SESSION_FRAME_NS;
        if (f < (double)first || f >= (double)end)
            continue;
        int x = margin + (int)((size_t)f - first), room = w - x - 1;
        for (size_t k = i + 1; k < s->nmarks; k++) {
            double g = s->marks[k].t_s * 1e9 / (double)SESSION_FRAME_NS;
            if (g >= (double)first && g < (double)end && (int)((size_t)g - first) + margin > x) {
                room = (int)((size_t)g - first) + margin - x - 1;
                break;
            }
        }
        for (int y = 2; y <= h; y++) { /* where the frame's own bar is not */
            if ((mvwinch(win, y, x) & A_CHARTEXT) == ' ')
                mvwaddch(win, y, x, '|');
        }
        wattron(win, A_REVERSE);
        mvwaddch(win, 1, x, '|');
        if (room > 0)
            draw_text(win, 1, x + 1, room, s->marks[i].text);
        wattroff(win, A_REVERSE);
    }
}

/* The lanes: for each function, a row whose cells say how much of each
 * frame's samples it took (. under a quarter, : under a half, + under three
 * quarters, # more), its name in the margin; rows TOP.., frames FIRST..END. */
static void timeline_draw_lanes(WINDOW *win, struct view_ctx *ctx, size_t first, size_t end,
                                int top, int lanes, int margin)
{
    struct session *s = ctx->query;
    if (s == NULL)
        return; /* no session to query: no lanes */
    size_t span = end - first, funcs[TIMELINE_LANES];
    uint64_t *counts = xcalloc((size_t)lanes * span + 1, sizeof *counts);
    size_t n = session_frame_funcs(s, first, end, (size_t)lanes, funcs, counts);
    uint64_t *total = xcalloc(span + 1, sizeof *total);
    for (size_t i = 0; i < span; i++)
        total[i] = session_frames_samples(s, first + i, first + i + 1);
    for (size_t k = 0; k < n; k++) {
        const struct func *fn = &s->funcs[funcs[k]];
        int y = top + (int)k;
        draw_text(win, y, 0, margin - 1, fn->name);
        int pair = fn->module == s->view.prog_module               ? PAIR_PROGRAM
                   : s->modules[fn->module]->kind == MODULE_KERNEL ? PAIR_IO
                                                                   : PAIR_DOS;
        for (size_t i = 0; i < span; i++) {
            uint64_t c = counts[k * span + i];
            if (c == 0 || total[i] == 0)
                continue;
            double share = (double)c / (double)total[i];
            chtype ch = share < 0.25 ? '.' : share < 0.5 ? ':' : share < 0.75 ? '+' : '#';
            if (ctx->colors)
                wattron(win, COLOR_PAIR(pair) | A_BOLD);
            mvwaddch(win, y, margin + (int)i, ch);
            if (ctx->colors)
                wattroff(win, COLOR_PAIR(pair) | A_BOLD);
        }
    }
    free(total);
    free(counts);
}

static void timeline_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct timeline *t = state;
    const struct session *s = ctx->s;
    int w = getmaxx(win), h = getmaxy(win) - 1;
    size_t end = t->end ? t->end : s->nframes;
    if (end > s->nframes)
        end = s->nframes;
    /* The lanes below the chart where it keeps 6 rows, names in a wider margin. */
    int lanes = (h - 7) / 2;
    if (lanes > TIMELINE_LANES)
        lanes = TIMELINE_LANES;
    if (lanes < 0 || s->classic || w < 40)
        lanes = 0;
    int margin = lanes > 0 ? (w / 5 < 7 ? 7 : w / 5 > 22 ? 22 : w / 5) : 7;
    int lanes_top = h - lanes + 1;
    if (lanes > 0)
        h -= lanes + 1; /* the chart's rows, a blank one between */
    int cols = w - margin;
    t->width = cols;
    size_t first = end > (size_t)(cols > 0 ? cols : 0) ? end - (size_t)cols : 0;
    uint64_t max = 1;
    for (size_t i = first; i < end; i++) {
        const struct frame *f = &s->frames[i];
        uint64_t sum = f->program + f->dos + f->io + f->high;
        if (sum > max)
            max = sum;
    }
    char info[160];
    /* "live" only while a program runs and the view follows it. */
    size_t cur = t->cursor ? t->cursor - 1 : (end ? end - 1 : 0);
    char win_text[64] = "";
    if (s->view.window)
        snprintf(win_text, sizeof win_text, "; window %.1f-%.1f s", (double)s->view.win_from / 10,
                 (double)s->view.win_to / 10);
    else if (t->mark)
        snprintf(win_text, sizeof win_text, "; window from %.1f s: } ends it",
                 (double)(t->mark - 1) / 10);
    snprintf(info, sizeof info,
             "samples per 100 ms (# program d DOS i I/O h high), %.1f-%.1f s%s; at %.1f s%s",
             (double)first / 10, (double)end / 10,
             t->end == 0 && ctx->mode == VIEW_LIVE ? " (live)" : "", (double)cur / 10, win_text);
    draw_title(win, "Timeline", info, ctx->focused, ctx->colors);
    if (h <= 0 || cols <= 0)
        return;
    mvwprintw(win, 1, margin - 7, "%6llu", (unsigned long long)max);
    mvwprintw(win, h, margin - 7, "%6d", 0);
    static const struct {
        int pair;
        chtype mono;
    } kinds[4] = {{PAIR_PROGRAM, '#'}, {PAIR_DOS, 'd'}, {PAIR_IO, 'i'}, {PAIR_HIGH, 'h'}};
    for (size_t i = first; i < end; i++) {
        const struct frame *f = &s->frames[i];
        uint64_t v[4] = {f->program, f->dos, f->io, f->high};
        int x = margin + (int)(i - first), y = h;
        /* Stack the four kinds bottom up, each rounded on its own cumulative edge. */
        uint64_t acc = 0;
        int done = 0;
        for (int k = 0; k < 4; k++) {
            acc += v[k];
            int upto = (int)((double)acc * h / (double)max + 0.5);
            if (v[k] > 0 && upto == done && done < h)
                upto = done + 1;
            for (; done < upto && done < h; done++) {
                if (ctx->colors)
                    wattron(win, COLOR_PAIR(kinds[k].pair) | A_BOLD);
                mvwaddch(win, y - done, x, kinds[k].mono);
                if (ctx->colors)
                    wattroff(win, COLOR_PAIR(kinds[k].pair) | A_BOLD);
            }
        }
    }
    timeline_draw_marks(win, s, first, end, w, h, margin);
    if (lanes > 0 && end > first)
        timeline_draw_lanes(win, ctx, first, end, lanes_top, lanes, margin);
    /* The cursor ({ and } take its frame) and the window, on the bottom row. */
    for (size_t i = first; i < end; i++) {
        bool in = (s->view.window && i >= s->view.win_from && i < s->view.win_to) ||
                  (t->mark && i >= t->mark - 1 && i <= cur);
        if (i == cur || in) {
            int x = margin + (int)(i - first);
            chtype c = mvwinch(win, h, x);
            mvwaddch(win, h, x,
                     (c & A_CHARTEXT) | (i == cur && ctx->focused ? A_REVERSE : A_UNDERLINE));
        }
    }
}

/* Keep the cursor's frame in the columns shown. */
static void timeline_follow(struct timeline *t, size_t n)
{
    if (t->cursor == 0 || t->width <= 0)
        return;
    size_t cur = t->cursor - 1, end = t->end ? t->end : n;
    size_t first = end > (size_t)t->width ? end - (size_t)t->width : 0;
    if (cur >= end)
        end = cur + 1;
    else if (cur < first)
        end = cur + (size_t)t->width;
    t->end = end >= n ? 0 : end;
}

static int timeline_key(void *state, int key, struct view_ctx *ctx)
{
    struct timeline *t = state;
    size_t n = ctx->s->nframes, end = t->end ? t->end : n;
    size_t step = t->width > 4 ? (size_t)t->width / 4 : 1;
    size_t cur = t->cursor ? t->cursor - 1 : (n ? n - 1 : 0);
    switch (key) {
    case KEY_LEFT: /* the cursor, a frame at a time */
        t->cursor = (cur > 0 ? cur - 1 : 0) + 1;
        timeline_follow(t, n);
        return VIEW_REDRAW;
    case KEY_RIGHT:
        t->cursor = cur + 1 >= n ? 0 : cur + 2;
        timeline_follow(t, n);
        return VIEW_REDRAW;
    case KEY_PPAGE: /* the view, a quarter of it at a time */
        end = end > step ? end - step : 1;
        break;
    case KEY_NPAGE: end = end + step; break;
    case KEY_HOME:
        end = t->width > 0 && (size_t)t->width < n ? (size_t)t->width : n;
        t->cursor = 1;
        break;
    case KEY_END:
        end = 0;
        t->cursor = 0;
        break;
    case '{':
        t->mark = cur + 1;
        snprintf(ctx->status, sizeof ctx->status, "window from %.1f s: move to its end and press }",
                 (double)cur / 10);
        return VIEW_REDRAW;
    case '}': {
        size_t from = t->mark ? t->mark - 1 : 0;
        if (cur < from) {
            snprintf(ctx->status, sizeof ctx->status,
                     "the window's end comes before its start (%.1f s)", (double)from / 10);
            return VIEW_REDRAW;
        }
        t->mark = 0;
        ctx->window_from = from;
        ctx->window_to = cur + 1;
        return VIEW_WINDOW | VIEW_REDRAW;
    }
    default: return VIEW_IGNORED;
    }
    t->end = end >= n ? 0 : end;
    return VIEW_REDRAW;
}

const struct view_ops view_timeline_ops = {
    .name = "Timeline",
    .short_name = "Time",
    .create = timeline_create,
    .destroy = timeline_destroy,
    .draw = timeline_draw,
    .key = timeline_key,
};
