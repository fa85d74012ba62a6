#!/bin/sh
# The live screen, driven in tmux the way a user would: it streams the
# counters and the hot functions, changes the bucket size live, searches,
# survives resizes, shows the program's output, and gives the terminal back.
. "$TESTLIB"

plan 98
use_tmux

# A shell in tmux, so that what profil leaves behind can be looked at.  The
# locale is fixed: names cut short end in "…" in UTF-8, in "..." elsewhere.
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
tm send-keys -t s "cd '$T'; $PROFIL -b 2 -t 1000 $PROGS/sieve 6000; echo EXIT=\$?" Enter

ok "the screen comes up with the program running" wait_for ' running *$' 10
S=$(screen)
like "$S" '^ profil .*sieve 6000' "the header names the program and its parameters"
like "$S" 'perf/wall 1000 us' "the header gives driver, clock and sample time"
for c in Program DOS 'I/O' high; do
    like "$S" "^$c|  $c " "the $c meter is shown"
done
ok "the hottest function shows while it runs" wait_for 'markbit +[0-9]+\.[0-9]+%' 5
like "$S" 'buckets of 2 paragraphs' "the histogram shows the bucket size asked for"

tm send-keys -t s z
ok "z halves the bucket size live" wait_for 'buckets of 1 paragraph' 3
tm send-keys -t s Z Z
ok "Z doubles it" wait_for 'buckets of 4 paragraphs' 3

tm send-keys -t s 5
ok "the output view shows the program's output" wait_for 'sieve: 6000 rounds' 3
tm send-keys -t s 1

# A message has a row of its own: the keys below it stay whole (issue 24).
tm send-keys -t s .
ok "a message shows" wait_for '^ only a replay steps or seeks *$' 3
like "$(screen | tail -n 1)" \
    '^1Histogram 2Functions 3Timeline 4Counters 5Output 6Flame 7Source 8Threads  .*h Help  q Quit *$' \
    "at 120 columns the key bar under it is whole, every tab named"

tm send-keys -t s p
ok "p pauses the clock" wait_for 'paused *$' 3
tm send-keys -t s p
ok "and p resumes it" wait_for 'running *$' 3

# Narrow: one view at a time, switched by number.
tm resize-window -t s -x 60 -y 20
ok "a 60x20 terminal still has the header" wait_for '^ profil ' 3
ok "and the tabs" wait_for '^1Histogram 2Functions' 3
tm send-keys -t s 2 / f i n d n Enter b
ok "/ finds a routine and b shows its buckets" wait_for '^[0-9a-f]+ +findnext ' 3
tm resize-window -t s -x 120 -y 40
ok "back at 120x40 both panels are side by side" wait_for 'Histogram .*Functions' 3

ok "after the program ends the screen says how" wait_for 'Program terminated normally *$' 20
S=$(screen)
has "$S" 'saved. q to quit' "the session was saved at the end"
like "$(printf '%s\n' "$S" | head -n 1)" ' ended *$' "the title says the program ended"
like "$S" 'samples [0-9]+ \([0-9]+/s avg\)' "the rate is the run's average, not the 0/s of now"
like "$S" 'threads max [0-9]+' "the thread count is the run's most, named so"
unlike "$S" '\(live\)' "nothing says live once the program has ended"
# The histogram's bars stop short of the functions beside them (column 60).
rows=$(printf '%s\n' "$S" | grep -E '^[0-9a-f]{12} ')
cmp_ok "$(lines "$rows")" '>' 10 "the histogram's rows are on the screen"
is "$(printf '%s\n' "$rows" | sed 's/…/./g' | awk 'substr($0, 60, 1) ~ /[^ ]/ { n++ } END { print n + 0 }')" 0 \
    "no histogram bar runs into the next panel"
like "$S" '^[0-9a-f]{12} [^|]*… ' "a name cut to fit its column ends in an ellipsis"
tm send-keys -t s 5
ok "the Output view counts the program's two lines, not the cursor's" \
    wait_for 'Output .* 2 lines, following' 3
