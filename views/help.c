/* Every key: on one screen where it fits, scrolled where it does not. */
#include "config.h"

#include "util/xmalloc.h"
#include "views/view.h"

#include <stdlib.h>
#include <string.h>

static const char *const help_lines[] = {
    "  1 to 8       Histogram, Functions, Timeline, Counters, Output, Flame, Source, "
    "Threads;  Tab  next",
    "  h ? F1       this help (? and F1 in the Flame); Up Down PgUp PgDn scroll it, any other key "
    "leaves",
    "  q F10        quit: asks first while the program runs (-p: detaches at once)",
    "  Up Down j k  move;  PgUp PgDn  a page;  Home End  first, last;  mouse wheel",
    "  / F3         search routines (bucket labels in the histogram); Esc cancels",
    "  n N          that search again, forward or back; in the histogram with no",
    "               search yet, the next or previous bucket with samples",
    "",
    "  Histogram    z +  halve the bucket size;  Z -  double it (re-bucketed live)",
    "               e  hide or show empty buckets;  H  back to the hottest bucket",
    "  Functions    F6 >  next sort column;  <  previous;  I  invert the order",
    "               t  sort by Self or by Total (with call stacks: samples with the",
    "               routine anywhere on the stack, as perf top --children)",
    "               Enter  its callers and callees (with stacks; else its buckets)",
    "               b  show the routine's buckets in the histogram",
    "               (--baseline FILE.PRF: a Change column, points and stars)",
    "  Callers      Enter  go to the caller or callee;  Backspace Left  back a step",
    "               (past the first: the Functions);  b  its buckets",
    "  Timeline     Left Right  the cursor, a frame;  PgUp PgDn  scroll;  Home  the start;  "
    "End  the newest;  { }  a time window from, to the cursor: every view shows it "
    "(Esc: the whole run);  below the chart, a lane for each function that ran most: "
    "what ran when (. : + # a quarter, a half, three quarters of the frame, more)",
    "  Flame (6)    arrows h j k l  move between frames;  Enter  zoom into one;",
    "               Backspace  zoom back out;  /  highlight frames and show their",
    "               share;  n N  the next match;  r  inverted (callers under);",
    "               with --baseline, red grew and blue shrank (+ and . without",
    "               colours, bold 5 points or more);  b  by kind again, or back;",
    "               x  the baseline's frames, red where it had more",
    "  a            (Functions, Callers, Flame, Histogram) the source of the selected "
    "routine (in the histogram: the bucket's label)",
    "  Source (7)   a routine's lines: samples, % of the routine and of all, stars, "
    "Total (with stacks);  ] [  the next, previous hot line (hottest first);  "
    "H  the hottest;  d  its instructions under their lines, or back;  Enter  into "
    "the routine the line calls;  Backspace  back;  /  search the lines",
    "  Threads (8)  each process and its threads: samples, on a CPU, blocked, state;  "
    "F6 > <  sort;  Enter  every view counts that thread (or process) only;  Esc  "
    "(any view) every thread again",
    "",
    "  p Space      pause or resume: the clock (live), the playback (replay)",
    "  . ,          step one frame (100 ms) forward or back (replay)",
    "  ] [  g  G    faster, slower (not in the Source);  go to a time;  go to the end "
    "(replay)",
    "  c  s         clear all counters;  save a snapshot to the output file now",
    "  S            after a failed save: save under another name (asked for)",
    "  o            on-CPU time only, or all time: a wall clock's waits (blocked threads, "
    "[blocked] in the stacks) left out of every view, or counted again",
    "  i            type to the program (its keyboard);  Ctrl-]  gives the keys back",
    "  Ctrl-C       goes to the program, as it did under PROFIL",
    "",
    "The counters and what they mean: the Counters view (4).  See profil(1).",
};

/* Where the help is scrolled to, and how much of it the last draw showed. */
struct help {
    size_t top;  /* first wrapped line shown */
    size_t n;    /* wrapped lines at the last draw's width */
    size_t rows; /* rows the last draw had for them */
};

