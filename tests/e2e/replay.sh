#!/bin/sh
# Sessions that last: a recorded session replays on the live screen as it
# streamed and ends at the saved state; classic 1983 files export, import and
# replay; the comment travels with the file.
. "$TESTLIB"
plan 74

use_tmux

"$PROFIL" -b 1 -t 1000 --no-tui -o s.PRF -c 'night run, "quoted"' "$PROGS/sleeper" -- >out 2>err
ok "a session is recorded" test -s s.PRF
is "$(json s.PRF .comment)" 'night run, "quoted"' "the comment is stored (--report --json .comment)"
has "$("$PROFIL" --report s.PRF)" 'Comment: night run, "quoted"' "and shown in the report"
is "$(json s.PRF .meta.comment)" 'night run, "quoted"' "the whole metadata is under .meta"
for k in program args date host kernel driver clock interval_us exit duration_s profil_version; do
    is "$(json s.PRF ".meta | has(\"$k\")")" true "the metadata has $k"
done
total=$(json s.PRF .counters.total)
io=$(json s.PRF .counters.io)
program=$(json s.PRF .counters.program)

# Replay on the screen: it streams, steps, seeks, and ends at the saved state.
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 NO_COLOR=1 sh"
tm send-keys -t s "cd '$T'; $PROFIL s.PRF; echo EXIT=\$?" Enter
ok "profil FILE.PRF opens the replay" wait_for '^ profil REPLAY' 5
ok "the header says where the replay is" wait_for 'frame [0-9]+/[0-9]+' 3
ok "it plays to the end" wait_for 'replay end: Program terminated normally' 5
S=$(screen)
like "$S" "samples $total " "at the end the header has the saved total ($total)"
like "$S" "^I/O .* $io( |$)" "and the I/O meter the saved I/O count ($io)"
like "$S" "^Program .* $program( |$)" "and the Program meter the saved count ($program)"
like "$S" "samples $total \\([0-9]+/s avg\\)" "at the end the rate is the run's average"
unlike "$S" '\(live\)' "nothing in a replay says live"
tm send-keys -t s 2 Home
ok "Home moves in the focused view, as it does live" wait_for_selected '^[0-9:.]+ +spin' 3
like "$(screen)" 'replay end' "and leaves the replay where it was"
tm send-keys -t s 1 g 0 Enter
ok "g 0 goes back to the start, paused as the end left it" wait_for ' frame 0/.*replay paused' 3
tm send-keys -t s ' '
ok "space plays" wait_for 'replay playing' 3
tm send-keys -t s ' '
ok "space pauses" wait_for 'replay paused' 3
tm send-keys -t s G
ok "G goes to the end" wait_for 'replay end' 3
last=$(screen | sed -n 's/.* frame \([0-9]*\)\/[0-9]*.*/\1/p' | head -n 1)
tm send-keys -t s ,
ok ", steps back one frame from the end (to frame $((${last:-1} - 1)))" \
    wait_for " frame $((${last:-1} - 1))/.*replay paused" 3
unlike "$(screen)" 'replay end' "after a step back it is no longer at the end"
tm send-keys -t s .
ok ". steps forward to the end again" wait_for 'replay end' 3
tm send-keys -t s g 0 . 5 Enter
ok "g goes to a time" wait_for ' 0\.5 / ' 3
tm send-keys -t s g 1
ok "g asks for a time" wait_for '^Go to \(seconds\): 1' 3
tm send-keys -t s Escape
ok "Esc leaves the go-to prompt" gone 'Go to \(seconds\):' 3
tm send-keys -t s /
ok "and the next / asks for a search, not a time" wait_for '^Search:' 3
tm send-keys -t s Escape
ok "Esc leaves the search prompt" gone '^Search:' 3
tm send-keys -t s g i n f Enter
ok "g inf is refused" wait_for "'inf' is not a time in seconds" 3
tm send-keys -t s g n a n Enter
ok "and so is g nan" wait_for "'nan' is not a time in seconds" 3
like "$(screen)" ' 0\.5 / ' "the replay stays where it was"
# A time past the end (past SIZE_MAX frames too) is the end, not the start.
tm send-keys -t s g 1 e 3 0 8 Enter
ok "g 1e308 goes to the end" wait_for 'replay end' 3
tm send-keys -t s g 0 . 5 Enter
ok "and g 0.5 back" wait_for ' 0\.5 / ' 3
tm send-keys -t s ']' ']'
ok "] doubles the speed" wait_for ' 4× *$' 3
tm send-keys -t s '[' '[' '[' '[' '[' '['
ok "[ halves it, down to 1/16× (not x0.0625)" wait_for ' 1/16× *$' 3
tm send-keys -t s p
ok "p plays on, as it resumes the clock live" wait_for 'replay playing' 3
tm send-keys -t s p
ok "and p pauses the playback again" wait_for 'replay paused' 3
tm send-keys -t s 2
# 2 moves the cursor from the histogram's row (an address) to the ranking's
# (a time): on spin, the top of the ranking.
ok "the view keys work in a replay: the ranking" wait_for_selected '^[0-9]+:[0-9]{2}\.[0-9]{3} +spin ' 3
tm send-keys -t s q
ok "q leaves the replay" wait_for '^EXIT=0' 3

