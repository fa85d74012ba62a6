#!/bin/sh
# windows.sh - time windows: tests/progs/phases runs work_alpha for its first
# stretch and work_beta for the second; a window on either ranks that
# stretch's routine alone, in the report (--from/--to, seconds or marks),
# live (the Timeline view's { and }) and in a replay.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 55

# works FILE [OPTION...]: the work routines of the report, "name samples" a line.
works() {
    _f=$1
    shift
    "$PROFIL" --report --json "$@" "$_f" |
        jq -r '[.functions[] | select(.name | startswith("work_")) | "\(.name) \(.samples)"] | join(",")'
}

F="$T/ph.PRF"
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$F" "$PROGS/phases" 1 1 </dev/null
is "$rc" 0 "phases runs"
like "$(works "$F")" '^work_(alpha|beta) [0-9]+,work_(alpha|beta) [0-9]+$' "the whole run ranks both"
like "$(works "$F" --to 0.9)" '^work_alpha [0-9]+$' "--to 0.9: work_alpha alone"
like "$(works "$F" --from 1.1)" '^work_beta [0-9]+$' "--from 1.1: work_beta alone"
like "$(works "$F" --from 1.2 --to 1.5)" '^work_beta [0-9]+$' "--from 1.2 --to 1.5: work_beta alone"
n=$(works "$F" --from 1.2 --to 1.5 | sed 's/.* //')
beta=$(works "$F" --from 1.0 | tr ',' '\n' | sed -n 's/^work_beta //p')
# (A loaded machine gives the program less than its 300 ms of CPU in the
# window: the bounds are the window's length and its share of the stretch.)
cmp_ok "$n" "<=" 330 "--from 1.2 --to 1.5: not more than the window holds ($n)"
cmp_ok "$n" ">=" 50 "--from 1.2 --to 1.5: samples of its own ($n)"
cmp_ok "$(calc "$n / $beta")" "<" 0.5 "--from 1.2 --to 1.5: a part of the second stretch ($n of $beta)"
is "$(json "$F" '.window')" null "no window: the JSON's window is null"
is "$("$PROFIL" --report --json --from 1.2 --to 1.5 "$F" | jq -c '.window')" '{"from_s":1.2,"to_s":1.5}' \
    "the JSON gives the window"
is "$("$PROFIL" --report --json --from 1.2 --to 1.5 "$F" | jq -r '.counters.total == ([.buckets[]] | add) + .counters.dos + .counters.io + .counters.high')" \
    true "in a window, the counters still add up (program = its buckets)"
run "$PROFIL" --report --from 1.2 --to 1.5 "$F"
like "$out" '  Window: 1\.2-1\.5 s of 2\.[0-9] s: every count below is its own' "the report says the window"

# Bounds named by marks (--control's mark).
# The mark is written when the program says it turns to beta (a fixed
# sleep raced profil's start-up under the sanitizers).
mkfifo "$T/ctl"
"$PROFIL" --no-tui -b 1 -t 1000 --control "$T/ctl" -o "$T/m.PRF" "$PROGS/phases" 1 1 \
    </dev/null >"$T/m.out" 2>"$T/m.err" &
pp=$!
file_has "$T/m.out" '^phases: beta$' 4
echo "mark beta" >"$T/ctl"
wait "$pp"
rc=$?
is "$rc" 0 "phases runs with a mark"
w=$(works "$T/m.PRF" --from mark:beta)
a=$(printf '%s\n' "$w" | tr ',' '\n' | sed -n 's/^work_alpha //p')
b=$(printf '%s\n' "$w" | tr ',' '\n' | sed -n 's/^work_beta //p')
cmp_ok "$(calc "100 * ${b:-0} / (${a:-0} + ${b:-0} + 1)")" ">=" 85 \
    "--from mark:beta: work_beta has the window (alpha ${a:-0}, beta ${b:-0})"

