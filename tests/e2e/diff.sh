#!/bin/sh
# diff.sh - profil --diff BEFORE AFTER: two builds of tests/progs/twice, the
# second with work_b twice as fast: work_b's drop is the largest change and
# significant; two runs of one build: no change on a routine of more than
# 100 samples is significant at p < 0.01 (the statistics are not
# over-eager); the program's own module matches although its file is named
# differently; the JSON says the same; bad command lines are refused.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 36

prof() { # NAME PROGRAM: a run of PROGRAM 30 into $T/NAME.PRF
    run "$PROFIL" --no-tui -b 1 -t 1000 --clock cpu -o "$T/$1.PRF" "$PROGS/$2" 30 </dev/null
    [ "$rc" = 0 ] || diag "$2: $err"
}
prof fast twice-fast
# The two runs of one build run side by side, so that whatever else loads
# the machine (a parallel make check) weighs on both alike: on a 2-CPU
# machine shared with other tests, two runs made a few seconds apart
# differed by 8 points in work_a (p 0.002), a real difference the test
# would rightly call significant.
"$PROFIL" --no-tui -b 1 -t 1000 --clock cpu -o "$T/slow.PRF" "$PROGS/twice" 30 </dev/null >"$T/slow.out" 2>&1 &
"$PROFIL" --no-tui -b 1 -t 1000 --clock cpu -o "$T/slow2.PRF" "$PROGS/twice" 30 </dev/null >"$T/slow2.out" 2>&1 &
wait

# ---------------------------------------------------------------------------
run "$PROFIL" --diff "$T/slow.PRF" "$T/fast.PRF"
is "$rc" 0 "--diff exits 0"
like "$out" "^profil diff of $T/slow.PRF \\([0-9]+ samples\\) and $T/fast.PRF \\([0-9]+ samples\\)\$" \
    "the first line names both sessions and their samples"
like "$out" '^Routine +Module +Before +After +Change +Time +p$' "the column heads"
first=$(printf '%s\n' "$out" | sed -n 3p)
like "$first" '^work_b +twice-fast +[0-9.]+% +[0-9.]+% +-[0-9.]+ +-[0-9.]+s +<0.001 \*\*\*$' \
    "work_b's drop is the largest change, significant at p < 0.001 (***)" || diag "$out"
like "$out" '^work_a +twice-fast ' "work_a is matched across the builds (twice and twice-fast)"
unlike "$out" '^work_a .*%  +0\.00%|^work_a .* 0\.00% ' "work_a is not split into a gone and a new routine"
like "$out" 'adjusted \(Holm\) for the [0-9]+ routines compared' "the footnote says how p is adjusted"

J=$T/diff.json
"$PROFIL" --diff --json "$T/slow.PRF" "$T/fast.PRF" >"$J"
is "$(jq -r '.functions[0] | "\(.name) \(.stars)"' "$J")" "work_b ***" "JSON: work_b first, ***"
cmp_ok "$(jq -r '.functions[0].change' "$J")" "<" -10 "JSON: work_b's change is under -10 points (40 % to 25 %)"
is "$(jq -r '[.functions[] | select(.name == "work_b")][0] | (.change - (.after_pct - .before_pct)) | fabs < 0.002' "$J")" true \
    "JSON: change = after_pct - before_pct (to the rounding)"
is "$(jq -r '[.functions[] | select(.p_adjusted < .p)] | length' "$J")" 0 "JSON: no adjusted p below its raw p"
# work_b did half the work in the fast build: its own time falls by about half.
cmp_ok "$(jq -r '[.functions[] | select(.name == "work_b")][0] | .after_seconds / .before_seconds' "$J")" "<" 0.65 \
    "JSON: work_b's own time falls by a third or more (half the work)"
is "$(jq -r '"\(.before.samples > 0) \(.after.samples > 0) \(.compared == (.functions | length))"' "$J")" \
    "true true true" "JSON: both sessions' samples, and how many routines were compared"

