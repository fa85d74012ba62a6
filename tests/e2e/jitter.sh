#!/bin/sh
# jitter.sh - no lockstep bias: tests/progs/lockstep spends the first 200 us
# of every 1,000 us of CLOCK_MONOTONIC in in_step and the rest in
# out_of_step.  Sampled every 1,000 us of CPU time with exact periods, the
# clock sees the same phase run after run and in_step's share is anywhere
# from 0 to 60 %; with the default jittered periods, ten runs give a mean
# within 2 points of the truth (the program's own clock says it) and a
# spread like a binomial one of that many samples.  The test runs both, so
# it can tell them apart.  Under make -j it runs alone: beside another
# test, one jittered perf run of ten once gave 25.4 % against 19.4.
E2E_ALONE=1
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 12

RUNS=10
SECONDS_PER_RUN=0.8

# runs NAME DRIVER [PROFIL-OPTION...]: $RUNS runs of lockstep, one line per run
# in $T/NAME.runs: "truth in_step out_of_step" (the program's own share of
# in_step, and each phase's samples with their callees: the clock reads land
# in the vDSO).  A phase is its function and the CPU-clock read that ends it
# (in_step_done, out_of_step_done), as the program counts its truth: ptrace's
# late samples land at that read's system call.
runs() {
    _name=$1 _driver=$2
    shift 2
    : >"$T/$_name.runs"
    for _i in $(seq 1 $RUNS); do
        "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu --driver "$_driver" "$@" -o "$T/$_name.PRF" \
            "$PROGS/lockstep" $SECONDS_PER_RUN </dev/null >"$T/$_name.out" 2>"$T/$_name.err" || return 1
        _truth=$(sed -n 's/^lockstep: in_step \([0-9.]*\)%$/\1/p' "$T/$_name.out")
        "$PROFIL" --report --json "$T/$_name.PRF" 2>/dev/null |
            jq -r --arg t "$_truth" '[.functions[] | select(.name | test("^(in_step|out_of_step)(_done)?$"))
                                      | {(.name): .total}] | add // {}
                                     | "\($t) \((.in_step // 0) + (.in_step_done // 0))"
                                       + " \((.out_of_step // 0) + (.out_of_step_done // 0))"' >>"$T/$_name.runs"
    done
}

# stats NAME: "truth mean sd binomial_sd error binomial_truth shares..." of
# the runs, in points: the mean truth, the mean and standard deviation of
# in_step's share, the standard deviation a binomial share of the runs' mean
# sample count has, the root mean square of each run's share less its truth,
# and the binomial standard deviation at the truth.
stats() {
    awk '{ s = $2 + $3 > 0 ? 100 * $2 / ($2 + $3) : 0; t += $1; m += s; m2 += s * s; n += $2 + $3
           e2 += (s - $1) * (s - $1); v = v sprintf(" %.1f", s) }
         END { k = NR; mean = m / k; var = (m2 - k * mean * mean) / (k - 1)
               p = mean / 100; b = 100 * sqrt(p * (1 - p) / (n / k))
               q = t / k / 100; bt = 100 * sqrt(q * (1 - q) / (n / k))
               printf "%.2f %.2f %.2f %.2f %.2f %.2f%s\n", t / k, mean, sqrt(var > 0 ? var : 0), b,
                      sqrt(e2 / k), bt, v }' "$T/$1.runs"
}

# A program that loses its CPU is out of step by itself: when others keep
# the CPUs busy, exact periods may not show the bias.  How much the CPUs
# were fought over is measured while the exact runs run, not guessed from
# the load average (which lags a minute behind): the kernel's pressure stall
# information, /proc/pressure/cpu's "some" total, the microseconds in which
# some task waited for a CPU.  Under make -j this test runs alone, so
# the suite's own tests are not among them.
# psi_total: that total, "x" when the kernel has no PSI.
psi_total() { sed -n 's/^some .*total=\([0-9]*\)$/\1/p' /proc/pressure/cpu 2>/dev/null | grep . || echo x; }
now_us() { echo $(($(date +%s%N) / 1000)); }