tm send-keys -t s 1
is "$(json "$T/sieve.PRF" '"\(.exit.status) \(.exit.code)"')" "terminated 0" \
    "the file saved at the end, screen still up, says how the program ended"
tm send-keys -t s '?'
ok "? shows the keys" wait_for 'halve the bucket size' 3
tm send-keys -t s Escape
ok "Esc leaves the help" gone 'halve the bucket size' 1
tm send-keys -t s q
ok "q leaves the screen" wait_for '^EXIT=0' 5
S=$(screen)
like "$S" '^Program terminated normally$' "the termination message follows the screen"
ok "the session file exists" test -s "$T/sieve.PRF"
tm send-keys -t s "stty -a | tr ' ' '\\n' | grep -Ex -- '-?(icanon|echo)' | tr '\\n' ' '; echo" Enter
ok "the terminal is restored (canonical mode, echo)" wait_for '^icanon echo *$' 3

# q while the program runs asks first; y stops it and keeps the session.
tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 -o q.PRF $PROGS/sieve 100000; echo EXIT=\$?" Enter
ok "a long run starts" wait_for ' running *$' 10
tm send-keys -t s q
ok "q while running asks whether to stop" wait_for 'Stop it and quit\? \(y/n\)' 3
tm send-keys -t s n
# The prompt takes the tabs' line: the tabs back and the prompt gone mean
# that n was read; the state is then still the program's.
kept_running() {
    wait_for '^1Histogram' 3 && gone 'Stop it and quit' 1 && wait_for ' running *$' 1
}
ok "n keeps it running" kept_running
tm send-keys -t s C-c
ok "Ctrl-C goes to the program" wait_for 'Program aborted \(SIGINT: Interrupt\)' 5
tm send-keys -t s q
ok "profil exits with the program's status" wait_for '^EXIT=130' 5
ok "and its session is saved" test -s "$T/q.PRF"
tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 -o y.PRF $PROGS/sieve 100000; echo EXIT=\$?" Enter
ok "another long run starts" wait_for ' running *$' 10
tm send-keys -t s q y
ok "q then y stops the program" wait_for '^Program aborted \(SIGTERM: Terminated\)$' 6
ok "and profil ends with its status" wait_for '^EXIT=143' 5
ok "and saves" test -s "$T/y.PRF"

# 80x24, as a user would first see it: the header's fields never run into
# each other, the histogram opens on the hottest code, the keys htop and less
# users bring work.  NO_COLOR: the selection is the reverse-video row.
tm resize-window -t s -x 80 -y 24
tm send-keys -t s "clear; NO_COLOR=1 $PROFIL -b 1 -t 1000 -o w.PRF $PROGS/sieve 100000; echo EXIT=\$?" Enter
ok "an 80x24 screen starts" wait_for ' running *$' 10
ok "the histogram opens on the hottest code, not on empty _init buckets" \
    wait_for '^[0-9a-f]{12} +(\. )?(markbit|testbit|markall)' 5
like "$(selected)" '^[0-9a-f]{12} +(\. )?(markbit|testbit|markall)' "with the cursor on the hottest bucket"
ok "the header's fields stand apart from each other and from the state" \
    wait_for '^ pid [0-9]+  .*samples [0-9]+ \([0-9]+/s\)(  lost [0-9]+)?  +running *$' 3
# markbit's bucket of 4 paragraphs (64 bytes), from the program itself: the
# buckets count from the start of its code segment; the symbol at or before
# that bucket's start is the first one in it (frame_dummy where gcc puts
# markbit 16 bytes into it).
text_lo=$(readelf -lW "$PROGS/sieve" | awk '$1 == "LOAD" && /R E/ { print $3; exit }')
mb=$(nm "$PROGS/sieve" | awk '$3 == "markbit" { print $1; exit }')
mb_bucket=$(printf '%012x' $(( text_lo + ((0x$mb - text_lo) / 64) * 64 )))
mb_first=$(nm -n "$PROGS/sieve" | while read -r a ty name; do
    case $ty in [tTwW]) [ $((0x$a)) -le $((0x$mb_bucket)) ] && echo "$name" ;; esac
