#!/bin/sh
# merge.sh - profil --merge A.PRF B.PRF ... -o ALL.PRF adds runs of one
# program up, as Multics profile accumulated runs: counters, PCs, stacks
# and lines are the runs' sums exactly; three runs of tests/progs/shares
# agree with one run three times as long within their intervals; other
# builds, sample times, programs and 1983 files are refused with one line
# (--force takes other builds), and -o never overwrites a run.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 63

prof() { # NAME ROUNDS [OPTIONS...]: a run of shares into $T/NAME.PRF
    _n=$1 _r=$2
    shift 2
    run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu "$@" -o "$T/$_n.PRF" "$PROGS/shares" "$_r" </dev/null
    [ "$rc" = 0 ] || diag "shares $_r: $err"
}
prof r1 20
prof r2 20
prof r3 20
prof long 60

# ---------------------------------------------------------------------------
cp "$T/r1.PRF" "$T/r1.copy"
run "$PROFIL" --merge "$T/r1.PRF" "$T/r2.PRF" "$T/r3.PRF" -o "$T/all.PRF"
is "$rc" 0 "--merge of three runs exits 0"
like "$err" "^profil: 3 runs, [0-9]+ samples in [0-9.]+ s, merged into $T/all.PRF\$" "and says what it wrote"
ok "the runs are left as they were" cmp -s "$T/r1.PRF" "$T/r1.copy"

sum() { # JQ-EXPR: its value summed over the three runs
    for _i in 1 2 3; do json "$T/r$_i.PRF" "$1"; done | awk '{ s += $1 } END { print s + 0 }'
}
for c in program dos io high total lost; do
    is "$(json "$T/all.PRF" ".counters.$c")" "$(sum ".counters.$c")" "the $c counter is the runs' sum"
done
for f in work_a work_b work_c main; do
    is "$(json "$T/all.PRF" "[.functions[] | select(.name == \"$f\") | .samples] | add // 0")" \
        "$(sum "[.functions[] | select(.name == \"$f\") | .samples] | add // 0")" \
        "$f's samples are the runs' sum"
done
is "$(json "$T/all.PRF" '[.functions[] | select(.name == "main") | .total] | add // 0')" \
    "$(sum '[.functions[] | select(.name == "main") | .total] | add // 0')" \
    "main's Total (from the stacks) is the runs' sum"
folded() { "$PROFIL" --export folded "$1" -o - | awk '{ s += $NF } END { print s + 0 }'; }
is "$(folded "$T/all.PRF")" "$(($(folded "$T/r1.PRF") + $(folded "$T/r2.PRF") + $(folded "$T/r3.PRF")))" \
    "the folded stacks' counts are the runs' sum"
is "$("$PROFIL" --report --json --lines "$T/all.PRF" | jq '[.lines[].samples] | add')" \
    "$(for i in 1 2 3; do "$PROFIL" --report --json --lines "$T/r$i.PRF" | jq '[.lines[].samples] | add'; done |
        awk '{ s += $1 } END { print s }')" \
    "the source lines' samples are the runs' sum (replayed without the binary)"
bucketsum() { "$PROFIL" --report --hist --json "$1" | jq '[.buckets[].count] | add'; }
is "$(bucketsum "$T/all.PRF")" "$(($(bucketsum "$T/r1.PRF") + $(bucketsum "$T/r2.PRF") + $(bucketsum "$T/r3.PRF")))" \
    "the buckets are the runs' sum"
near "$(json "$T/all.PRF" .meta.duration_s)" "$(sum .meta.duration_s)" 0.001 "its duration is the runs' sum"
is "$(json "$T/all.PRF" '[.meta.merged[].file] | join(" ")')" "$T/r1.PRF $T/r2.PRF $T/r3.PRF" \
    "the JSON names the runs merged"
like "$("$PROFIL" --report "$T/all.PRF")" "^  Merged: 3 runs: $T/r1.PRF, $T/r2.PRF, $T/r3.PRF\$" \
    "and so does the text"
# Who ran: each run's process and threads, with their samples.
J=$("$PROFIL" --report --json "$T/all.PRF")
is "$(printf '%s' "$J" | jq -r '[.processes[].pid] | sort | join(" ")')" \
    "$(for i in 1 2 3; do json "$T/r$i.PRF" '.processes[].pid'; done | sort -n | tr '\n' ' ' | sed 's/ $//')" \
    "the merge keeps each run's process"
is "$(printf '%s' "$J" | jq -r '[.processes[] | .exe | sub(".*/"; "")] | unique | join(" ")')" shares \
    "with its executable"
