/* What the launcher tells the screen (tui_run_live, tui_run_replay): the
 * refresh, the title, how to save, when to stop, what more to watch. */
#ifndef PROFIL_TUI_CONFIG_H
#define PROFIL_TUI_CONFIG_H

#include "session/session.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

struct tui_config {
    uint32_t delay_ms; /* refresh period */
    const char *title; /* the program and its parameters, for the header */
    /* Write a snapshot of S now ('s'); 0, or -1 with *cause. */
    int (*save)(void *arg, struct session *s, char **cause);
    /* Write it under NAME from now on ('S', offered when a save fails); 0,
     * or -1 with *cause and the name left as it was.  NULL: no such key. */
    int (*save_as)(void *arg, struct session *s, const char *name, char **cause);
    void *save_arg;
    /* --until-settled: stop the program once the ranking's top has stayed
     * settled this many seconds (0: never). */
    double until_settled;
    /* --duration: end the session after this many seconds (0: never): let
     * go of an attached process, stop a started one as until_settled does. */
    double duration;
    /* --baseline: a session to compare the ranking with (borrowed), or NULL. */
    struct session *baseline;
    const char *baseline_name;
    /* More for the live loop to watch (--control, the program's profil_on
     * and profil_off): WATCH_FDS fills up to MAX pollfds; WATCH_READY obeys
     * them after the poll and returns bits, 1 for a redraw, with MSG for
     * the status line.  NULL: nothing more. */
    size_t (*watch_fds)(void *arg, struct pollfd *pfd, size_t max);
    int (*watch_ready)(void *arg, const struct pollfd *pfd, size_t n, char *msg, size_t size);
    void *watch_arg;
};

/* The most pollfds watch_fds may fill. */
#define TUI_WATCH_MAX 40

#endif