# ---------------------------------------------------------------------------
# The same build twice: nothing of more than 100 samples differs at p < 0.01.
J2=$T/same.json
"$PROFIL" --diff --json "$T/slow.PRF" "$T/slow2.PRF" >"$J2"
diag "same build: $(jq -c '[.functions[] | select(.before_samples + .after_samples > 200) | [.name, .change, .p_adjusted]]' "$J2")"
is "$(jq -r '[.functions[] | select(.before_samples > 100 and .after_samples > 100 and .p_adjusted < 0.01)] | length' "$J2")" 0 \
    "the same build twice: no routine of over 100 samples changes at p < 0.01"

# ---------------------------------------------------------------------------
run "$PROFIL" --diff "$T/slow.PRF"
is "$rc" 2 "--diff with one file is a usage error"
has "$err" "--diff takes two .PRF files" "and says it takes two"
run "$PROFIL" --diff "$T/slow.PRF" "$T/fast.PRF" "$T/slow2.PRF"
is "$rc" 2 "--diff with three files is a usage error"
run "$PROFIL" --diff --tree "$T/slow.PRF" "$T/fast.PRF"
is "$rc" 2 "--diff --tree is a usage error"
run "$PROFIL" --diff "$T/slow.PRF" "$T/nothere.PRF"
is "$rc" 1 "--diff with a missing file exits 1"
has "$err" "nothere.PRF" "and names it"
is "$(count_of "$err" "profil:")" 1 "in one line"
run "$PROFIL" --help
like "$out" '--diff' "--help lists --diff"
like "$out" '--baseline' "and --baseline"

# ---------------------------------------------------------------------------
# --baseline: the screen's ranking gains a Change column against a session,
# with --diff's numbers and stars; live, and in a replay.
use_tmux
tm -f /dev/null new-session -d -s s -x 80 -y 30 "env PS1='$ ' sh"
tm send-keys -t s "$PROFIL --baseline '$T/slow.PRF' '$T/fast.PRF'; echo EXIT=\$?" Enter
tm send-keys -t s 2
want=$(jq -r '.functions[] | select(.name == "work_b") | .change' "$J" | awk '{ printf "%+.1f", $1 }')
ok "replay: the Change column heads the ranking" wait_for '^Time.* +Self +Change +Total ' 10 || diag "$(screen)"
ok "replay: work_b's change is --diff's, with its stars ($want***)" \
    wait_for "^[0-9:.]+ +work_b +[0-9.]+%~? +$want\\*\\*\\* " 10 || diag "$(screen)"
like "$(screen)" 'change against slow\.PRF' "replay: the title says against what"
tm send-keys -t s q
ok "replay: q leaves" wait_for '^EXIT=0' 5
tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 --clock cpu --baseline '$T/slow.PRF' -o '$T/live.PRF' '$PROGS/twice-fast' 3000; echo EXIT=\$?" Enter
ok "live: the screen starts" wait_for ' running *$' 10
tm send-keys -t s 2
ok "live: work_b's drop is there while the program runs" \
    wait_for '^[0-9:.]+ +work_b +[0-9.]+%~? +-[0-9.]+\*+ ' 10 || diag "$(screen)"
like "$(screen)" ' running *$' "live: while it runs" || diag "$(screen)"
tm send-keys -t s q y # stop the program and leave
ok "live: q y stops the program and leaves" wait_for '^EXIT=143' 15 || diag "$(screen)"
run "$PROFIL" --no-tui --baseline "$T/slow.PRF" "$PROGS/twice" 1
is "$rc" 2 "--baseline --no-tui is a usage error"
like "$err" "^profil: --baseline is a column of the live screen and the replay; --diff compares two sessions in a report\$" \
    "pointing at --diff"
run "$PROFIL" -b 1 -t 1000 -a 1 --baseline "$T/nothere.PRF" -o "$T/nb.PRF" "$PROGS/twice"
is "$rc" 1 "a missing baseline: exit 1"
like "$err" "nothere.PRF" "naming it"
ok "before anything ran" test ! -e "$T/nb.PRF"

done_testing
