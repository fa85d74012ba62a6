#!/bin/sh
# The live screen, driven in tmux the way a user would: it streams the
# counters and the hot functions, changes the bucket size live, searches,
# survives resizes, shows the program's output, and gives the terminal back.
. "$TESTLIB"

use_tmux

# A shell in tmux, so that what profil leaves behind can be looked at.
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' sh"
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

tm send-keys -t s p
ok "p pauses the clock" wait_for 'paused *$' 3
tm send-keys -t s p
ok "and p resumes it" wait_for 'running *$' 3

# Narrow: one view at a time, switched by number.
tm resize-window -t s -x 60 -y 20
ok "a 60x20 terminal still has the header" wait_for '^ profil ' 3
ok "and the tabs" wait_for '^1Histogram 2Functions' 3
tm send-keys -t s 2 / f i n d n Enter Enter
ok "/ finds a routine and Enter shows its buckets" wait_for '^[0-9a-f]+ +findnext ' 3
tm resize-window -t s -x 120 -y 40
ok "back at 120x40 both panels are side by side" wait_for 'Histogram .*Functions' 3

ok "after the program ends the screen says how" wait_for 'Program terminated normally *$' 20
S=$(screen)
has "$S" 'saved. q to quit' "the session was saved at the end"
is "$(json "$T/sieve.PRF" '"\(.exit.status) \(.exit.code)"')" "terminated 0" \
    "the file saved at the end, screen still up, says how the program ended"
tm send-keys -t s '?'
ok "? shows the keys" wait_for 'halve the bucket size' 3
tm send-keys -t s Escape q
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
ok "n keeps it running" wait_for '^1Histogram' 3
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

done_testing
