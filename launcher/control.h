/*
 * The control channels of a run: --control FIFO[,ACK], where anyone may
 * write commands, one a line, as to perf's --control fifo:, and the
 * program's own, a socket libprofilctl (profil/control.h) finds through
 * PROFIL_CONTROL and waits on, so that profil_off() has taken effect when
 * it returns.  docs/control.md has the commands.
 */
#ifndef PROFIL_LAUNCHER_CONTROL_H
#define PROFIL_LAUNCHER_CONTROL_H

#include "clockdrv/clockdrv.h"
#include "session/session.h"

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/* The environment variable that names the program's channel. */
#define CONTROL_ENV "PROFIL_CONTROL"

/* The most descriptors control_fds fills: the FIFO, the listening socket
 * and the program's connections (each process that called the library). */
#define CONTROL_MAX_CONNS 32
#define CONTROL_MAX_FDS   (2 + CONTROL_MAX_CONNS)

/* A line longer than this is no command. */
#define CONTROL_LINE_MAX 4096

enum control_cmd {
    CONTROL_BAD = 0,
    CONTROL_ENABLE,
    CONTROL_DISABLE,
    CONTROL_CLEAR,
    CONTROL_SNAPSHOT,
    CONTROL_MARK,
    CONTROL_PING,
};

/* What control_ready did, for the loop: redraw, and (CONTROL_SAY) a
 * message worth a line on stderr when there is no screen. */
enum { CONTROL_REDRAW = 1 << 0, CONTROL_SAY = 1 << 1 };

/* Parse one command LINE (its newline already gone; blanks around it and a
 * carriage return are ignored).  For CONTROL_MARK, *ARG points at the text
 * in LINE, else it is NULL; CONTROL_BAD for anything else, "mark" without a
 * text included. */
enum control_cmd control_parse(const char *line, const char **arg);

/* Check --control's FIFO[,ACK] before anything runs: each must be a FIFO
 * or not exist yet.  0, or -1 with *CAUSE (owned). */
int control_check(const char *spec, char **cause);

struct control;

/* Open the channels: SPEC's FIFO (made, mode 0600, when missing) and its
 * ACK FIFO when SPEC is FIFO,ACK (NULL: none), and the program's socket,
 * which control_env names for the program's environment.  NULL with *CAUSE
 * (owned) when SPEC's cannot be opened. */
struct control *control_open(const char *spec, char **cause);

/* PROFIL_CONTROL=@SOCKET, for the program's environment; NULL when there is
 * no socket (or no C). */
const char *control_env(const struct control *c);

/* What the commands act on: the clock, the session, and SAVE (as the
 * screen's s key saves) for snapshot. */
void control_bind(struct control *c, struct clockdrv *d, struct session *s,
                  int (*save)(void *arg, struct session *s, char **cause), void *save_arg);

/* Fill up to MAX pollfds (CONTROL_MAX_FDS is enough) with what to watch;
 * returns how many. */
size_t control_fds(struct control *c, struct pollfd *pfd, size_t max);

/* Read and obey what the N pollfds control_fds filled (after poll) have;
 * MSG gets a line about the last thing done, for the status line.  Returns
 * CONTROL_REDRAW and CONTROL_SAY bits. */
int control_ready(struct control *c, const struct pollfd *pfd, size_t n, char *msg, size_t size);

/* Close everything and remove the FIFOs profil made.  NULL is fine. */
void control_free(struct control *c);

#endif
