#!/bin/sh
# keep.sh - no data is thrown away: a clear on the screen is a view (the
# file keeps the whole run, the clear a mark in its timeline), a zoom is a
# view (the file keeps the bucket size asked for), and saving over a session
# keeps the previous one as NAME.PRF.old.
. "$TESTLIB"
plan 48

# A save that falls back (.old and .new taken below) goes here, not into the
# home of whoever runs the tests.
XDG_STATE_HOME=$T/state
export XDG_STATE_HOME
use_tmux
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' sh"

# ---------------------------------------------------------------------------
# c once the program has ended, then q: the file still holds the whole run.
tm send-keys -t s "cd '$T'; $PROFIL -b 1 -t 1000 -o c.PRF $PROGS/sieve 2000; echo EXIT=\$?" Enter
ok "clear: the program runs to its end on the screen" wait_for 'Program terminated normally *$' 30
tm send-keys -t s c
ok "clear: c clears the screen's counters" wait_for 'counters cleared' 3
ok "clear: the header shows no samples since the clear" wait_for 'samples 0 ' 3
tm send-keys -t s q
ok "clear: q leaves" wait_for '^EXIT=0' 5
total=$(json c.PRF .counters.total)
cmp_ok "$total" ">" 100 "clear: the saved file holds the whole run ($total samples)"
is "$(json c.PRF '(.buckets | add) == .counters.program and .counters.program > 0')" true \
    "clear: and its buckets, which add up to the program count"
cmp_ok "$(json c.PRF '[.functions[] | select(.name == "markbit") | .samples] | add // 0')" ">" 0 \
    "clear: and its ranking (markbit has samples)"
run "$PROFIL" --report c.PRF </dev/null
like "$out" '^ Cleared: at [0-9][0-9]:[0-9][0-9]\.[0-9]{3} on the screen; the report counts the whole run$' \
    "clear: the report says where the screen was cleared"

# The replay shows the clear: it ends where the screen ended, with nothing since the clear.
tm send-keys -t s "clear; $PROFIL c.PRF; echo EXIT=\$?" Enter
ok "clear: the file replays to its end" wait_for 'replay end' 10
S=$(screen)
like "$S" 'samples 0 ' "clear: the replay ends as the screen did, cleared"
tm send-keys -t s g 0 Enter
ok "clear: back at the start" wait_for ' frame 0/' 3
tm send-keys -t s G ,
ok "clear: one frame before the end, before the mark" wait_for 'replay paused' 3
ok "clear: before the mark the replay shows the whole run ($total)" wait_for "samples $total " 3
tm send-keys -t s q
ok "clear: q leaves the replay" wait_for '^EXIT=0' 3

# ---------------------------------------------------------------------------
# z and Z change the bucket size on the screen only: the file keeps the size asked for.
tm send-keys -t s "clear; $PROFIL -b 2 -t 1000 -o z.PRF $PROGS/sieve 1000; echo EXIT=\$?" Enter
ok "zoom: the program runs to its end on the screen" wait_for 'Program terminated normally *$' 30
tm send-keys -t s z
ok "zoom: z shows buckets of 1 paragraph" wait_for 'buckets of 1 paragraph' 3
tm send-keys -t s q
ok "zoom: q leaves" wait_for '^EXIT=0' 5
is "$(json z.PRF '"\(.bucket_paragraphs) \(.meta.bucket_paragraphs)"')" "2 2" \
    "zoom: the file keeps 2 paragraphs per bucket, as asked (header and metadata)"
is "$(json z.PRF '.bucket_count == ((.prog_high - .prog_low) / 32 | ceil) and (.buckets | length) == .bucket_count')" true \
    "zoom: and the bucket count and buckets of that size"
is "$(json z.PRF '(.buckets | add) == .counters.program and .counters.program > 0')" true \
    "zoom: the buckets add up to the program count"
