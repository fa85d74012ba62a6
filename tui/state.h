/*
 * What the files of tui/ share and nothing else sees: the screen's state,
 * the views it shows, and what the event loop (tui.c) and the keys (keys.c)
 * both do to it (state.c).
 */
#ifndef PROFIL_TUI_STATE_H
#define PROFIL_TUI_STATE_H

#include "analysis/settle.h"
#include "clockdrv/clockdrv.h"
#include "session/session.h"
#include "tui/tui_config.h"
#include "views/view.h"

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NVIEWS 9 /* the tabs, and the callers, which Enter in the Functions opens */
#define NTABS  8

enum {
    V_HISTOGRAM,
    V_FUNCTIONS,
    V_TIMELINE,
    V_COUNTERS,
    V_OUTPUT,
    V_FLAME,
    V_SOURCE,
    V_THREADS,
    V_CALLERS
};

/* What the keys mean now (tui/keys.c): one mode at a time. */
enum tui_mode {
    MODE_NORMAL,       /* the screen's keys, then the focused view's */
    MODE_HELP,         /* the help shows: it scrolls, another key closes it */
    MODE_INPUT,        /* keys go to the program; Ctrl-] gives them back */
    MODE_SEARCH,       /* the status line asks what to search for */
    MODE_GO_TO,        /* ... a second of the replay to go to */
    MODE_SAVE_AS,      /* ... a name to save under (into save_name) */
    MODE_CONFIRM_QUIT, /* "Stop it and quit? (y/n)" */
};

struct place {
    bool shown;
    int y, x, h, w;
};

struct tui {
    struct session *s;
    struct clockdrv *d;    /* the live driver, or NULL in a replay */
    struct replay *replay; /* the replay, or NULL when live */
    bool playing;
    double speed; /* frames of the session per frame of real time */
    double frame_acc;
    char save_name[256];
    const struct tui_config *cfg;
    int pty;
    struct outbuf *out;
    void *state[NVIEWS];
    WINDOW *win[NVIEWS];
    struct place place[NVIEWS];
    WINDOW *help_win;
    void *help_state; /* where the help is scrolled to */
    int current;
    int tab_x[NTABS], tab_w[NTABS]; /* where the tabs were drawn, for clicks */
    enum tui_mode mode;
    bool colors;
    char search[64];      /* what the search and go-to prompts hold */
    char last_search[64]; /* the search n and N repeat, in any view */
    bool quit;
    bool stopping;
    /* What stopped the program when profil did on its own (--duration,
     * --until-settled): the screen then stays, as at a normal end; NULL
     * when the user asked (q, TERM), and profil leaves with the program. */
    const char *stopped_by;
    uint64_t stop_at;
    struct settle settle; /* live: whether the top of the ranking has stopped moving */
    double settled_for;   /* ... and for how long, in seconds */
    bool saved_at_end;
    char status[160];
    uint64_t status_at;
    bool msg_row; /* the layout gives the message a row above the keys */
    int rows, cols;
    bool dirty;
    bool relayout;
    uint64_t seen_total, seen_lost;
    uint64_t rate_at; /* the last redraw for the clock alone */
    uint64_t last_draw;
};

extern const struct view_ops *const tui_views[NVIEWS];

/* The tab a view belongs to: the callers are a step into the Functions. */
int tui_tab(int view);
/* Say FMT on the status line. */
void tui_status(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether a program is running under the clock now. */
bool tui_live(const struct tui *t);
/* Move the replay to POS frames, the window and filter kept. */
void tui_replay_seek(struct tui *t, size_t pos);
/* The replay's own counts made again up to where it is: fed again from its
 * start, the views (filter, window, on-CPU) as they are now. */
void tui_replay_recount(struct tui *t);
/* Show the threads of F only in every view (NULL: all of them); F is the session's from now. */
struct session_filter;
void tui_filter(struct tui *t, struct session_filter *f);
/* Show frames [FROM, TO) only in every view. */
void tui_window(struct tui *t, size_t from, size_t to);
/* Side by side when there is room, one view at a time when there is not. */
bool tui_wide(const struct tui *t);
/* What view I (-1: the help) is given to draw with. */
void tui_ctx(struct tui *t, struct view_ctx *ctx, int i);

#endif