static void *help_create(void)
{
    return xcalloc(1, sizeof(struct help));
}

static void help_destroy(void *state)
{
    free(state);
}

/* Split LINE for WIDTH columns at blanks; continuations are indented to the
 * column the descriptions start in.  Returns the pieces, up to MAX, in OUT. */
static size_t help_wrap(const char *line, int width, char out[][128], size_t max)
{
    const int indent = 15;
    size_t n = 0;
    const char *p = line;
    bool first = true;
    do {
        int lead = first ? 0 : indent, room = width - lead;
        if (room < 10) { /* too narrow to indent: start at the margin */
            lead = 0;
            room = width > 1 ? width : 1;
        }
        int len = (int)strlen(p);
        if (len > room) {
            int cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            len = cut > 0 ? cut : room;
        }
        if (n < max)
            snprintf(out[n], sizeof out[n], "%*s%.*s", lead, "", len, p);
        n++;
        p += len;
        while (*p == ' ')
            p++;
        first = false;
    } while (*p != '\0');
    return n;
}

static void help_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct help *hp = state;
    int w = getmaxx(win), h = getmaxy(win);
    char wrapped[128][128];
    size_t n = 0;
    for (size_t i = 0; i < sizeof help_lines / sizeof help_lines[0]; i++) {
        n += help_wrap(help_lines[i], w - 2, wrapped + (n < 128 ? n : 128), n < 128 ? 128 - n : 0);
    }
    if (n > 128)
        n = 128;
    size_t rows = h > 1 ? (size_t)(h - 1) : 0;
    bool more = false;
    if (n > rows && rows > 1) { /* the last row says there is more */
        rows--;
        more = true;
    }
    if (hp->top + rows > n)
        hp->top = n > rows ? n - rows : 0;
    hp->n = n;
    hp->rows = rows;
    char info[64];
    snprintf(info, sizeof info, "%s", "profil " PACKAGE_VERSION);
    if (n > rows)
        snprintf(info, sizeof info, "lines %zu-%zu of %zu", hp->top + 1, hp->top + rows, n);
    draw_title(win, "Help: keys (htop and less habits)", info, true, ctx->colors);
    for (size_t i = 0; i < rows && hp->top + i < n; i++)
        draw_text(win, (int)i + 1, 1, w - 1, wrapped[hp->top + i]);
    if (more) {
        bool below = hp->top + rows < n;
        wattron(win, A_BOLD);
        draw_text(win, h - 1, 1, w - 1,
                  below ? "-- more below: Down j PgDn; any other key leaves --"
                        : "-- the end: Up k PgUp; any other key leaves --");
        wattroff(win, A_BOLD);
    }
}

/* Arrows, j k, PgUp PgDn, Home End scroll; every other key is the shell's. */
static int help_key(void *state, int key, struct view_ctx *ctx)
{
    struct help *hp = state;
    (void)ctx;
    size_t last = hp->n > hp->rows ? hp->n - hp->rows : 0;
    size_t page = hp->rows > 1 ? hp->rows - 1 : 1;
    switch (key) {
    case KEY_UP:
    case 'k': hp->top = hp->top > 0 ? hp->top - 1 : 0; break;
    case KEY_DOWN:
    case 'j': hp->top = hp->top < last ? hp->top + 1 : last; break;
    case KEY_PPAGE: hp->top = hp->top > page ? hp->top - page : 0; break;
    case KEY_NPAGE: hp->top = hp->top + page < last ? hp->top + page : last; break;
    case KEY_HOME: hp->top = 0; break;
    case KEY_END: hp->top = last; break;
    default: return VIEW_IGNORED;
    }
    return VIEW_REDRAW;
}

const struct view_ops view_help_ops = {
    .name = "Help",
    .create = help_create,
    .destroy = help_destroy,
    .draw = help_draw,
    .key = help_key,
};
