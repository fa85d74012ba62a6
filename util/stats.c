#include "config.h"

#include "util/stats.h"

#include <math.h>

double stats_deff_jitter(double jitter_pct)
{
    double f = jitter_pct / 100;
    if (!(f > 0))
        return 1;
    return 1 + fmin(f, 1) / 2;
}

void stats_wilson(uint64_t k, uint64_t n, double deff, double *lo, double *hi)
{
    stats_wilson_z(k, n, deff, STATS_Z95, lo, hi);
}

void stats_wilson_z(uint64_t k, uint64_t n, double deff, double z, double *lo, double *hi)
{
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (k > n)
        k = n;
    if (!(deff >= 1))
        deff = 1;
    /* As many independent samples as would vary as much: N / DEFF. */
    double z2 = z * z, dn = (double)n / deff, p = (double)k / (double)n;
    double centre = (p + z2 / (2 * dn)) / (1 + z2 / dn);
    double half = z * sqrt(p * (1 - p) / dn + z2 / (4 * dn * dn)) / (1 + z2 / dn);
    *lo = k == 0 ? 0 : fmax(0, centre - half);
    *hi = k == n ? 1 : fmin(1, centre + half);
}

double stats_halfwidth_pct(uint64_t k, uint64_t n, double deff)
{
    double lo, hi;
    stats_wilson(k, n, deff, &lo, &hi);
    return 50 * (hi - lo);
}

uint64_t stats_samples_for(double p, double points, double deff)
{
    if (!(deff >= 1))
        deff = 1;
    if (!(points > 0))
        return 0;
    if (p < 0.005)
        p = 0.005; /* a share near 0 still needs a few samples to show */
    if (p > 1)
        p = 1;
    double e = points / 100, n = deff * STATS_Z95 * STATS_Z95 * p * (1 - p) / (e * e);
    return n < 1 ? 1 : (uint64_t)ceil(n);
}

int stats_overlap(uint64_t a, uint64_t b, uint64_t n, double deff)
{
    return stats_overlap_z(a, b, n, deff, STATS_Z95);
}

int stats_overlap_z(uint64_t a, uint64_t b, uint64_t n, double deff, double z)
{
    double alo, ahi, blo, bhi;
    stats_wilson_z(a, n, deff, z, &alo, &ahi);
    stats_wilson_z(b, n, deff, z, &blo, &bhi);
    return alo <= bhi && blo <= ahi;
}
