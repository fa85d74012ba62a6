/* Ticks as a time. */
#ifndef PROFIL_TICKS_H
#define PROFIL_TICKS_H

#include <stddef.h>
#include <stdint.h>

/* "mm:ss.mmm" for SAMPLES ticks of INTERVAL_US into BUF (at least 32
 * bytes), which it returns; a time past 64 bits of milliseconds is the
 * largest, marked "+". */
const char *ticks_time(char *buf, size_t size, uint64_t samples, uint32_t interval_us);

#endif
