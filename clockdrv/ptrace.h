/* The ptrace driver (ptrace.c): a timer, and each thread stopped to read
 * its registers at every tick. */
#ifndef PROFIL_CLOCKDRV_PTRACE_H
#define PROFIL_CLOCKDRV_PTRACE_H

#include "clockdrv/clockdrv.h"

extern const struct clockdrv_ops clockdrv_ptrace_ops;

#endif
