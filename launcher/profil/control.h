/*
 * profil/control.h: a program turns profil's clock off and on around the
 * work it wants left out of its profile, and marks moments of its run, as
 * MIPS moncontrol(3C) allowed.  Link with -lprofilctl (pkg-config
 * profilctl).
 *
 * Not run under profil, each call is one predictable branch and does
 * nothing.  Run under profil (which names its channel in the environment
 * variable PROFIL_CONTROL), each call waits until profil has done what it
 * asks: when profil_off() returns the clock is off, and when profil_on()
 * returns it runs.  A call made while profil does not answer within five
 * seconds, or after profil has gone, does nothing.  Safe to call from
 * several threads and after fork.
 */
#ifndef PROFIL_CONTROL_H
#define PROFIL_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Start the clock again (profil's "enable"). */
void profil_on(void);

/* Stop the clock: nothing the program does from the return of this call
 * until profil_on() is sampled (profil's "disable"). */
void profil_off(void);

/* Put a mark TEXT at this moment of the run: it shows in the timeline and
 * the report (profil's "mark TEXT"; at most 256 bytes, one line). */
void profil_mark(const char *text);

#ifdef __cplusplus
}
#endif

#endif
