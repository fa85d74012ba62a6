/* How far to trust a share: the 95 % interval of a sampled proportion, and
 * how many samples a narrower one needs.  docs/statistics.md says what the
 * intervals mean and what they do not cover. */
#ifndef PROFIL_SESSION_STATS_H
#define PROFIL_SESSION_STATS_H

#include <stdint.h>

/* z of a two-sided 95 % interval. */
#define STATS_Z95 1.959963984540054
/* And of a 99 % one. */
#define STATS_Z99 2.575829303548901

/* The Wilson score interval of K successes in N trials at z = STATS_Z95, as
 * fractions in [0, 1]: good for small K and N too, where p +- z sqrt(p(1-p)/n)
 * gives intervals below 0 or of no width.  N = 0: [0, 1]. */
void stats_wilson(uint64_t k, uint64_t n, double *lo, double *hi);
/* The same at another Z. */
void stats_wilson_z(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/* Half the width of that interval, in points of percent: the "+-1.2" shown
 * beside a share of K samples out of N. */
double stats_halfwidth_pct(uint64_t k, uint64_t n);

/* About how many samples in all make a share P (a fraction) +- POINTS
 * points of percent at 95 %. */
uint64_t stats_samples_for(double p, double points);

/* Whether the intervals of A and B samples out of N overlap: their shares
 * cannot be told apart at 95 %. */
int stats_overlap(uint64_t a, uint64_t b, uint64_t n);
/* The same for intervals at another Z. */
int stats_overlap_z(uint64_t a, uint64_t b, uint64_t n, double z);

#endif