done | tail -n 1)
diag "markbit at 0x$mb: its 64-byte bucket $mb_bucket, whose first symbol is $mb_first"
tm send-keys -t s Z Z
ok "a bucket is labelled by the function with most samples in it, +N for the others" \
    wait_for "^$mb_bucket +markbit \\+[0-9]+ " 3
unlike "$(screen)" "^$mb_bucket +$mb_first " "not by the first symbol that starts in it ($mb_first)"
tm send-keys -t s z z
ok "z z: back to 1 paragraph" wait_for 'buckets of 1 paragraph' 3
# A notch of the wheel is three rows; at 1 paragraph a row is 16 bytes on.
before=$(selected | cut -c1-12)
after=$(printf '%012x' $((0x${before:-0} + 3 * 16)))
tm send-keys -t s -l "$(printf '\033[Ma*(')" # an X10 mouse report: the wheel, a notch down
ok "the mouse wheel scrolls the histogram three rows ($before to $after)" wait_for_selected "^$after " 3
tm send-keys -t s H / f i n d Enter
ok "/ searches the bucket labels" wait_for_selected '^[0-9a-f]{12} +findnext ' 3
tm send-keys -t s n
ok "n finds the next bucket labelled so" wait_for_selected '^[0-9a-f]{12} +\. findnext ' 3
tm send-keys -t s N
ok "N goes back" wait_for_selected '^[0-9a-f]{12} +findnext ' 3
tm send-keys -t s 2 n
ok "n in Functions repeats the search made in the histogram" \
    wait_for_selected '^[0-9:.]+ +findnext ' 3
unlike "$(screen)" 'Search:' "without opening an empty prompt"
# The matches of "mark" after findnext, in the rows' order (markbit and
# markall are 34 and 30 % on some CPUs, 50 and 5 on others, so either may
# come first): the next one down from findnext, wrapping to the top.
order=$(screen | sed -n 's/^[0-9:.][0-9:.]*  *\([A-Za-z_][A-Za-z_0-9]*\) .*/\1/p' | tr '\n' ' ')
set -- $(printf '%s\n' $order | awk '/^findnext$/ { f = NR } { n[NR] = $0 }
    END { for (i = 1; i <= NR; i++) { k = (f + i - 1) % NR + 1; if (n[k] ~ /mark/) print n[k] } }')
diag "rows: $order; the matches of mark after findnext: $*"
tm send-keys -t s / m a r k Enter
ok "/ in Functions finds the next routine from the cursor on ($1)" \
    wait_for_selected "^[0-9:.]+ +$1 " 3
tm send-keys -t s n
ok "a second n goes to the next match, round to the top ($2)" \
    wait_for_selected "^[0-9:.]+ +$2 " 3
tm send-keys -t s N
ok "N searches backwards ($1)" wait_for_selected "^[0-9:.]+ +$1 " 3
ok "the sort column is marked in the column heads" wait_for '^Time▼ ' 3
tm send-keys -t s .
ok ". is a replay's step, not a sort key" wait_for 'only a replay steps' 3
like "$(screen | tail -n 2 | head -n 1)" '^ only a replay steps or seeks *$' \
    "at 80 columns the message has the row above the keys"
like "$(screen | tail -n 1)" \
    '^1Histogram 2Functions 3Time 4Count 5Out 6Flame 7Source 8Threads  h Help  q Quit *$' \
    "and every tab keeps a name beside it, with h Help and q Quit"
like "$(screen)" 'sorted by Time' "so the sort stays"
tm send-keys -t s F3
ok "F3 searches, as in htop" wait_for '^Search: *$' 3
tm send-keys -t s Escape
ok "Esc closes the prompt at once" gone '^Search:' 1
# F4 and F5 do nothing: the h typed after them opens the help, so they were
# read (a prompt they opened would have taken the h), and once the help is
# closed the Functions view is still there (F5's \e[15~ taken apart would
# have shown 5, the Output), with the tabs on the last line.
tm send-keys -t s F4 F5 h
ok "h shows the help, as in htop and less" wait_for 'Help: keys' 3
tm send-keys -t s Escape
ok "and Esc closes it at once" gone 'Help: keys' 1
S=$(screen)
like "$S" '^ Functions .*sorted by Time' "F4 and F5 left the Functions view as it was"
like "$S" '^1Histogram 2Functions .* h Help' "F4 and F5 leave nothing on the screen"
tm send-keys -t s ' '
ok "Space pauses the clock, as it pauses a replay" wait_for 'paused *$' 3
tm send-keys -t s ' '
ok "and resumes it" wait_for 'running *$' 3
tm send-keys -t s C-c
ok "Ctrl-C ends the program; the screen stays" wait_for 'Program aborted \(SIGINT: Interrupt\) *$' 5
like "$(screen | sed -n 2p)" 'samples [0-9]+ .*[^ ]  +Program aborted \(SIGINT: Interrupt\) *$' \
    "at 80 columns the header keeps the samples, whole, beside a long state"
tm send-keys -t s q
ok "q ends the 80-column run" wait_for '^EXIT=130' 5

# A program that lives in libc: the histogram says so, and where to look.
tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 -o l.PRF $PROGS/libcbound 100000; echo EXIT=\$?" Enter
ok "a library-bound program's histogram says where the samples are" \
    wait_for "program's own code: [0-9.]+% in shared" 10
S=$(screen)
like "$S" '(libraries|^ ) ?\(DOS\)\. See( |$)' "in shared libraries (DOS)"
like "$S" 'See Functions \(2\)\.|^ Functions \(2\)\.' "and points to the Functions view"
tm send-keys -t s q y
ok "and q y ends it" wait_for '^EXIT=143' 6
tm resize-window -t s -x 120 -y 40

# NO_COLOR and a program that prints escapes do not tear the screen.
tm send-keys -t s "clear; NO_COLOR=1 $PROFIL -b 1 -t 1000 -o e.PRF $PROGS/echoer --; echo EXIT=\$?" Enter
ok "the screen starts under NO_COLOR" wait_for ' running *$' 10
tm send-keys -t s i
ok "i gives the keyboard to the program" wait_for 'INPUT: keys go to the program' 3
tm send-keys -t s 'hello there' Enter
ok "what is typed reaches the program and its answer shows" wait_for '^HELLO THERE' 3
tm send-keys -t s C-d
ok "end of input ends it" wait_for 'Program terminated normally *$' 5
tm send-keys -t s C-] q
ok "and q leaves" wait_for '^EXIT=0' 5

