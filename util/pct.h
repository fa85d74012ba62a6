/* A part of a whole in percent, 0 when the whole is nothing. */
#ifndef PROFIL_PCT_H
#define PROFIL_PCT_H

#include <stdint.h>

static inline double pct_of(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

#endif
