/* The 95 % intervals of util/stats.c against values computed by hand
 * (Wilson 1927; Newcombe 1998's table for the small cases). */
#include "config.h"

#include "tests/tap.h"
#include "util/stats.h"

#include <math.h>

static int near(double got, double want, double eps)
{
    if (fabs(got - want) <= eps)
        return 1;
    printf("#   got %.6f, want %.6f\n", got, want);
    return 0;
}

int main(void)
{
    plan(21);
    double lo, hi;
    stats_wilson(50, 100, 1, &lo, &hi);
    ok(near(lo, 0.4038, 5e-5) && near(hi, 0.5962, 5e-5), "50 of 100: [40.38 %%, 59.62 %%]");
    stats_wilson(0, 10, 1, &lo, &hi);
    ok(near(lo, 0, 1e-12) && near(hi, 0.2775, 5e-5), "0 of 10: [0, 27.75 %%], not of no width");
    stats_wilson(10, 10, 1, &lo, &hi);
    ok(near(lo, 0.7225, 5e-5) && near(hi, 1, 1e-12), "10 of 10: [72.25 %%, 100 %%]");
    stats_wilson(81, 263, 1, &lo, &hi);
    ok(near(lo, 0.2553, 5e-5) && near(hi, 0.3662, 5e-5),
       "81 of 263: Newcombe's [25.53 %%, 36.62 %%]");
    stats_wilson(1, 29, 1, &lo, &hi);
    ok(near(lo, 0.0061, 5e-5) && near(hi, 0.1718, 5e-5), "1 of 29: Newcombe's [0.61 %%, 17.18 %%]");
    stats_wilson(5, 0, 1, &lo, &hi);
    ok(lo == 0 && hi == 1, "no samples: [0, 100 %%]");
    double all_lo, all_hi;
    stats_wilson(5, 5, 1, &all_lo, &all_hi);
    stats_wilson(12, 5, 1, &lo, &hi);
    ok(lo == all_lo && hi == all_hi && hi == 1,
       "more successes than trials count as all: 5 of 5's [%.4f, %.4f]", all_lo, all_hi);
    ok(near(stats_halfwidth_pct(423, 1000, 1), 3.05, 0.01), "423 of 1000: +-3.05 points");
    ok(near(stats_halfwidth_pct(42300, 100000, 1), 0.306, 0.001), "100 times the samples: +-0.31");
    is_u64(stats_samples_for(0.5, 1, 1), 9604, "a 50 %% share +-1 point takes 9,604 samples");
    is_u64(stats_samples_for(0.2, 2, 1), 1537, "a 20 %% share +-2 points takes 1,537");
    is_u64(stats_samples_for(0, 1, 1), 192,
           "a share of 0 asks for what 0.5 %% does, +-1 point: 1.96^2 * 0.005 * 0.995 / 0.01^2");
    ok(stats_overlap(500, 480, 1000, 1), "50.0 %% and 48.0 %% of 1000 cannot be told apart");
    ok(!stats_overlap(500, 400, 1000, 1), "50 %% and 40 %% of 1000 can");
    ok(!stats_overlap(50000, 48000, 100000, 1), "50.0 %% and 48.0 %% of 100,000 can");
    /* Jittered ticks vary 1 + F/2 times as much as independent samples. */
    ok(near(stats_deff_jitter(50), 1.25, 1e-12),
       "periods jittered +-50 %%: a design effect of 1.25");
    ok(stats_deff_jitter(0) == 1, "exact periods: 1");
    ok(near(stats_deff_jitter(200), 1.5, 1e-12), "jitter beyond 100 %% counts as 100 %%: 1.5");
    double dlo, dhi;
    stats_wilson(500, 1000, 1.25, &dlo, &dhi);
    stats_wilson(400, 800, 1, &lo, &hi);
    ok(near(dlo, lo, 1e-12) && near(dhi, hi, 1e-12),
       "500 of 1000 at a design effect of 1.25: the interval of 400 of 800");
    is_u64(stats_samples_for(0.5, 1, 1.25), 12005,
           "... and +-1 point takes 1.25 times 9,604 samples");
    ok(stats_overlap(500, 435, 1000, 1.25) && !stats_overlap(500, 435, 1000, 1),
       "50 %% and 43.5 %% of 1000: apart for independent samples, not for jittered ones");
    return tap_done();
}
