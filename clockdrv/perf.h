/* The perf driver (perf.c): perf_event_open's clock, one ring per CPU. */
#ifndef PROFIL_CLOCKDRV_PERF_H
#define PROFIL_CLOCKDRV_PERF_H

#include "clockdrv/clockdrv.h"

extern const struct clockdrv_ops clockdrv_perf_ops;

#endif
