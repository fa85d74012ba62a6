/* How far to trust a share: the 95 % interval of a sampled proportion, and
 * how many samples a narrower one needs.  docs/statistics.md says what the
 * intervals mean and what they do not cover. */
#ifndef PROFIL_UTIL_STATS_H
#define PROFIL_UTIL_STATS_H

#include <stdint.h>

/* z of a two-sided 95 % interval. */
#define STATS_Z95 1.959963984540054
/* And of a 99 % one. */
#define STATS_Z99 2.575829303548901

/* The design effect of jittered samples: how many times the variance of a
 * share of them is that of a share of as many independent samples.  Each
 * sample of a period w intervals long (w uniform in 1 +- F, F the jitter
 * as a fraction) counts floor(w) ticks, or one more with the chance of w's
 * fraction (the ptrace driver carries the fraction instead, to the same
 * effect): ticks of mean 1 and mean square 1 + F/2, 1.25 at +-50 %.
 * 1 for exact periods (JITTER_PCT 0). */
double stats_deff_jitter(double jitter_pct);

/* The Wilson score interval of K ticks out of N, whose variance is DEFF
 * times a binomial one (1: independent samples of one tick each), at z =
 * STATS_Z95, as fractions in [0, 1]: good for small K and N too, where
 * p +- z sqrt(p(1-p)/n) gives intervals below 0 or of no width.  N = 0:
 * [0, 1]. */
void stats_wilson(uint64_t k, uint64_t n, double deff, double *lo, double *hi);
/* The same at another Z. */
void stats_wilson_z(uint64_t k, uint64_t n, double deff, double z, double *lo, double *hi);

/* Half the width of that interval, in points of percent: the "+-1.2" shown
 * beside a share of K ticks out of N. */
double stats_halfwidth_pct(uint64_t k, uint64_t n, double deff);

/* About how many ticks in all make a share P (a fraction) +- POINTS
 * points of percent at 95 %. */
uint64_t stats_samples_for(double p, double points, double deff);

/* Whether the intervals of A and B ticks out of N overlap: their shares
 * cannot be told apart at 95 %. */
int stats_overlap(uint64_t a, uint64_t b, uint64_t n, double deff);
/* The same for intervals at another Z. */
int stats_overlap_z(uint64_t a, uint64_t b, uint64_t n, double deff, double z);

#endif
