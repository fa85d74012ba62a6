#!/bin/sh
# errorbars.sh - every share carries its 95 % interval: ci_low and ci_high
# in the JSON report (Wilson's, in percent of the total like pct_total),
# "+-" beside % of Total in the text; the intervals hold what they say
# (tests/progs/shares, whose work_a, work_b and work_c take 50, 30 and 20 %
# of its work, run 20 times, timing its own functions: the truth, by the
# program's own clock, is inside about 95 % of them); a run
# of too few samples says so, and how many would do.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 40

RUNS=20

# ---------------------------------------------------------------------------
# Coverage: in each run, each of the three shares of the total, times what
# the three take of it, against its interval.
: >"$T/cover"
for i in $(seq 1 $RUNS); do
    run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu --no-stacks -o "$T/s.PRF" "$PROGS/shares" 20 timed </dev/null
    [ "$rc" = 0 ] || break
    # The truth is each function's share of the three by the program's own
    # clock in this run (5:3:2 of the work, 49.8, 30.0 and 20.2 % of the
    # time here, alone or beside two busy loops).
    own=$(printf '%s\n' "$out" | sed -n 's/^shares: own time work_a \([0-9]*\) work_b \([0-9]*\) work_c \([0-9]*\) ns$/\1 \2 \3/p')
    set -- $own
    [ $# = 3 ] || { diag "run $i: the program's own times are missing: $out"; rc=1; break; }
    json "$T/s.PRF" --argjson a "$1" --argjson b "$2" --argjson c "$3" \
        '[.functions[] | select(.name | test("^work_[abc]$"))] as $w
        | ($w | map(.pct_total) | add) as $sum
        | $w[] | ({"work_a": $a, "work_b": $b, "work_c": $c}[.name] / ($a + $b + $c) * $sum) as $truth
        | "\(.name) \($truth) \(.ci_low) \(.ci_high) \(.pct_total)"' >>"$T/cover"
done
is "$rc" 0 "the $RUNS runs of shares ran"
n=$(wc -l <"$T/cover" | tr -d ' ')
inside=$(awk '$2 >= $3 && $2 <= $4' "$T/cover" | wc -l | tr -d ' ')
diag "$inside of $n shares inside their own 95 % interval" \
    "$(awk '$2 < $3 || $2 > $4 { printf "outside: %s %.2f not in [%.2f, %.2f]\n", $1, $2, $3, $4 }' "$T/cover")"
is "$n" $((3 * RUNS)) "three shares a run"
# 95 % of 60 is 57 (measured over 90: 94.4 % with perf, 93.3 % with ptrace);
# fewer than 50 happens about once in 2,000 runs when the intervals are
# right, and every time when they are half as wide as they should be (68 %).
cmp_ok "$inside" ">=" 50 "at least 50 of the 60 shares are inside their interval"

# ---------------------------------------------------------------------------
# The JSON and the text say the same.
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/long.PRF" "$PROGS/shares" 40 </dev/null
J=$T/long.json
"$PROFIL" --report --json "$T/long.PRF" >"$J"
is "$(jq '[.functions[] | select(.ci_low <= .pct_total and .pct_total <= .ci_high
                                and .ci_low >= 0 and .ci_high <= 100)] | length' "$J")" \
    "$(jq '.functions | length' "$J")" "every function's interval holds its share, within 0..100"
is "$(jq '[.functions[] | select(.samples == 0 and .ci_low == 0 and .ci_high > 0)] | length' "$J")" \
    "$(jq '[.functions[] | select(.samples == 0)] | length' "$J")" \
    "a function of no samples of its own: [0, something], not of no width"
