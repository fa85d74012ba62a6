#!/bin/sh
# report.sh - profil --report, text and JSON, on one saved session: the JSON
# schema, the arithmetic, the comment and the parameters, and that a report
# is the same every time.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 100

# The sieve, 2 paragraphs per bucket, 500 us: 500 rounds, ~0.3 s, ~600 samples.
run "$PROFIL" -b 2 -t 500 -c 'a comment' -a "500 'y z'" -o "$T/s.PRF" "$PROGS/sieve" </dev/null
is "$rc" 0 "the session is written (profil exits 0)"

run "$PROFIL" --report --json "$T/s.PRF" </dev/null
is "$rc" 0 "--report --json exits 0"
is "$err" "" "--report --json: nothing on stderr"
J=$T/s.json
printf '%s\n' "$out" >"$J"
is "$(jq -s -r 'map(type) | join(" ")' "$J")" object "--report --json prints one JSON object"

# ---------------------------------------------------------------------------
# The schema: each key, of its type.
while read -r key type; do
    is "$(jq -r "$key | type" "$J")" "$type" "JSON: $key is a $type"
done <<'EOF'
.program string
.args array
.comment string
.driver string
.clock string
.interval_us number
.jitter_pct number
.design_effect number
.functions[0].ci_low number
.functions[0].ci_high number
.bucket_paragraphs number
.bucket_count number
.prog_low number
.prog_high number
.exit object
.exit.status string
.exit.code number
.exit.signal null
.counters object
.counters.program number
.counters.dos number
.counters.io number
.counters.high number
.counters.total number
.counters.lost number
.counters.preempted number
.counters.lost_pct number
.accounted number
.functions array
.functions[0] object
.functions[0].name string
.functions[0].module string
.functions[0].samples number
.functions[0].seconds number
.functions[0].pct_total number
.functions[0].pct_accounted number
.functions[0].self number
.functions[0].total number
.functions[0].self_pct number
.functions[0].total_pct number
.functions[0].kind string
.buckets array
.buckets[0] number
.meta object
.stacks object
.stacks.samples number
.stacks.unknown number
.stacks.truncated number
.stacks.max_depth number
.marks array
EOF
is "$(jq -r '"\(.jitter_pct) \(.design_effect)"' "$J")" "50 1.25" \
    "JSON: periods jittered +-50 %: the shares vary 1.25 times as much as independent samples"
is "$(jq -r 'keys_unsorted | join(" ")' "$J")" \
    "program args comment interpreter driver clock interval_us jitter_pct design_effect bucket_paragraphs bucket_count prog_low prog_high exit counters accounted functions times filter on_cpu program_area window processes threads buckets notes meta stacks marks" \
    "JSON: exactly these top-level keys, in this order"
is "$(jq -r '.exit | keys_unsorted | join(" ")' "$J")" "status code signal" "JSON: exit has exactly status, code, signal"
is "$(jq -r '.counters | keys_unsorted | join(" ")' "$J")" "program dos io high total lost preempted lost_pct" \
    "JSON: counters has exactly program, dos, io, high, total, lost, preempted, lost_pct"
is "$(jq -r '[.functions[] | keys_unsorted | join(" ")] | unique | join("|")' "$J")" \
    "name raw_name module samples seconds pct_total pct_accounted ci_low ci_high indistinct self total self_pct total_pct file line inlined kind" \
    "JSON: every function has exactly name, raw_name, module, samples, seconds, pct_total, pct_accounted, ci_low, ci_high, indistinct, self, total, self_pct, total_pct, file, line, inlined, kind"
is "$(jq -r '[.functions[] | select(.file != null) | (.file | type) + " " + (.line | type)] | unique | join("|")' "$J")" \
    "string number" "JSON: a function's file is a string and its line a number, where known"
is "$(jq -r '[.args[] | type] | unique | join(" ")' "$J")" string "JSON: args are strings"
is "$(jq -r '[.buckets[] | select(type != "number" or . < 0 or . != floor)] | length' "$J")" 0 \
    "JSON: buckets are whole numbers"

# ---------------------------------------------------------------------------
# The values.
is "$(jq -r '"\(.interval_us) \(.bucket_paragraphs)"' "$J")" "500 2" "JSON: interval_us 500, bucket_paragraphs 2"
is "$(jq -r .comment "$J")" "a comment" "JSON: -c is stored as .comment"
is "$(jq -c .args "$J")" '["500","y z"]' "JSON: -a \"500 'y z'\" is stored as [\"500\",\"y z\"]"
is "$(jq -r .program "$J")" "$PROGS/sieve" "JSON: program as given"
is "$(jq -r '[.functions[].samples] | . == (sort | reverse)' "$J")" true \
    "JSON: functions sorted by samples, descending"
is "$(jq -r '[.functions[] | select(.seconds != .samples * 500 / 1e6)] | length' "$J")" 0 \
    "JSON: seconds == samples x interval / 1e6 for every function"
is "$(jq -r '[.functions[].samples] | add' "$J")" "$(jq -r .accounted "$J")" \
    "JSON: the functions add up to accounted"
is "$(jq -r '.counters as $c | [.functions[]
        | select((.pct_total - 100 * .samples / $c.total) | fabs > 0.0006)] | length' "$J")" 0 \
    "JSON: pct_total == 100 x samples / total (to 1/1000)"
is "$(jq -r '.accounted as $a | [.functions[]
        | select((.pct_accounted - 100 * .samples / $a) | fabs > 0.0006)] | length' "$J")" 0 \
    "JSON: pct_accounted == 100 x samples / accounted (to 1/1000)"
