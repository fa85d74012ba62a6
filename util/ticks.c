#include "config.h"

#include "util/ticks.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

const char *ticks_time(char *buf, size_t size, uint64_t samples, uint32_t interval_us)
{
    /* Exact as long as the milliseconds fit 64 bits; past that (counts near
     * 2^64 from a hostile file), the largest time, marked "+": not a product
     * that wrapped round to a small one. */
    unsigned __int128 exact = ((unsigned __int128)samples * interval_us + 500) / 1000;
    bool saturated = exact > UINT64_MAX;
    uint64_t ms = saturated ? UINT64_MAX : (uint64_t)exact;
    snprintf(buf, size, "%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64 "%s", ms / 60000, ms / 1000 % 60,
             ms % 1000, saturated ? "+" : "");
    return buf;
}
