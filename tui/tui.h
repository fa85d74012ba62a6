/*
 * The ncurses application shell: the screen, the one poll() loop over the
 * clock driver, the keyboard, the program's pty, a refresh timer and signals,
 * the layout and the status bar.  It computes no profile data.
 */
#ifndef PROFIL_TUI_H
#define PROFIL_TUI_H

#include "clockdrv/clockdrv.h"
#include "session/session.h"
#include "tui/tui_config.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

/* Run the live screen while driver D samples into S; PTY is the master side
 * of the program's terminal, or -1.  Returns when the user quits (the
 * program has ended by then: it is stopped first when the user asks).
 * 0, or -1 with *cause when the screen could not start. */
int tui_run_live(struct session *s, struct clockdrv *d, int pty, const struct tui_config *cfg,
                 char **cause);

struct replay;

/* Replay a saved session on the same screen, fed from its timeline: play,
 * pause, step, speed, seek.  Returns when the user quits. */
int tui_run_replay(struct replay *r, const struct tui_config *cfg, char **cause);

#endif