tm send-keys -t s "clear; $PROFIL -b 2 -t 1000 -o Z.PRF $PROGS/sieve 1000; echo EXIT=\$?" Enter
ok "zoom out: the program runs to its end" wait_for 'Program terminated normally *$' 30
tm send-keys -t s Z Z
ok "zoom out: Z Z shows buckets of 8 paragraphs" wait_for 'buckets of 8 paragraphs' 3
tm send-keys -t s s
ok "zoom out: s saves a snapshot" wait_for 'snapshot saved' 3
is "$(json Z.PRF .bucket_paragraphs)" 2 "zoom out: the snapshot keeps 2 paragraphs per bucket"
tm send-keys -t s q
ok "zoom out: q leaves" wait_for '^EXIT=0' 5
is "$(json Z.PRF .bucket_paragraphs)" 2 "zoom out: so does the file saved on quitting"

# ---------------------------------------------------------------------------
# Saving over NAME.PRF keeps the previous one as NAME.PRF.old, and says so once.
mkdir old && cd old || exit 1
run "$PROFIL" -b 1 -t 1000 --no-tui "$PROGS/sieve" 200 </dev/null
is "$rc" 0 ".old: a first run writes sieve.PRF"
hasnt "$err" "kept the previous" ".old: with nothing to keep, nothing is said"
is "$(prf_in .)" "./sieve.PRF" ".old: and no .old is made"
cp sieve.PRF first.PRF
run "$PROFIL" -b 2 -t 1000 --no-tui "$PROGS/sieve" 200 </dev/null
is "$rc" 0 ".old: a second run exits 0"
is "$(printf '%s\n' "$err" | grep -c 'kept the previous')" 1 ".old: it says so once"
like "$err" '^profil: kept the previous sieve\.PRF as sieve\.PRF\.old$' ".old: in one line"
ok ".old: sieve.PRF.old is the first run's file" cmp -s first.PRF sieve.PRF.old
is "$(json sieve.PRF .bucket_paragraphs)" 2 ".old: sieve.PRF is the second run's"

# On the screen the session is saved at the end, on s, and on quitting: one .old, said once.
cp first.PRF sieve.PRF
tm send-keys -t s "clear; cd '$T/old'; $PROFIL -b 4 -t 1000 $PROGS/sieve 300 2>err.txt; echo EXIT=\$?" Enter
ok ".old: the screen run ends" wait_for 'Program terminated normally *$' 30
tm send-keys -t s s
ok ".old: s saves again" wait_for 'snapshot saved' 3
tm send-keys -t s q
ok ".old: q leaves" wait_for '^EXIT=0' 5
is "$(grep -c 'kept the previous' err.txt)" 1 ".old: three saves, one message"
ok ".old: sieve.PRF.old is the file from before this run" cmp -s first.PRF sieve.PRF.old
is "$(json sieve.PRF .bucket_paragraphs)" 4 ".old: sieve.PRF is this run's"

# When the previous file cannot be kept, nothing is overwritten and nothing
# lost: this run goes beside it as sieve.PRF.new.
cp first.PRF sieve.PRF
rm sieve.PRF.old
mkdir sieve.PRF.old
run "$PROFIL" -b 2 -t 1000 --no-tui "$PROGS/sieve" 200 </dev/null
is "$rc" 1 ".old: when sieve.PRF.old cannot be replaced, profil fails (exit 1)"
like "$err" '^profil: sieve\.PRF: cannot keep the previous file as sieve\.PRF\.old \(.*\): this run is saved as sieve\.PRF\.new$' \
    ".old: and says why and where this run went in one line"
ok ".old: sieve.PRF is untouched" cmp -s first.PRF sieve.PRF
is "$(json sieve.PRF.new .bucket_paragraphs)" 2 ".old: sieve.PRF.new holds this run"
# ... and when sieve.PRF.new is taken too, the run stays in its temporary file.
run "$PROFIL" -b 3 -t 1000 --no-tui "$PROGS/sieve" 200 </dev/null
is "$rc" 1 ".old and .new taken: profil fails (exit 1)"
kept=$(printf '%s\n' "$err" | sed -n 's/^profil: sieve\.PRF: cannot keep the previous file as sieve\.PRF\.old (.*): this run is saved as \(.*\)$/\1/p')
ok ".old and .new taken: this run is saved, and the line says where ($kept)" test -s "${kept:-/nonexistent}"
is "$(json "${kept:-/nonexistent}" .bucket_paragraphs)" 3 ".old and .new taken: that file holds this run"
ok ".old and .new taken: sieve.PRF.new is untouched" test "$(json sieve.PRF.new .bucket_paragraphs)" = 2
cd "$T" || exit 1

done_testing