is "$(printf '%s' "$J" | jq -r '[.processes[].samples] | add')" "$(sum .counters.total)" \
    "the processes' samples add up to the runs' samples"
is "$(printf '%s' "$J" | jq -r '[.threads[].samples] | add')" "$(sum '[.threads[].samples] | add')" \
    "and the threads' samples"
P2=$(json "$T/r2.PRF" '.processes[0].pid')
is "$("$PROFIL" --report --json --pid "$P2" "$T/all.PRF" | jq -r .counters.total)" "$(json "$T/r2.PRF" .counters.total)" \
    "--pid of the second run's process gives that run's samples"
is "$("$PROFIL" --report --json --pid "$P2" "$T/all.PRF" | jq -r '[.functions[] | select(.name == "work_a") | .samples] | add')" \
    "$(json "$T/r2.PRF" '[.functions[] | select(.name == "work_a") | .samples] | add')" \
    "and that run's work_a"
cmp_ok "$(printf '%s' "$J" | jq -r --argjson p "$P2" '.processes[] | select(.pid == $p) | .start_s')" ">=" \
    "$(json "$T/r1.PRF" .meta.duration_s | awk '{ print $1 - 0.11 }')" \
    "the second run's process starts after the first run's time"

# Three runs of 20 against one of 60: the same shares within the intervals.
# Two estimates of one share differ by more than 3.29 standard deviations
# of their difference in 1 run in 1,000: the bound is that, from the two
# intervals (each half-width is 1.96 of its own deviation).
for f in work_a work_b work_c; do
    set -- $(json "$T/all.PRF" "[.functions[] | select(.name == \"$f\")][0] | \"\(.pct_total) \(.ci_low) \(.ci_high)\"")
    m=$1 mh=$(calc "($3 - $2) / 2")
    set -- $(json "$T/long.PRF" "[.functions[] | select(.name == \"$f\")][0] | \"\(.pct_total) \(.ci_low) \(.ci_high)\"")
    l=$1 lh=$(calc "($3 - $2) / 2")
    bound=$(calc "3.29 / 1.96 * sqrt($mh * $mh + $lh * $lh)")
    diag "$f: merged $m +-$mh, one long run $l +-$lh"
    near "$m" "$l" "$bound" "$f: the merged share is the long run's, within the intervals (+-$bound)"
done
near "$(json "$T/all.PRF" .counters.total)" "$(json "$T/long.PRF" .counters.total)" \
    "$(calc "0.1 * $(json "$T/long.PRF" .counters.total)")" "as many samples as the long run, within 10 %"

# A merged session merges again, and replays.
run "$PROFIL" --merge "$T/all.PRF" "$T/long.PRF" -o "$T/more.PRF"
is "$rc" 0 "a merged session merges again"
is "$(json "$T/more.PRF" .counters.total)" \
    "$(($(json "$T/all.PRF" .counters.total) + $(json "$T/long.PRF" .counters.total)))" "its total is the sum"
use_tmux
tm -f /dev/null new-session -d -s s -x 100 -y 30 "$PROFIL --replay '$T/more.PRF'; echo EXIT=\$?; sleep 30"
tm send-keys -t s 2
ok "it replays on the screen" wait_for '^[0-9:.]+ +work_a ' 10 || diag "$(screen)"
tm send-keys -t s q
ok "and q leaves it" wait_for '^EXIT=0' 5

# Twenty runs: the timeline stays as long as their durations say (the reader
# refuses more frames than a session's duration holds).
set --
for i in $(seq 1 20); do set -- "$@" "$T/r1.PRF"; done
run "$PROFIL" --merge "$@" -o "$T/twenty.PRF"
is "$rc" 0 "twenty runs merge"
run "$PROFIL" --report --json "$T/twenty.PRF"
is "$rc" 0 "and the merged file reads back" || diag "$err"
is "$(printf '%s' "$out" | jq .counters.total)" "$((20 * $(json "$T/r1.PRF" .counters.total)))" \
    "with twenty times the samples"

# ---------------------------------------------------------------------------
# Refused, with one line each, and nothing written.
run "$PROFIL" --merge "$T/r1.PRF" "$T/r2.PRF" -o "$T/r2.PRF"
is "$rc" 1 "-o naming one of the runs is refused"
is "$err" "profil: $T/r2.PRF: -o names one of the runs merged: it would be lost" "saying why"
ln -s r1.PRF "$T/link.PRF"
run "$PROFIL" --merge "$T/r1.PRF" "$T/r2.PRF" -o "$T/link.PRF"
is "$rc" 1 "... also through a symbolic link"
ok "r1 is untouched" cmp -s "$T/r1.PRF" "$T/r1.copy"