# Errors: one line each.
run "$PROFIL" --report --from mark:nowhere "$T/m.PRF"
is "$rc" 1 "--from mark:NAME of no mark: exit 1"
is "$err" "profil: --from: the session has no mark 'nowhere'" "and says so in one line"
run "$PROFIL" --report --from 1.5 --to 1 "$F"
is "$rc" 1 "--from after --to: exit 1"
like "$err" '^profil: --from 1\.5 s is not before --to 1\.0 s$' "and says so"
run "$PROFIL" --report --from soon "$F"
like "$err" "^profil: --from: 'soon' is neither seconds from the start nor mark:TEXT$" "--from soon: says what it takes"
run "$PROFIL" --report --from 1 --tid 5 "$F"
is "$rc" 2 "--from with --tid: a usage error"
like "$err" 'do not go together' "and says why"
run "$PROFIL" --from 1 "$PROGS/phases" </dev/null
is "$rc" 2 "--from when profiling: a usage error"
run "$PROFIL" --report --from 99 "$F"
like "$err" '^profil: --from 99\.0 s: the session is 2\.[0-9] s long$' "--from past the end: says how long"

# Address ranges (MIPS monitor's lowpc, highpc): --range FUNCTION or LOW-HIGH
# gives buckets to that part of the program only; the rest of its code
# counts as high.
R="$T/range.PRF"
run "$PROFIL" --no-tui -b 1 -t 1000 --range markbit -o "$R" "$PROGS/sieve" 1500 </dev/null
is "$rc" 0 "--range markbit: sieve runs"
mb=$(json "$R" '[.functions[] | select(.name == "markbit") | .samples] | add // 0')
is "$(json "$R" .counters.program)" "$mb" "--range markbit: Program is markbit's samples"
is "$(json "$R" '.counters.program == ([.buckets[]] | add)')" true "--range markbit: and the sum of the buckets"
cmp_ok "$(json "$R" .counters.high)" ">" 0 "--range markbit: sieve's other routines count as high"
cmp_ok "$(json "$R" .bucket_count)" "<=" 4 "--range markbit: a few buckets, markbit's"
lo=$(json "$R" .prog_low) hi=$(json "$R" .prog_high)
run "$PROFIL" --no-tui -b 1 -t 1000 --range "$(printf '0x%x-0x%x' "$lo" "$hi")" -o "$T/range2.PRF" "$PROGS/sieve" 300 </dev/null
is "$rc" 0 "--range LOW-HIGH: sieve runs"
is "$(json "$T/range2.PRF" '"\(.prog_low) \(.prog_high)"')" "$lo $hi" "--range LOW-HIGH: that area"
run "$PROFIL" --no-tui -b 1 -t 1000 --range 0x10-0x20 "$PROGS/sieve" 1 </dev/null
is "$rc" 1 "--range outside the code: exit 1"
like "$err" "^profil: --range 0x10-0x20: outside the program's code, 0x[0-9a-f]+-0x[0-9a-f]+\$" "and says where the code is"
run "$PROFIL" --no-tui -b 1 -t 1000 --range nosuch "$PROGS/sieve" 1 </dev/null
like "$err" '^profil: --range nosuch: neither LOW-HIGH .* nor a function of sieve$' "--range of no function: says so"
run "$PROFIL" --report --range markbit "$R"
is "$rc" 2 "--range with --report: a usage error"

# Live: a window in the Timeline view on the second stretch, while the program
# runs on; Esc shows the whole run.
use_tmux
rank='[0-9]{2}:[0-9]{2}\.[0-9]{3} +'
tm -f /dev/null new-session -d -s s -x 130 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
tm send-keys -t s "cd '$T'; $PROFIL -b 1 -t 1000 -o live.PRF $PROGS/phases 1 8; echo EXIT=\$?" Enter
ok "live: the screen comes up" wait_for ' running *$' 10
ok "live: 3 s into the run" wait_for ' [3-9]\.[0-9] s ' 10
tm send-keys -t s 3 End Left Left Left Left Left '{'
ok "live: { starts a window at the cursor" wait_for 'window from [0-9.]+ s: } ends it' 3
tm send-keys -t s Right Right '}'
ok "live: } ends it, and every view shows it only" wait_for 'only [0-9.]+-[0-9.]+ s \(Esc: all\)' 3
tm send-keys -t s 2
ok "live: the ranking shows work_beta" wait_for "${rank}work_beta " 5
unlike "$(screen)" "${rank}work_alpha " "live: and not work_alpha"
# "Stays put" only means something on a screen that is redrawn: the run's
# clock in the header must move on by a second meanwhile.
# shown_s: the run's time in the header (" 3.4 s ").
shown_s() { screen | grep -Eo ' [0-9]+\.[0-9] s ' | head -n 1 | tr -d ' s'; }
s1=$(screen | sed -n 's/.* samples \([0-9]*\) .*/\1/p' | head -n 1)
t1=$(shown_s)
_n=50
while [ "$_n" -gt 0 ] && [ "$(calc "${t2:=0} >= ${t1:-99} + 1")" != 1 ]; do
    sleep 0.1
    t2=$(shown_s)
    _n=$((_n - 1))
