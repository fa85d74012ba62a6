#!/bin/sh
# The call-stack views on the live screen at 80x24, driven in tmux: Self and
# Total in the Functions, a routine's callers and callees, and the flame
# graph (6) of a program whose calls are known (calls.c: main calls path_a
# and path_b, both call leaf), live, without colours, and replayed.
. "$TESTLIB"
plan 54

use_tmux

# Only ptrace takes stacks so far.
tm -f /dev/null new-session -d -s s -x 80 -y 24 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
tm send-keys -t s "cd '$T'; $PROFIL --driver=ptrace -b 1 -t 1000 $PROGS/calls 1500; echo EXIT=\$?" Enter
ok "the screen comes up with the program running" wait_for ' running *$' 15

tm send-keys -t s 6
ok "6 shows the flame graph while the program runs" wait_for '^ Flame .*top-down' 5
ok "main's frame shows live, its callees under it" wait_for '^path_[ab] +path_[ab]' 10
# Back to the histogram while the run goes on: redrawing the graph is the
# costliest view (far more under ASan), and a tick the front end delays
# weighs the one PC it then takes with all the time since the last.
tm send-keys -t s 1

ok "the program ends" wait_for 'Program terminated normally *$' 60
tm send-keys -t s 6
ok "6 shows the flame graph again" wait_for '^ Flame .*top-down' 5
# The graph: the window's rows between its title and its last line.
graph() { screen | sed -n '6,22p'; }
G=$(graph)
like "$G" '^main *$' "main's frame starts its row, alone on it (blank to the edge in colour)"
is "$(printf '%s\n' "$G" | grep -A1 '^main' | tail -n 1 | awk '{ print $1, $2 }')" "path_a path_b" \
    "path_a (the heavier) then path_b on the row under main"
is "$(printf '%s\n' "$G" | grep -A2 '^main' | tail -n 1 | awk '{ print $1, $2 }')" "leaf leaf" \
    "leaf under each of them"
colour_graph=$G

tm send-keys -t s j j j j
ok "j moves the selection down to main's widest callee" wait_for '^path_a \(calls\) total' 3
tm send-keys -t s Enter
ok "Enter zooms into path_a: it fills the top row" wait_for '^path_a *$' 3
like "$(screen | sed -n 6p)" '^path_a *$' "path_a is the top row"
like "$(screen | sed -n 7p)" '^leaf( |$)' "leaf under it"
tm send-keys -t s BSpace
ok "Backspace zooms back out" wait_for '^_start' 3
tm send-keys -t s l
ok "l moves right on the row, to path_b" wait_for '^path_b \(calls\) total' 3
tm send-keys -t s h
ok "and h back left (h is not the help here)" wait_for '^path_a \(calls\) total' 3

tm send-keys -t s / l e a f Enter
ok "/ highlights the frames and gives their share" wait_for "^'leaf' [0-9.]+%, [0-9]+ frames" 3
share=$(screen | sed -n "s/^'leaf' \([0-9]*\)\.[0-9]*%.*/\1/p" | head -n 1)
cmp_ok "${share:-0}" '>' 60 "leaf holds most of the samples (${share:-?}%)"
cmp_ok "${share:-100}" '<' 100 "but not all: the paths work a little themselves"

tm send-keys -t s r
ok "r inverts the graph: leaf on top" wait_for 'inverted \(callers under\)' 3
# (the paths' own frames are a few columns wide: their names may be cut to
# pat…, and leaf's is the widest by far)
like "$(screen | sed -n 6p)" '^leaf {30,}pa' "the hottest function heads the inverted graph"
tm send-keys -t s r
ok "r again: top-down" wait_for 'top-down: the outermost' 3
# r keeps the selected function selected, turned over and back (it went
# to the root, issue 24).
tm send-keys -t s k k k k k k k k j j j j l
ok "path_b selected" wait_for '(^|\| )path_b \(calls\) total' 3
tm send-keys -t s r
ok "r: path_b is still selected in the inverted graph" wait_for '(^|\| )path_b \(calls\) total [0-9.]+%, [0-9]+ samples' 3
tm send-keys -t s r
ok "r again: and in the top-down one" wait_for '(^|\| )path_b \(calls\) total [0-9.]+%, self' 3

