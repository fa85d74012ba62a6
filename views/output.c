/* The program's own output, from the pty profil gave it, with scroll-back. */
#include "config.h"

#include "util/xmalloc.h"
#include "views/outbuf.h"
#include "views/view.h"

#include <stdlib.h>

struct output {
    size_t top;  /* first line shown when not following */
    bool follow; /* stick to the newest line */
    size_t rows;
};

static void *output_create(void)
{
    struct output *o = xcalloc(1, sizeof *o);
    o->follow = true;
    return o;
}

static void output_destroy(void *state)
{
    free(state);
}

/* Lines of output: a last line still empty is the cursor's, not output. */
static size_t output_lines(const struct outbuf *ob)
{
    size_t n = ob->count;
    if (n > 0 && outbuf_line(ob, n - 1)[0] == '\0')
        n--;
    return n;
}

static void output_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct output *o = state;
    const struct outbuf *ob = ctx->out;
    int w = getmaxx(win), rows = getmaxy(win) - 1;
    char info[96];
    size_t n = ob != NULL ? output_lines(ob) : 0;
    if (ob != NULL)
        snprintf(info, sizeof info, "%zu line%s%s%s", n, n == 1 ? "" : "s",
                 ob->dropped ? " (oldest dropped)" : "", o->follow ? ", following" : "");
    draw_title(win, "Output", ob ? info : "not recorded in a replay", ctx->focused, ctx->colors);
    if (rows <= 0 || ob == NULL)
        return;
    o->rows = (size_t)rows;
    if (o->follow)
        o->top = n > o->rows ? n - o->rows : 0;
    for (int r = 0; r < rows && o->top + (size_t)r < n; r++)
        draw_text(win, r + 1, 0, w, outbuf_line(ob, o->top + (size_t)r));
}

static int output_key(void *state, int key, struct view_ctx *ctx)
{
    struct output *o = state;
    if (ctx->out == NULL)
        return VIEW_IGNORED;
    size_t n = output_lines(ctx->out), last = n > o->rows ? n - o->rows : 0;
    size_t sel = o->top;
    if (key == KEY_END) {
        o->follow = true;
        return VIEW_REDRAW;
    }
    if (!scroll_key(key, &sel, last + 1, o->rows))
        return VIEW_IGNORED;
    o->top = sel;
    o->follow = sel >= last;
    return VIEW_REDRAW;
}

const struct view_ops view_output_ops = {
    .name = "Output",
    .short_name = "Out",
    .create = output_create,
    .destroy = output_destroy,
    .draw = output_draw,
    .key = output_key,
};