# A session whose program never ran its own code, with lost ticks.
"$PROGS/../views/mkprf" "$PROGS/sieve" lib.PRF 0 50
tm send-keys -t s "clear; $PROFIL lib.PRF; echo EXIT=\$?" Enter
ok "a library-bound session replays" wait_for 'replay end' 8
S=$(screen)
like "$S" "No samples in the program's own code: 100\\.0% in shared" \
    "the histogram says the program's own code has no samples"
like "$S" 'libraries \(DOS\)\. See Functions \(2\)\.' "where they are, and where to look"
like "$S" 'lost 100 \(4\.8%\)' "the header gives the lost ticks and their share"
tm send-keys -t s 4
ok "so does the Counters view" wait_for '^ Lost +100 +4\.8% ' 3
tm send-keys -t s q
ok "q leaves" wait_for '^EXIT=0' 3

# Preempted ticks are not the program's: the lost share on the screen is the report's.
"$PROGS/../views/mkprf" "$PROGS/sieve" pre.PRF 0 50 500
like "$("$PROFIL" --report pre.PRF)" '^Lost +100 +4\.76% of the ticks' \
    "the report: 100 lost of 2000 samples and 100 lost, 1000 preempted beside them"
tm send-keys -t s "clear; $PROFIL pre.PRF; echo EXIT=\$?" Enter
ok "a session with preempted ticks replays" wait_for 'replay end' 8
like "$(screen)" 'lost 100 \(4\.8%\)' "the header's lost share is the report's"
tm send-keys -t s 4
ok "and so is the Counters view's" wait_for '^ Lost +100 +4\.8% ' 3
tm send-keys -t s q
ok "q leaves" wait_for '^EXIT=0' 3

# Classic PROFIL files.
"$PROFIL" --export classic s.PRF -o c.PRF 2>err
ok "--export classic writes the 1983 layout" test -s c.PRF
nb=$(json s.PRF .bucket_count)
is "$(wc -c < c.PRF | tr -d ' ')" "$((18 + 2 * nb))" "its size is 18 + 2 x bucket_num"
is "$(json c.PRF .counters.io)" "$io" "it reads back with --report --json: the I/O count"
is "$(json c.PRF .bucket_count)" "$nb" "and the bucket count"
"$PROFIL" --export classic c.PRF -o c2.PRF
ok "a classic file exports again to the same bytes" cmp c.PRF c2.PRF
tm send-keys -t s "clear; $PROFIL --replay c.PRF; echo EXIT=\$?" Enter
ok "a classic file replays" wait_for 'replay end' 5
unlike "$(screen)" '/s avg' "without a rate: a 1983 file has no duration"
tm send-keys -t s q
ok "and q leaves" wait_for '^EXIT=0' 3

# A 1983 file written by hand: counts over 65535 in a session saturate on export.
printf '\350\003\002\000\001\000\000\001\002\001\000\000\007\000\010\000\011\000\144\000\310\000' > old.PRF
is "$(json old.PRF .counters.program)" 300 "a hand-made 1983 file: buckets 100 + 200"
is "$(json old.PRF .counters.io)" 7 "hit_io 7"
is "$(json old.PRF .interval_us)" 1000 "clock_grain 1000"

# Files that cannot hurt.
head -c 100 s.PRF > cut.PRF
"$PROFIL" --replay cut.PRF >o 2>e
rc=$?
cmp_ok "$rc" == 1 "a truncated file does not replay: exit 1"
like "$(cat e)" '^profil: cut.PRF: ' "with one line saying what is wrong"
printf '\211PRF\r\n\032\n\002\000\000\000\000\000\000\000' > new.PRF
"$PROFIL" --report new.PRF >o 2>e
like "$(cat e)" 'format version 2\.0; this profil reads 1\.x' "a newer major version says so"
"$PROFIL" --export classic s.PRF 2>e
cmp_ok "$?" == 2 "--export without -o is a usage error"

done_testing
