#include "config.h"

#include "session/stats.h"

#include <math.h>

void stats_wilson(uint64_t k, uint64_t n, double *lo, double *hi)
{
    stats_wilson_z(k, n, STATS_Z95, lo, hi);
}

void stats_wilson_z(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (k > n)
        k = n;
    double z2 = z * z, dn = (double)n, p = (double)k / dn;
    double centre = (p + z2 / (2 * dn)) / (1 + z2 / dn);
    double half = z * sqrt(p * (1 - p) / dn + z2 / (4 * dn * dn)) / (1 + z2 / dn);
    *lo = k == 0 ? 0 : fmax(0, centre - half);
    *hi = k == n ? 1 : fmin(1, centre + half);
}

double stats_halfwidth_pct(uint64_t k, uint64_t n)
{
    double lo, hi;
    stats_wilson(k, n, &lo, &hi);
    return 50 * (hi - lo);
}

uint64_t stats_samples_for(double p, double points)
{
    if (!(points > 0))
        return 0;
    if (p < 0.005)
        p = 0.005; /* a share near 0 still needs a few samples to show */
    if (p > 1)
        p = 1;
    double e = points / 100, n = STATS_Z95 * STATS_Z95 * p * (1 - p) / (e * e);
    return n < 1 ? 1 : (uint64_t)ceil(n);
}

int stats_overlap(uint64_t a, uint64_t b, uint64_t n)
{
    return stats_overlap_z(a, b, n, STATS_Z95);
}

int stats_overlap_z(uint64_t a, uint64_t b, uint64_t n, double z)
{
    double alo, ahi, blo, bhi;
    stats_wilson_z(a, n, z, &alo, &ahi);
    stats_wilson_z(b, n, z, &blo, &bhi);
    return alo <= bhi && blo <= ahi;
}