is "$(jq -r '.counters | .program + .dos + .io + .high == .total' "$J")" true \
    "JSON: program + dos + io + high == total"
is "$(jq -r '(.buckets | add) == .counters.program' "$J")" true "JSON: the buckets add up to program"
cmp_ok "$(jq -r .counters.total "$J")" ">=" 200 "JSON: a few hundred samples were taken"

# ---------------------------------------------------------------------------
# The text report.
run "$PROFIL" --report "$T/s.PRF" </dev/null
is "$rc" 0 "--report exits 0"
text=$out
like "$text" '^ Comment: a comment$' "text: the comment is shown"
like "$text" "^ Program: $PROGS/sieve 500 y z\$" "text: the program and its parameters"
like "$text" '^   Ended: Program terminated normally$' "text: how it ended"
totalpct=$(printf '%s\n' "$text" | sed -n 's/^[0-9:.]* *Total *\([0-9.]*\)%$/\1/p')
is "$totalpct" "$(jq -r '"\(.accounted) \(.counters.total)"' "$J" | awk '{ printf "%.2f\n", 100 * $1 / $2 }')" \
    "text: the Total line's percentage is accounted / total"
# The first four functions of the JSON (the sieve has more): four checks,
# whatever the JSON holds.
for i in 0 1 2 3; do
    f=$(jq -r ".functions[$i].name // \"(no function $i)\"" "$J")
    n=$(jq -r ".functions[$i].samples // \"?\"" "$J")
    like "$text" "^[0-9:.]+ +$f +[0-9.]+% +\\+-[0-9.]+( ~)? +[0-9.]+% +$n +" "text: $f with its $n samples"
done
like "$text" "^Total +$(jq -r .counters.total "$J")\$" "text: the counters' Total"
like "$text" "^Lost +0 +0\\.00% of the ticks\$" "text: Lost 0, and its share of the ticks"
like "$text" "^Preempted +0\$" "text: Preempted 0"
unlike "$text" "^ Warning:|waited for a CPU" "text: no warning and no explanation when nothing was lost or preempted"
is "$(jq -r '.counters | (.lost_pct == (if .total + .lost == 0 then 0 else 100 * .lost / (.total + .lost) end))' "$J")" true \
    "JSON: lost_pct == 100 x lost / (total + lost)"

# A file written by profil 0.1 (format 1.0: no preempted count anywhere) still reads.
OLD=$(dirname "${TESTLIB:-$_lib_top/tests/e2e/lib.sh}")/../fuzz/corpus/sieve.PRF
# The test's own fixture: that it is a 1.0 file is no check of profil's.
if [ "$(od -An -tu2 -j8 -N4 "$OLD" | tr -s ' ')" != " 1 0" ]; then
    echo "Bail out! $OLD is not a format 1.0 file: it cannot stand for one"
    exit 1
fi
is "$(json "$OLD" '"\(.counters.preempted) \(.counters.total > 0)"')" "0 true" \
    "a 1.0 file reads: its counters, preempted 0"
run "$PROFIL" --report "$OLD" </dev/null
like "$out" "^Preempted +0\$" "a 1.0 file's text report has Preempted 0"

# A 1.1 file with preempted ticks and a clear mark (made through the session and writer).
NEW=$(dirname "${TESTLIB:-$_lib_top/tests/e2e/lib.sh}")/../fuzz/corpus/cleared-preempted-1.1.PRF
is "$(json "$NEW" '"\(.counters.preempted) \(.bucket_paragraphs)"')" "48 4" \
    "a 1.1 file: its preempted ticks, and the bucket size asked for though saved zoomed"
run "$PROFIL" --report "$NEW" </dev/null
like "$out" "^Preempted +48\$" "its report: Preempted 48"
like "$out" "^Preempted: ticks in which a thread of the program was ready to run but waited for a CPU" \
    "and what they are"
like "$out" "^ Cleared: at 00:00\\.300 on the screen; the report counts the whole run\$" "and where it was cleared"

# ---------------------------------------------------------------------------
# A report is the same every time.
"$PROFIL" --report "$T/s.PRF" >"$T/r1.txt" 2>&1
"$PROFIL" --report "$T/s.PRF" >"$T/r2.txt" 2>&1
ok "text report is byte-identical when run twice" cmp -s "$T/r1.txt" "$T/r2.txt"
"$PROFIL" --report --json "$T/s.PRF" >"$T/j1.txt" 2>&1
"$PROFIL" --report --json "$T/s.PRF" >"$T/j2.txt" 2>&1
ok "JSON report is byte-identical when run twice" cmp -s "$T/j1.txt" "$T/j2.txt"
cp "$T/s.PRF" "$T/copy.PRF"
"$PROFIL" --report --json "$T/copy.PRF" >"$T/j3.txt" 2>&1
ok "JSON report of a copy of the file is the same" cmp -s "$T/j1.txt" "$T/j3.txt"

# The parameters exactly as the brief has them (exitcode ignores them).
run "$PROFIL" -b 1 -t 1000 -a "x 'y z'" -o "$T/x.PRF" "$PROGS/exitcode" </dev/null
is "$(json "$T/x.PRF" -c .args)" '["x","y z"]' "JSON: -a \"x 'y z'\" is stored as [\"x\",\"y z\"]"

# No comment: null.
run "$PROFIL" -b 1 -t 1000 -o "$T/n.PRF" "$PROGS/exitcode" -- </dev/null
is "$(json "$T/n.PRF" '.comment | type')" null "JSON: without -c, comment is null"
unlike "$(sh -c '"$1" --report "$2"' sh "$PROFIL" "$T/n.PRF")" '^ Comment:' "text: without -c, no Comment line"

done_testing