# Wilson's interval, for as many independent samples as would vary as much
# as the session's ticks: the total over 1.25 (periods jittered +-50 %).
is "$(jq -r '.counters.total as $t | (1.959963984540054 | . * .) as $z2
    | [.functions[] | select(.samples > 0 and .samples < $t)
       | (.samples / $t) as $p | ($t / 1.25) as $n
       | (($p + $z2 / (2 * $n)) / (1 + $z2 / $n)) as $c
       | (($z2 | sqrt) * ((($p * (1 - $p) / $n) + $z2 / (4 * $n * $n)) | sqrt) / (1 + $z2 / $n)) as $h
       | select((.ci_low - 100 * ($c - $h) | fabs) > 0.0006 or (.ci_high - 100 * ($c + $h) | fabs) > 0.0006)
       | .name] | join(" ")' "$J")" "" \
    "every function's interval is Wilson's for the total over the design effect, 1.25"
top=$(jq -r '.functions[0].name' "$J")
want=$(jq -r '.functions[0] | (.ci_high - .ci_low) / 2' "$J")
text=$("$PROFIL" --report "$T/long.PRF")
got=$(printf '%s\n' "$text" | awk -v f="$top" '$2 == f { sub(/^\+-/, "", $4); print $4; exit }')
cmp_ok "$(calc "($got - $want) * ($got - $want)")" "<" 0.0001 \
    "text: $top's +- is half its JSON interval ($got, $want)"
like "$text" '^Time +Routine +% of Total \+-95% ' "text: the column is headed +-95%"
like "$text" '^\+-: the share.s 95 % interval' "text: a line says what +- is"
unlike "$text" 'Too few samples' "text: $(jq .counters.total "$J") samples: nothing said about too few"

# On the screen (once the replay has played to the end: 15 s on a busy
# machine): the Functions view's last line gives the selected routine's
# share with its interval (the columns have no room for it at 80 wide).
use_tmux
tm -f /dev/null new-session -d -s s -x 160 -y 30 "$PROFIL '$T/long.PRF'"
tm send-keys -t s 2
ok "the screen: the replay plays to its end" wait_for 'replay end' 15 || diag "$(screen)"
ok "the screen: $top's share, +- and its 95 % interval" \
    wait_for "$top  \\(.*\\)  [0-9.]+% \\+-[0-9.]+ \\(95 %: [0-9.]+-[0-9.]+\\)" 15 ||
    diag "$(screen)"
# The screen rounds the interval's start to 2 decimals, the JSON to 3: a
# start of 47.1849 is 47.18 on one and 47.185 (47.19 at 2) on the other.
lo=$(screen | sed -n "s/.*$top  (.*)  [0-9.]*% +-[0-9.]* (95 %: \([0-9.]*\)-[0-9.]*).*/\1/p" | head -n 1)
near "${lo:-none}" "$(jq -r '.functions[0].ci_low' "$J")" 0.006 \
    "the screen: $top's interval starts where the JSON's does (${lo:-none})"
# 90 columns or more: the ranking has room for a +-95% column beside Self.
tm resize-window -t s -x 95 -y 30
ok "the screen at 95 columns: a +-95% column beside Self" wait_for '^Time.* +Self +\+-95% ' 5 || diag "$(screen)"
ok "... $top has its +- there" wait_for "^[0-9:.]+ +$top +[0-9.]+%[ ~]\\+-[0-9.]+ " 5 || diag "$(screen)"
half=$(screen | sed -n "s/^[0-9:.]* *$top *[0-9.]*%[ ~]+-\([0-9.]*\) .*/\1/p" | head -n 1)
near "${half:-none}" "$(jq -r '.functions[0] | (.ci_high - .ci_low) / 2' "$J")" 0.006 \
    "... $top's is the JSON's, within rounding (${half:-none})"

# The histogram's bars carry their interval as a whisker, [--], where there
# is room; the hottest bar's fits too.  (80 columns: the histogram alone.)
tm resize-window -t s -x 80 -y 30
tm send-keys -t s 1 H
ok "the histogram: bars with whiskers" \
    wait_for '^[0-9a-f]{12} .* [0-9]+ +[0-9.]+% \|+\[[|-]*\] *$' 5 || diag "$(screen)"
