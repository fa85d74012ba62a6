#!/bin/sh
# hist.sh - the PROHST-style bucket histogram (--hist), for a session and for
# a 1983 PROFIL file, whose report says "unknown" for what it does not hold
# and lists its buckets; and --report NAME finding NAME.PRF.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 42

run "$PROFIL" -b 2 -t 500 -o s.PRF "$PROGS/sieve" 500 </dev/null
is "$rc" 0 "a session is recorded"
program=$(json s.PRF .counters.program)
nb=$(json s.PRF .bucket_count)

run "$PROFIL" --hist s.PRF </dev/null
is "$rc" 0 "--hist exits 0"
is "$err" "" "--hist: nothing on stderr"
like "$out" "^Bucket histogram: $nb buckets of 2 paragraphs \\(32 bytes\\) from 0x[0-9a-f]+ to 0x[0-9a-f]+; empty buckets not shown\$" \
    "--hist: a title line with the bucket size"
like "$out" '^Address +Symbol +Line +Count$' "--hist: the column heads"
rows=$(printf '%s\n' "$out" | sed 1,2d)
is "$(printf '%s\n' "$rows" | grep -Evc '^0x[0-9a-f]+ +[A-Za-z_][A-Za-z0-9_.]*( \+[0-9]+)? +(sieve\.c:[1-9][0-9]*|-) +[1-9][0-9]* \*+$')" 0 \
    "--hist: every row is address, symbol (+N), the source line of its hottest address, count, bar"
is "$(printf '%s\n' "$rows" | awk '{ n += $(NF - 1) } END { print n }')" "$program" \
    "--hist: the counts add up to the program count ($program)"
is "$(printf '%s\n' "$rows" | awk '{ if (length($NF) > m) m = length($NF) } END { print m }')" 40 \
    "--hist: the largest bucket has the full bar of 40 stars"
like "$rows" '^0x[0-9a-f]+ +markbit( \+[0-9]+)? +sieve\.c:[0-9]+ +[0-9]+ \*+$' "--hist: a bucket is labelled markbit, with a line of sieve.c"
# The label is the function with the most samples in the bucket.
top=$(printf '%s\n' "$rows" | awk '$(NF - 1) > m { m = $(NF - 1); t = $2 } END { print t }')
isnt "$top" "" "--hist: the hottest bucket has a label ($top)"

run "$PROFIL" --hist=all s.PRF </dev/null
is "$(printf '%s\n' "$out" | sed 1,2d | wc -l | tr -d ' ')" "$nb" "--hist=all: one row per bucket ($nb)"
like "$out" '^Bucket histogram: .*[0-9a-f]$' "--hist=all: the title does not say empty buckets are hidden"

run "$PROFIL" --hist --json s.PRF </dev/null
printf '%s\n' "$out" >h.json
is "$(jq -r 'keys_unsorted | join(" ")' h.json)" \
    "program bucket_paragraphs bucket_count prog_low prog_high empty_shown buckets" "--hist --json: its keys"
is "$(jq -r '[.buckets[] | keys_unsorted | join(" ")] | unique | join("|")' h.json)" \
    "addr symbol others count file line" "--hist --json: every bucket has addr, symbol, others, count, file, line"
is "$(jq -r '[.buckets[] | select(.count > 0 and .file != null)] | length > 0' h.json)" true \
    "--hist --json: buckets with samples have the file and line of their hottest address"
is "$(jq -r '[.buckets[].count] | add' h.json)" "$program" "--hist --json: the counts add up"
is "$(jq -r '[.buckets[] | select(.count == 0)] | length' h.json)" 0 "--hist --json: no empty bucket"
is "$(jq -r '[.buckets[] | select(.symbol == "markbit")] | length > 0' h.json)" true \
    "--hist --json: a bucket is labelled markbit"
is "$(json s.PRF -c '[.buckets[] | select(. > 0)]')" "$(jq -c '[.buckets[].count]' h.json)" \
    "--hist --json: the same counts as the report's buckets"

run "$PROFIL" --hist=some s.PRF </dev/null
is "$rc" 2 "--hist=some is a usage error"
is "$err" "profil: --hist: 'some' is not 'all'" "in one line"

# ---------------------------------------------------------------------------
# A 1983 file: what it does not hold is unknown, and its buckets are listed.
"$PROFIL" --export classic s.PRF -o c.PRF 2>/dev/null
run "$PROFIL" --report c.PRF </dev/null
is "$rc" 0 "classic: --report exits 0"
like "$out" '^ Program: unknown \(a 1983 PROFIL file\)$' "classic: the program is unknown"
like "$out" '^  Driver: unknown, clock unknown$' "classic: the driver and clock are unknown"
like "$out" '^   Ended: unknown$' "classic: how it ended is unknown, not invented"
unlike "$out" 'terminated normally' "classic: no exit status is made up"
like "$out" '^Bucket histogram: ' "classic: the buckets are listed, as PROHST did"
like "$out" '^Address +Count$' "classic: address and count (no symbols in a 1983 file)"
is "$(printf '%s\n' "$out" | grep -E '^0x[0-9a-f]+ +[0-9]+ \*+$' | awk '{ n += $2 } END { print n }')" "$program" \
    "classic: the listed buckets add up to the program count"
like "$out" '^Lost +unknown$' "classic: lost is unknown"
is "$(json c.PRF '"\(.exit.status) \(.driver) \(.program)"')" "null  " \
    "classic JSON: no exit status, driver or program"
run "$PROFIL" --hist c.PRF </dev/null
is "$(printf '%s\n' "$out" | grep -Ec '^0x[0-9a-f]+ +[0-9]+ \*+$')" \
    "$(json s.PRF '[.buckets[] | select(. > 0)] | length')" "classic: --hist lists every bucket with samples"

# The hand-made 1983 file: buckets of 100 and 200 at paragraph 0x100.
printf '\350\003\002\000\001\000\000\001\002\001\000\000\007\000\010\000\011\000\144\000\310\000' >old.PRF
run "$PROFIL" --report old.PRF </dev/null
like "$out" '^0x1000 +100 \*{20}$' "1983 file: bucket 0x1000, 100 samples, half a bar"
like "$out" '^0x1010 +200 \*{40}$' "1983 file: bucket 0x1010, 200 samples, the full bar"

# ---------------------------------------------------------------------------
# --report NAME finds NAME.PRF, and says nothing about it.
mkdir name && cd name || exit 1
cp ../s.PRF sieve.PRF
run "$PROFIL" --report sieve </dev/null
is "$rc" 0 "--report sieve: exits 0"
is "$(printf '%s\n' "$out" | head -n 1)" "profil report of sieve.PRF" "--report sieve: reports sieve.PRF"
is "$err" "" "--report sieve: says nothing extra"
is "$(json sieve .counters.total)" "$(json sieve.PRF .counters.total)" "--report --json sieve: the same file"
run "$PROFIL" --hist sieve </dev/null
like "$out" '^Bucket histogram: ' "--hist sieve: finds sieve.PRF too"
cp "$PROGS/sieve" sieve
run "$PROFIL" --report sieve </dev/null
is "$rc $(printf '%s\n' "$out" | head -n 1)" "0 profil report of sieve.PRF" \
    "--report sieve beside the program sieve: the program is not a session, sieve.PRF is"
run "$PROFIL" --report nothing </dev/null
is "$rc" 1 "--report of a name that is neither: exits 1"
is "$err" "profil: nothing: no such file, nor nothing.PRF" "in one clear line"
cd "$T" || exit 1

done_testing