# The Functions: Self and Total, and Enter for callers and callees.
tm send-keys -t s 2
ok "the Functions have Self and Total" wait_for '^Time.* Routine +Self +Total' 3
unlike "$(screen)" 'has no stacks' "no note about stacks where there are stacks"
tm send-keys -t s t
ok "t sorts by Total" wait_for 'sorted by Total' 3
# Sorted by Total, main is among the first rows (sorted by Time, the routines
# the dynamic loader ran before it can push it off the screen): all of the
# Total but a sample or two the loader took, and a sliver of Self at most:
# main's loop is a few instructions a round of 1 ms, but a tick does land on
# them now and then (ptrace on a loaded machine: 1 sample in 3,211, at the
# loop's jl; 2 in 3,758 and 3 in 3,567 in two runs beside other tests).  An
# unwinder that gave out at main's callees would give main their time as
# Self and take it from its Total.
like "$(screen)" '  main +0\.(0[0-9]|1[0-9])% +(99\.[0-9][0-9]|100\.00)% ' \
    "main: a sliver of Self at most (under 0.2 %), all of the Total (but the loader's)" || diag "$(screen)"
tm send-keys -t s / p a t h _ a Enter
tm send-keys -t s Enter
ok "Enter on path_a shows its callers and callees" wait_for '^ Callers and callees: path_a' 3
S=$(screen)
like "$S" 'Callers of path_a \(1\)' "path_a has one caller"
like "$S" '% +[0-9]+ +main *$' "main"
like "$S" 'Callees of path_a \(2\)' "and two callees"
like "$S" '% +[0-9]+ +leaf *$' "leaf"
like "$S" '% +[0-9]+ +\(self\) *$' "and its own time, (self)"
tm send-keys -t s Up Enter
ok "Enter on a caller moves there" wait_for '^ Callers and callees: main' 3
S=$(screen)
# Where the unwinder gave out at main, main has no caller: a sliver.
like "$S" 'Callers of main \([12]\)' "main has one caller (and a sliver of none)"
like "$S" '^ +(99\.[0-9]+|100\.00)% .*  __libc_start_call_main *$' "the C library's, with all of it"
# Its callees: the two paths; the strtol at its start and the printf at
# its end; the dynamic linker's resolver, which binds each of those two on
# its first call (lazy binding: a tick there, seen in a loaded run, has
# main -> _dl_runtime_resolve_xsavec -> _dl_fixup); and main's own sliver,
# (self), when a sample fell there.  Not leaf: that would be an unwinder
# that lost a path's frame.
like "$S" 'Callees of main \([2-6]\)' "main has two callees (and perhaps strtol, printf, the resolver and its self)" || diag "$S"
is "$(printf '%s\n' "$S" | sed -n '/Callees of main/,$p' | awk '/%/ { print $NF }' |
    grep -Evx 'path_a|path_b|strtol|printf|_dl_runtime_resolve_(xsavec|xsave|fxsave)|\(self\)' | wc -l | tr -d ' ')" 0 "none but those" || diag "$S"
callees=$(printf '%s\n' "$S" | sed -n '/Callees of main/,$p' | awk '/%/ { print $NF }' | head -n 2 | tr '\n' ' ')
is "$callees" "path_a path_b " "path_a, then path_b, under it"
tm send-keys -t s BSpace
ok "Backspace goes back to path_a" wait_for '^ Callers and callees: path_a' 3
tm send-keys -t s BSpace
ok "and past the first step, to the Functions" wait_for '^ Functions ' 3
# _start: the search finds __libc_start_main first, n goes on (a press at a
# time: n pressed before the last was read went past _start under load).
tm send-keys -t s / _ s t a r t Enter
wait_for '^[^ ]*start[^ ]*  \(' 3
step_to n wait_for '^_start  \(calls' 1
tm send-keys -t s Enter
ok "Enter on _start" wait_for '^ Callers and callees: _start' 3
like "$(screen)" '% +[0-9]+ +\(no caller\) *$' "the outermost frame has (no caller)"

tm send-keys -t s q
ok "q leaves" wait_for '^EXIT=0' 5
ok "the session was saved" test -s "$T/calls.PRF"

# The replay, without colours: the same graph, the classes told apart by
# the characters that fill the frames.
tm send-keys -t s "clear; NO_COLOR=1 $PROFIL calls.PRF; echo EXIT=\$?" Enter
ok "the replay comes up" wait_for '^ profil REPLAY' 5
tm send-keys -t s G 6
ok "at its end the flame graph shows" wait_for '^ Flame .*= program - library' 5
ok "main's frame spans the width of its row" wait_for '^main={74,}' 3
G=$(graph)
like "$G" '^__libc_start_call_main-+$' "a library's frame is filled with -"
like "$G" '^_start={70,}' "the program's with ="
is "$(printf '%s\n' "$G" | grep -A2 '^main' | tail -n 1 | cut -c1-4)" "leaf" "leaf under main"
is "$(printf '%s\n' "$G" | sed 's/[-=:~]/ /g; s/ *$//')" "$(printf '%s\n' "$colour_graph" | sed 's/ *$//')" \
    "the same graph as the live screen drew at the end"
tm send-keys -t s q
ok "q leaves the replay" wait_for '^EXIT=0' 5

done_testing
