/* The header above the views and the status line below them (bars.c). */
#ifndef PROFIL_TUI_BARS_H
#define PROFIL_TUI_BARS_H

#include "tui/state.h"

/* The header's rows: the title, the facts, two rows of meters. */
#define HEADER_ROWS 4

/* Draw the header on stdscr: the title, the facts that fit, the meters. */
void tui_draw_header(struct tui *t);

/* Draw the status line on stdscr's last row (and the message's row above it
 * when the layout gave it one), noting where each tab went for clicks. */
void tui_draw_status(struct tui *t);

#endif
