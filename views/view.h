/*
 * A view renders the session into a window and handles its own keys.  Views
 * read a const session; what they want changed (the bucket size, a jump to a
 * function) goes back to the shell in struct view_ctx.  Adding a view is
 * adding one file and one entry in tui's table.
 */
#ifndef PROFIL_VIEW_H
#define PROFIL_VIEW_H

#include "session/session.h"

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

/* What a key did, for the shell to act on. */
enum {
    VIEW_IGNORED = 0, /* not this view's key */
    VIEW_REDRAW = 1 << 0,
    VIEW_REBUCKET = 1 << 1, /* ctx->want_paragraphs */
    VIEW_JUMP = 1 << 2,     /* ctx->jump_*: show this function's buckets */
    VIEW_CALLERS = 1 << 3,  /* ctx->jump_*: show this function's callers and callees */
    VIEW_BACK = 1 << 4,     /* go back to the view that led here */
    VIEW_SOURCE = 1 << 5,   /* ctx->jump_*: show this function's source (a) */
    VIEW_FILTER = 1 << 6,   /* ctx->filter_*: every view shows this thread or process only */
    VIEW_WINDOW = 1 << 7,   /* ctx->window_*: every view shows these frames only */
};

/* Where the session shown comes from. */
enum view_mode {
    VIEW_LIVE = 0, /* a program runs under the clock */
    VIEW_ENDED,    /* it ran under the clock and has ended */
    VIEW_REPLAY,   /* a saved session, replayed */
};

/* Colour pairs, set up by tui when the terminal has colours. */
enum {
    PAIR_PROGRAM = 1,
    PAIR_DOS,
    PAIR_IO,
    PAIR_HIGH,
    PAIR_TITLE,
    PAIR_SELECT,
    PAIR_DIM,
    PAIR_WARN,
};

struct outbuf;

struct view_ctx {
    const struct session *s;
    /* The same session, for the queries of stacks.h (callers, callees, the
     * call tree), which bring its cached totals up to date: no count changes. */
    struct session *query;
    const struct outbuf *out; /* the program's output, or NULL (replay) */
    enum view_mode mode;
    bool playing; /* a replay plays on: its counts move at every tick */
    bool focused;
    bool colors;
    /* Requests from a view to the shell. */
    uint32_t want_paragraphs;
    uint32_t jump_module;
    uint64_t jump_start; /* file offsets of the function to show */
    uint64_t jump_end;
    char status[160];    /* a message for the status line, or "" */
    uint32_t filter_pid; /* VIEW_FILTER: this process's threads, */
    uint32_t filter_tid; /* ... or this thread of it (0: all of them) */
    size_t window_from;  /* VIEW_WINDOW: frames [window_from, window_to) */
    size_t window_to;
    /* --baseline: the session the ranking's Change column compares with, or NULL. */
    struct session *baseline;
    const char *baseline_name;
};

struct view_ops {
    const char *name;       /* the tab label */
    const char *short_name; /* ... where the names do not all fit (NULL: name) */
    void *(*create)(void);
    void (*destroy)(void *state);
    /* Draw into WIN (already cleared); the window is the view's whole area. */
    void (*draw)(void *state, WINDOW *win, struct view_ctx *ctx);
    /* A key; returns VIEW_* flags.  ROWS is the height last drawn. */
    int (*key)(void *state, int key, struct view_ctx *ctx);
    /* A click at ROW (0 = first line of the view). */
    int (*click)(void *state, int row, struct view_ctx *ctx);
    /* Find TEXT from the selection on (DIR 0), after it (1) or before it (-1),
     * wrapping; TEXT "" is n or N before any search.  NULL when not searchable. */
    int (*search)(void *state, const char *text, int dir, struct view_ctx *ctx);
    /* Show the function of ctx->jump_*; NULL when the view cannot. */
    int (*jump)(void *state, struct view_ctx *ctx);
};

extern const struct view_ops view_histogram_ops;
extern const struct view_ops view_functions_ops;
extern const struct view_ops view_timeline_ops;
extern const struct view_ops view_counters_ops;
extern const struct view_ops view_output_ops;
extern const struct view_ops view_help_ops;
extern const struct view_ops view_flame_ops;
extern const struct view_ops view_callers_ops;
extern const struct view_ops view_source_ops;
extern const struct view_ops view_threads_ops;

/* Shared drawing helpers (views/draw.c). */

/* A bar of WIDTH cells, FRACTION of it filled, in colour PAIR. */
void draw_bar(WINDOW *win, int y, int x, int width, double fraction, int pair, bool colors);

/* Print at (y, x) at most WIDTH columns of TEXT, padded with blanks; text
 * cut short ends in an ellipsis. */
void draw_text(WINDOW *win, int y, int x, int width, const char *text);

/* TEXT cut to at most WIDTH columns into DST, ending in an ellipsis ("…",
 * or "..." outside a UTF-8 locale) when something other than blanks was cut;
 * control bytes become '?'.  Returns DST. */
const char *draw_fit(char *dst, size_t size, const char *text, int width);

/* TEXT fit to WIDTH columns with the ellipsis in the middle, keeping its
 * start and its end (a C++ name's class and its parameters).  Returns DST. */
const char *draw_fit_middle(char *dst, size_t size, const char *text, int width);

/* Columns TEXT takes (one per character). */
int draw_width(const char *text);

/* Whether the locale writes UTF-8 (else ASCII stand-ins are used). */
bool draw_utf8(void);

/* A title line for a view: NAME, and INFO right-aligned. */
void draw_title(WINDOW *win, const char *name, const char *info, bool focused, bool colors);

/* Scrolling math: keep SEL visible in a list of N rows shown ROWS at a time. */
size_t scroll_top(size_t top, size_t sel, size_t n, size_t rows);

/* Move a selection by KEY (arrows, j/k, PgUp/PgDn, Home/End); true if it was one. */
bool scroll_key(int key, size_t *sel, size_t n, size_t page);

#endif