hot=$("$PROFIL" --report --hist --json "$T/long.PRF" | jq '[.buckets[].count] | max')
ok "the hottest bucket's whisker fits ($hot samples)" \
    wait_for "^[0-9a-f]{12} .* $hot +[0-9.]+% \\|+\\[[|-]*\\] *\$" 5 || diag "$(screen)"
tm resize-window -t s -x 50 -y 30
ok "at 50 columns the hottest bar is drawn without one" \
    wait_for "^[0-9a-f]{12} .* $hot +[0-9.]+% \\|+ *\$" 5 || diag "$(screen)"
unlike "$(screen)" '\|\[[|-]*\]' "at 50 columns, no room: no whiskers" || diag "$(screen)"
tm send-keys -t s q

# Neighbours that cannot be told apart are marked, in the text (~) and the
# JSON (indistinct): tests/progs/twice's work_a and work_b take 40 % each,
# work_c 20 %.  Two 95 % intervals of one share stay apart in about 3 % of
# runs (their difference has to pass 2.15 of its standard deviations), so
# up to three runs are made: the first where both are marked is kept;
# three runs in a row without (1 in 30,000 when the marks are right) fail.
marked=0 exact=0 cfree=0 tries=0
while [ $tries -lt 3 ] && [ $marked = 0 ]; do
    tries=$((tries + 1))
    run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu -o "$T/tw.PRF" "$PROGS/twice" 20 </dev/null
    JT=$T/tw.json
    "$PROFIL" --report --json "$T/tw.PRF" >"$JT"
    diag "twice, run $tries: $(jq -c '[.functions[:3][] | [.name, .samples, .ci_low, .ci_high, .indistinct]]' "$JT")"
    got=$(jq -r '[.functions[] | select(.indistinct) | .name] | sort | join(" ")' "$JT")
    mine=$(jq -r '[.functions[] | select(.indistinct and (.name | test("^work_"))) | .name] | sort | join(" ")' "$JT")
    want=$(jq -r '[.functions as $f | range(0; $f | length) as $k | $f[$k] | select(.samples > 0)
                   | select([($f[$k - 1] // null), ($f[$k + 1] // null)][] | select(. != null and .samples > 0)
                            | (.ci_low <= $f[$k].ci_high and $f[$k].ci_low <= .ci_high))
                   | .name] | unique | join(" ")' "$JT")
    [ "$got" = "$want" ] && exact=$((exact + 1))
    case " $got " in *" work_c "*) ;; *) cfree=$((cfree + 1)) ;; esac
    # (a kernel routine of a sample or two may be indistinct from its neighbour too)
    [ "$mine" = "work_a work_b" ] && marked=1
done
is "$marked" 1 "JSON: work_a and work_b, 40 % each, are indistinct (in one of $tries runs); work_c is not"
is "$exact" "$tries" "JSON: indistinct is exactly an interval overlapping a neighbour's, in each of the $tries runs"
is "$cfree" "$tries" "JSON: work_c, of half their share, is never indistinct"
text=$("$PROFIL" --report "$T/tw.PRF")
like "$text" '^[0-9:.]+ +work_a +[0-9.]+% \+-[0-9.]+ ~ ' "text: work_a is marked ~"
like "$text" '^[0-9:.]+ +work_c +[0-9.]+% \+-[0-9.]+ +[0-9.]+% ' "text: work_c is not"
like "$text" '~: its interval overlaps the one above or below' "text: a line says what ~ is"
# ... and on the screen, in the blank after the share.
tm kill-session -t s 2>/dev/null
tm -f /dev/null new-session -d -s s -x 80 -y 30 "$PROFIL '$T/tw.PRF'"
tm send-keys -t s 2
wait_for 'replay end' 15 # the whole run's counts
ok "the screen: work_a and work_b are marked ~" \
    wait_for '^[0-9:.]+ +work_[ab] +[0-9.]+%~' 15 || diag "$(screen)"
like "$(screen)" '^[0-9:.]+ +work_c +[0-9.]+% ' "the screen: work_c is not" || diag "$(screen)"
tm send-keys -t s q

