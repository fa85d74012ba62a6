/* The keys typed on the screen (keys.c): what each does, and the prompts. */
#ifndef PROFIL_TUI_KEYS_H
#define PROFIL_TUI_KEYS_H

#include "tui/state.h"

/* One key typed on the screen. */
void tui_key(struct tui *t, int ch);

/* A save failed for CAUSE: say so, and how to save under another name. */
void tui_save_failed(struct tui *t, const char *cause);

#endif