# At 60x20 the help does not fit: it wraps to the width and scrolls, so
# that every key can be read.
"$PROGS/../views/mkprf" "$PROGS/sieve" h.PRF 500 0
tm resize-window -t s -x 60 -y 20
tm send-keys -t s "clear; $PROFIL h.PRF; echo EXIT=\$?" Enter
ok "a replay at 60x20" wait_for 'replay end' 8
tm send-keys -t s '?'
ok "? shows the help at 60x20" wait_for 'Help: keys' 3
S=$(screen)
like "$S" 'Tab +next' "a line wider than the screen wraps instead of being cut"
like "$S" 'more below' "and a mark says there is more below"
tm send-keys -t s PgDn
ok "PgDn scrolls the help a page" wait_for 'Help: keys .* lines 17-' 3
tm send-keys -t s End
ok "End shows its last line" wait_for 'See profil\(1\)' 3
S=$(screen)
like "$S" 'Ctrl-C +goes to the program' "and the last keys"
# k scrolls up a line: the help's "lines A-B" says A - 1 once k was read.
top=$(printf '%s\n' "$S" | sed -n 's/^ Help: keys .* lines \([0-9]*\)-.*/\1/p' | head -n 1)
tm send-keys -t s k
ok "the scroll keys leave the help open (k: from line ${top:-?} to $((${top:-1} - 1)))" \
    wait_for "^ Help: keys .* lines $((${top:-1} - 1))-" 3
tm send-keys -t s Escape
ok "and Esc leaves it" gone 'Help: keys' 2
tm send-keys -t s q
ok "q leaves the replay" wait_for '^EXIT=0' 5
tm resize-window -t s -x 120 -y 40

done_testing
