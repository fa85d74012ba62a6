/* Screen setup and teardown: whatever way profil leaves, the terminal comes back. */
#ifndef PROFIL_SCREEN_H
#define PROFIL_SCREEN_H

#include <stdbool.h>

/* Take over the terminal; stderr is kept aside until screen_stop.  Returns
 * whether colours are in use (not with NO_COLOR or a monochrome terminal).
 * -1 when there is no usable terminal. */
int screen_start(void);

/* Give the terminal back and print what was written to stderr meanwhile.
 * Safe to call twice. */
void screen_stop(void);

bool screen_active(void);

#endif