for driver in perf ptrace; do
    if [ "$driver" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 5 "$driver: jittered periods" perf-refused "$(perf_refused)"
        continue
    fi
    # Both drivers weigh each sample by the ticks of its period: jittered
    # periods make those weights 0, 1 or 2 (perf rounds at random, ptrace
    # carries the fraction), and a share of them varies 1.25 times as much
    # as a binomial one (docs/statistics.md, the design effect): a standard
    # deviation sqrt(1.25) = 1.118 times the binomial one.  The bound: ten
    # runs of such a sampler give a standard deviation over 1.76 times its
    # own 1 time in 1,000 (chi-square, 9 degrees of freedom); over 1.5 times,
    # 1 in 60, which failed a run here by chance.  Exact periods in step
    # gave 16 to 30 times the binomial one (or the same wrong share every
    # run: checked below).
    limit=$(calc "1.76 * sqrt(1.25)")

    if ! runs "j-$driver" "$driver"; then
        for _c in "the session says its periods were jittered" "jittered: the mean share" \
            "jittered: the spread" "--no-jitter: the session says its periods were exact" \
            "--no-jitter: the lockstep shows"; do
            fail "$driver: $_c: the jittered runs did not run" "$(cat "$T/j-$driver.err")"
        done
        continue
    fi
    set -- $(stats "j-$driver")
    truth=$1 mean=$2 sd=$3 bsd=$4
    shift 6
    diag "$driver, jittered: truth $truth %, in_step's share:$*: mean $mean sd $sd (binomial $bsd)"
    is "$(json "$T/j-$driver.PRF" .jitter_pct)" 50 \
        "$driver: the session says its periods were jittered by 50 %"
    cmp_ok "$(calc "($mean - $truth) * ($mean - $truth)")" "<" 4 \
        "$driver, jittered: in_step's mean share is within 2 points of the truth"
    cmp_ok "$sd" "<=" "$(calc "$limit * $bsd")" \
        "$driver, jittered: the spread is within 1.76 times that of jittered ticks (1.97 times the binomial one)"

    psi0=$(psi_total) t0=$(now_us)
    if ! runs "x-$driver" "$driver" --no-jitter; then
        for _c in "--no-jitter: the session says its periods were exact" "--no-jitter: the lockstep shows"; do
            fail "$driver: $_c: the exact runs did not run" "$(cat "$T/x-$driver.err")"
        done
        continue
    fi
    psi1=$(psi_total) t1=$(now_us)
    # The share of the exact runs' time in which some task waited for a CPU.
    contended=x
    [ "$psi0" != x ] && [ "$psi1" != x ] && contended=$(calc "100 * ($psi1 - $psi0) / ($t1 - $t0)")
    set -- $(stats "x-$driver")
    xmean=$2 xsd=$3 xerr=$5 xbsd=$6
    shift 6
    diag "$driver, --no-jitter: in_step's share:$*: mean $xmean sd $xsd, off the truth by $xerr (rms; binomial $xbsd)"
    is "$(json "$T/x-$driver.PRF" .jitter_pct)" 0 \
        "$driver: --no-jitter: the session says its periods were exact"
    # In step, the clock sees one phase: the share is off the truth, the
    # same way in every run (in_step 0 % ten times) or a different way in
    # each (0 to 60 %).  Either way the runs' error from the truth is far
    # over the binomial spread.
    diag "$driver, --no-jitter: some task waited for a CPU ${contended} % of the runs' time (/proc/pressure/cpu)"
    if [ "$(calc "$xerr > 1.5 * $xbsd")" = 1 ]; then
        _tap 0 "$driver, --no-jitter: the lockstep shows (off the truth by over 1.5 times the binomial spread)"
    elif [ "$contended" != x ] && [ "$(calc "$contended >= 10")" = 1 ]; then
        # Only when the CPUs were fought over during the runs, and still are
        # (tests/skips.allow's cpu-contended measures it again); else a failure.
        skip "$driver, --no-jitter: the lockstep shows" cpu-contended \
            "off by $xerr, binomial $xbsd: some task waited for a CPU $contended % of the runs' time"
    else
        _tap 1 "$driver, --no-jitter: the lockstep shows (off the truth by over 1.5 times the binomial spread)"
        diag "off by $xerr, binomial $xbsd"
    fi
done

# The report says how the periods were drawn.
"$PROFIL" --report "$T/j-ptrace.PRF" >"$T/report.txt" 2>&1
like "$(cat "$T/report.txt")" '^  Driver: [a-z]+, cpu clock, periods jittered \+-50 %$' "the report: periods jittered +-50 %"
run "$PROFIL" --help
like "$out" '--no-jitter' "--help lists --no-jitter"

done_testing
