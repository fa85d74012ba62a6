/* The timeline: samples per 100 ms frame over the run, stacked by where they
 * counted (Program, DOS, I/O, high), newest on the right. */
#include "config.h"

#include "util/xmalloc.h"
#include "views/view.h"

#include <stdlib.h>

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
                                int w, int h)
{
    for (size_t i = 0; i < s->nmarks; i++) {
        double f = s->marks[i].t_s * 1e9 / (double)SESSION_FRAME_NS;
        if (f < (double)first || f >= (double)end)
            continue;
        int x = 7 + (int)((size_t)f - first), room = w - x - 1;
        for (size_t k = i + 1; k < s->nmarks; k++) {
            double g = s->marks[k].t_s * 1e9 / (double)SESSION_FRAME_NS;
            if (g >= (double)first && g < (double)end && (int)((size_t)g - first) + 7 > x) {
                room = (int)((size_t)g - first) + 7 - x - 1;
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

static void timeline_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct timeline *t = state;
    const struct session *s = ctx->s;
    int w = getmaxx(win), h = getmaxy(win) - 1;
    size_t end = t->end ? t->end : s->nframes;
    if (end > s->nframes)
        end = s->nframes;
    int cols = w - 7;
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
    if (s->window)
        snprintf(win_text, sizeof win_text, "; window %.1f-%.1f s", (double)s->win_from / 10,
                 (double)s->win_to / 10);
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
    mvwprintw(win, 1, 0, "%6llu", (unsigned long long)max);
    mvwprintw(win, h, 0, "%6d", 0);
    static const struct {
        int pair;
        chtype mono;
    } kinds[4] = {{PAIR_PROGRAM, '#'}, {PAIR_DOS, 'd'}, {PAIR_IO, 'i'}, {PAIR_HIGH, 'h'}};
    for (size_t i = first; i < end; i++) {
        const struct frame *f = &s->frames[i];
        uint64_t v[4] = {f->program, f->dos, f->io, f->high};
        int x = 7 + (int)(i - first), y = h;
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
    timeline_draw_marks(win, s, first, end, w, h);
    /* The cursor ({ and } take its frame) and the window, on the bottom row. */
    for (size_t i = first; i < end; i++) {
        bool in = (s->window && i >= s->win_from && i < s->win_to) ||
                  (t->mark && i >= t->mark - 1 && i <= cur);
        if (i == cur || in) {
            int x = 7 + (int)(i - first);
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