# ---------------------------------------------------------------------------
# Settled: the top routines keep their order, their intervals apart, for 3 s.
# shares at 400 rounds takes ~14 s; its 50, 30 and 20 % are far apart, so
# --until-settled stops it after 3 s and a little.  (Not sieve: its markbit
# and markall are 2 points apart on a busy machine, 45 on an idle one.)
run "$PROFIL" --no-tui -b 1 -t 1000 --until-settled -o "$T/settle.PRF" "$PROGS/shares" 400 </dev/null
has "$err" "have kept their order for 3 s (--until-settled): stopping the program" \
    "--until-settled: profil says why it stops the program"
cmp_ok "$(json "$T/settle.PRF" .meta.duration_s)" "<" 9 "--until-settled: the run ended early"
cmp_ok "$(json "$T/settle.PRF" .counters.total)" ">=" 100 "--until-settled: and kept what it sampled"
# twice's work_a and work_b take 40 % each: they never settle, though 5 s
# would be time enough for twice the 3 s.  (The ranking compares 99 %
# intervals for this, having looked ten times: a run of two equal shares
# settles by chance in about 1 in 2,000 runs of this length, 1 in 600
# if a loaded machine stretches it to 8 s.)
run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu --until-settled -o "$T/never.PRF" "$PROGS/twice" 150 </dev/null
hasnt "$err" "until-settled" "--until-settled: two routines that cannot be told apart never settle"
is "$(json "$T/never.PRF" .exit.status)" terminated "and the program runs to its end"
run "$PROFIL" --no-tui --until-settled=soon "$PROGS/sieve" 1
is "$rc" 2 "--until-settled=soon is a usage error"
# The live screen says so.
tm kill-session -t s 2>/dev/null
tm -f /dev/null new-session -d -s s -x 120 -y 30 "env PS1='$ ' sh"
tm send-keys -t s "$PROFIL -b 1 -t 1000 -o '$T/live.PRF' '$PROGS/shares' 400; echo EXIT=\$?" Enter
ok "the screen: 'running, settled N s' once the top has stopped moving" \
    wait_for 'running, settled [0-9]+ s' 12 || diag "$(screen)"
tm send-keys -t s q y # stop the program and leave
ok "the screen: q y stops the program and leaves" wait_for '^EXIT=143' 15 || diag "$(screen)"

# ---------------------------------------------------------------------------
# Too few samples.
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/few.PRF" "$PROGS/sieve" 20 </dev/null
text=$("$PROFIL" --report "$T/few.PRF")
like "$text" '^Too few samples to rely on: [0-9]+ in all, .* is [0-9.]+% \+-[0-9.]+; about [0-9]+ samples would make it \+-1 point' \
    "a short run: too few samples, and how many would do"
need=$(printf '%s\n' "$text" | sed -n 's/.*; about \([0-9]*\) samples.*/\1/p')
p=$(json "$T/few.PRF" '.functions[0].pct_total / 100')
cmp_ok "$(calc "($need - 1.25 * 3.8415 * ($p < 0.005 ? 0.005 : $p) * (1 - $p) * 10000) ^ 2")" "<=" 4 \
    "the number is 1.25 z^2 p (1 - p) / 0.01^2 for the top share (1.25: the design effect)"

# ... and the live screen's header says so while it holds.
tm kill-session -t s 2>/dev/null
tm -f /dev/null new-session -d -s s -x 120 -y 30 "env PS1='$ ' sh"
tm send-keys -t s "$PROFIL -b 1 -t 10000 -o '$T/fewlive.PRF' '$PROGS/sieve' 40000; echo EXIT=\$?" Enter
ok "the screen: 'too few samples: ~N for +-1' in the header at 100 samples a second" \
    wait_for '^ pid [0-9]+ .* too few samples: ~[0-9]+ for \+-1  samples [0-9]+' 10 || diag "$(screen)"
tm send-keys -t s q y # stop the program and leave
ok "the screen: q y stops the program and leaves" wait_for '^EXIT=143' 15 || diag "$(screen)"

done_testing
