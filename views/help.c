/* Every key, on one screen. */
#include "config.h"

#include "views/view.h"

static const char *const help_lines[] = {
    "Keys (htop and less habits)",
    "",
    "  1 2 3 4 5    Histogram, Functions, Timeline, Counters, Output",
    "  Tab          next view (or the other panel side by side)",
    "  ? F1         this help; any key leaves it",
    "  q F10        quit: asks first while the program still runs",
    "",
    "  Up Down j k  move;  PgUp PgDn  a page;  Home End  first, last",
    "  /  n         search routines (bucket symbols in the histogram), next match",
    "",
    "  Histogram    z +  halve the bucket size;  Z -  double it (re-bucketed live)",
    "               e    hide or show empty buckets;  h  jump to the hottest bucket",
    "  Functions    F6 > .  next sort column;  < ,  previous;  I  invert the order",
    "               Enter  show the routine's buckets in the histogram",
    "  Timeline     Left Right  scroll in time;  End  follow the live end",
    "",
    "  p            pause or resume the clock (the program keeps running)",
    "  c            clear all counters;  s  save a snapshot to the output file now",
    "  i            type to the program (its keyboard);  Ctrl-]  gives the keys back",
    "  Ctrl-C       goes to the program, as it did under PROFIL",
    "",
    "Counters: Program = the program's own code (the buckets); DOS = shared",
    "libraries, loader, vDSO; I/O = kernel, or blocked in a system call; high =",
    "anonymous or unknown code.  See profil(1).",
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
    draw_title(win, "Help", "profil " PACKAGE_VERSION, true, ctx->colors);
    for (int i = 0; i < (int)(sizeof help_lines / sizeof help_lines[0]) && i + 2 < h; i++)
        draw_text(win, i + 2, 1, w - 1, help_lines[i]);
}

const struct view_ops view_help_ops = {
    .name = "Help",
    .create = help_create,
    .destroy = help_destroy,
    .draw = help_draw,
};
