/* Every key, on one screen. */
#include "config.h"

#include "views/view.h"

static const char *const help_lines[] = {
    "  1 2 3 4 5    Histogram, Functions, Timeline, Counters, Output;  Tab  next",
    "  h ? F1       this help; Esc or any key leaves it",
    "  q F10        quit: asks first while the program still runs",
    "  Up Down j k  move;  PgUp PgDn  a page;  Home End  first, last;  mouse wheel",
    "  / F3         search routines (bucket labels in the histogram); Esc cancels",
    "  n N          that search again, forward or back; in the histogram with no",
    "               search yet, the next or previous bucket with samples",
    "",
    "  Histogram    z +  halve the bucket size;  Z -  double it (re-bucketed live)",
    "               e  hide or show empty buckets;  H  back to the hottest bucket",
    "  Functions    F6 >  next sort column;  <  previous;  I  invert the order",
    "               Enter  show the routine's buckets in the histogram",
    "  Timeline     Left Right  scroll in time;  Home  the start;  End  the newest",
    "",
    "  p Space      pause or resume: the clock (live), the playback (replay)",
    "  . ,          step one frame (100 ms) forward or back (replay)",
    "  ] [  g  G    faster, slower;  go to a time;  go to the end (replay)",
    "  c  s         clear all counters;  save a snapshot to the output file now",
    "  i            type to the program (its keyboard);  Ctrl-]  gives the keys back",
    "  Ctrl-C       goes to the program, as it did under PROFIL",
    "",
    "The counters and what they mean: the Counters view (4).  See profil(1).",
};

static void *help_create(void)
{
    return NULL;
}

static void help_destroy(void *state)
{
}

static void help_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    int w = getmaxx(win), h = getmaxy(win);
    draw_title(win, "Help: keys (htop and less habits)", "profil " PACKAGE_VERSION, true,
               ctx->colors);
    for (int i = 0; i < (int)(sizeof help_lines / sizeof help_lines[0]) && i + 1 < h; i++)
        draw_text(win, i + 1, 1, w - 1, help_lines[i]);
}

const struct view_ops view_help_ops = {
    .name = "Help",
    .create = help_create,
    .destroy = help_destroy,
    .draw = help_draw,
};