done
s2=$(screen | sed -n 's/.* samples \([0-9]*\) .*/\1/p' | head -n 1)
cmp_ok "${t2:-x}" ">=" "$(calc "${t1:-99} + 1")" "live: the screen goes on meanwhile (its clock ${t1:-?} -> ${t2:-?} s)"
is "$s2" "$s1" "live: the window stays put while the run grows"
tm send-keys -t s s
ok "live: s saves a snapshot while the window is shown" wait_for 'snapshot saved' 5
# The message and the file at once: the program runs on and, once it ends,
# the session saved at its end replaces the snapshot (under the sanitizers,
# before the checks below had read it).
said=$(screen | sed -n 's/.*snapshot saved (\([0-9]*\) samples).*/\1/p' | head -n 1)
cp "$T/live.PRF" "$T/snap.PRF"
is "$("$PROFIL" --report --json "$T/snap.PRF" | jq -r '[.functions[] | select(.name == "work_alpha") | .samples] | add // 0 | . > 0')" \
    true "live: the snapshot holds the whole run (work_alpha too), and reads back"
# The message counts the file's samples, not the window's (issue 24).
is "$said" "$(json "$T/snap.PRF" .counters.total)" "live: the snapshot's message counts the samples the file holds"
tm send-keys -t s Escape
ok "live: Esc shows the whole run again" wait_for "${rank}work_alpha " 5
tm send-keys -t s q y
ok "live: q y ends it" wait_for '^EXIT=' 20

# A replay with a window: the ranking has work_beta alone.
tm send-keys -t s "clear; $PROFIL --from 1.2 ph.PRF; echo EXIT=\$?" Enter
ok "replay: the header gives the window" wait_for 'only 1\.2-2\.[0-9] s \(Esc: all\)' 10
tm send-keys -t s G 2
ok "replay: at the end, the ranking shows work_beta" wait_for "${rank}work_beta " 5
unlike "$(screen)" "${rank}work_alpha " "replay: and not work_alpha"
tm send-keys -t s q
ok "replay: q leaves" wait_for '^EXIT=0' 10

# What ran when (issue 24, 3): below the Timeline's chart, a lane for each
# function that ran most, its name in the margin (130 columns: 26 wide).
# lane_span NAME: the first and last columns of NAME's lane that hold more
# than half of a frame's samples (+ or #), counted from the margin.
lane_span() {
    screen | awk -v n="$1" 'index($0, n " ") == 1 {
        s = substr($0, 27); f = 0; l = 0
        for (i = 1; i <= length(s); i++) if (substr(s, i, 1) ~ /[#+]/) { if (!f) f = i; l = i }
        print f, l }'
}
tm send-keys -t s "clear; $PROFIL ph.PRF; echo EXIT=\$?" Enter
ok "lanes: the replay comes up" wait_for 'replay' 10
tm send-keys -t s G 3
ok "lanes: the Timeline has a lane for work_alpha and one for work_beta" \
    wait_for '^work_beta  +[.:+#]' 5
alpha=$(lane_span work_alpha) beta=$(lane_span work_beta)
diag "lanes: work_alpha ${alpha:-none}, work_beta ${beta:-none}"
is "$(echo "${alpha:-0 0} ${beta:-0 0}" | awk '{ print ($1 > 0 && $3 > 0 && $1 < $3 && $2 <= $3 && $2 < $4) ? "first" : "no" }')" \
    first "lanes: work_alpha ran first, work_beta after it"
tm send-keys -t s q
ok "lanes: q leaves" wait_for '^EXIT=0' 10

done_testing
