/* The clock drivers built in, by name or by the first that can run here:
 * the one file that knows them all (drivers.c), so that clockdrv.c's
 * helpers, which the drivers use, know none of them. */
#ifndef PROFIL_CLOCKDRV_DRIVERS_H
#define PROFIL_CLOCKDRV_DRIVERS_H

#include "clockdrv/clockdrv.h"

/* The driver named NAME ("perf", "ptrace"), or NULL. */
const struct clockdrv_ops *clockdrv_find(const char *name);

/* For "auto": the first driver whose probe passes; NULL and *cause naming
 * every driver's reason when none can run. */
const struct clockdrv_ops *clockdrv_choose(const struct clockdrv_config *cfg, char **cause);

#endif