prof fast 20 -t 500
run "$PROFIL" --merge "$T/r1.PRF" "$T/fast.PRF" -o "$T/x.PRF"
is "$rc" 1 "another sample time is refused"
like "$err" "^profil: $T/fast.PRF: sampled every 500 us, $T/r1.PRF every 1000 us: .*--force" "saying why"
ok "nothing is written" test ! -e "$T/x.PRF"

run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu -o "$T/tw.PRF" "$PROGS/twice" 10 </dev/null
run "$PROFIL" --merge "$T/r1.PRF" "$T/tw.PRF" -o "$T/x.PRF"
is "$rc" 1 "another program is refused"
like "$err" "^profil: $T/tw.PRF: another program \\(twice, $T/r1.PRF's is shares\\)" "saying which"

cp "$PROGS/twice-fast" "$T/twice"
run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu -o "$T/tw2.PRF" "$T/twice" 10 </dev/null
run "$PROFIL" --merge "$T/tw.PRF" "$T/tw2.PRF" -o "$T/x.PRF"
is "$rc" 1 "another build of the program is refused"
like "$err" "^profil: $T/tw2.PRF: another build of the program \\(build id [0-9a-f]{12}, $T/tw.PRF's is [0-9a-f]{12}\\): --force merges them anyway\$" \
    "naming both build ids"
run "$PROFIL" --merge --force "$T/tw.PRF" "$T/tw2.PRF" -o "$T/x.PRF"
is "$rc" 0 "--force merges them"
is "$(json "$T/x.PRF" .counters.total)" "$(($(json "$T/tw.PRF" .counters.total) + $(json "$T/tw2.PRF" .counters.total)))" \
    "adding their samples up"

run "$PROFIL" --export classic "$T/r1.PRF" -o "$T/old.PRF"
run "$PROFIL" --merge --force "$T/r1.PRF" "$T/old.PRF" -o "$T/y.PRF"
is "$rc" 1 "a 1983 file is refused, even with --force"
like "$err" "^profil: $T/old.PRF: a 1983 PROFIL file has buckets but no exact PCs" "saying why"

# A merge copies the sources its runs carried and never reads a file a run
# merely names: a session whose line table names a file it did not embed
# (here hot.c, away when the run was recorded with --embed-source; in the
# attack, /etc/shadow beside a decoy text) must not make the merge read
# that file where it is now, which the .PRF's author could not.
mkdir -p "$T/src"
cat >"$T/src/main.c" <<'EOF'
#include <stdlib.h>
long hot(long n);
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 30, s = 0;
    for (long i = 0; i < n; i++)
        s += hot(1000000);
    return (int)(s & 1);
}
EOF
cat >"$T/src/hot.c" <<'EOF'
long hot(long n)
{
    volatile long x = 0;
    for (long i = 0; i < n; i++)
        x += i;
    return x;
}
EOF
(cd "$T/src" && gcc -g -O1 -o two main.c hot.c && mv hot.c hot.away)
run "$PROFIL" --no-tui -b 1 -t 1000 --embed-source -o "$T/src/a.PRF" "$T/src/two" 60 </dev/null
is "$rc" 0 "a run with --embed-source whose hot.c was away"
printf 'SECRET-%s\n' "$$" >"$T/src/hot.c"
chmod 600 "$T/src/hot.c"
run "$PROFIL" --merge --force "$T/src/a.PRF" "$T/src/a.PRF" -o "$T/src/m.PRF"
is "$rc" 0 "merges"
rm -f "$T/src/hot.c"
run "$PROFIL" --list "$T/src/hot.c" -o - "$T/src/m.PRF"
like "$out" "source not found: $T/src/hot.c" "the merged file carries no text of hot.c" || diag "$out"
unlike "$out" "SECRET-$$" "the file hot.c names now was not read into it"

# Bad command lines.
run "$PROFIL" --merge "$T/r1.PRF" -o "$T/z.PRF"
is "$rc" 2 "one file is a usage error"
run "$PROFIL" --merge "$T/r1.PRF" "$T/r2.PRF"
is "$rc" 2 "no -o is a usage error"
is "$err" "profil: --merge needs -o ALL.PRF: where to write the merged session" "saying what is missing"
run "$PROFIL" --merge "$T/r1.PRF" "$T/nonesuch.PRF" -o "$T/z.PRF"
is "$rc" 1 "a missing file: exit 1"
like "$err" "^profil: .*nonesuch.PRF" "naming it"
run "$PROFIL" --report --force "$T/r1.PRF"
is "$rc" 2 "--force without --merge is a usage error"

done_testing
