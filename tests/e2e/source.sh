#!/bin/sh
# The Source view (7) on the live screen and in a replay, driven in tmux at
# 80x24 and 200x50, without colours (the selection is the reverse-video
# row): a function's lines with their samples, stars and shares, ] [ H
# through the hot lines, d for the instructions, a from the other views,
# Enter into the function a line calls and Backspace back, / through the
# view's search, resizes, and a source that is not there any more.
#   lines  work(): the lines marked LOOP75 and LOOP25 do 75 % and 25 %
#   inl    mix() inlined into caller_a (CALLA, 75 %) and caller_b (25 %)
. "$TESTLIB"
plan 76

use_tmux

# line_of PROG MARK: the line of tests/progs/PROG.c that carries MARK.
line_of() {
    grep -n "$2" "$PROGS/$1.c" 2>/dev/null | head -n 1 | cut -d: -f1
}
L75=$(line_of lines LOOP75) L25=$(line_of lines LOOP25)
MIX=$(line_of inl MIXLINE) CALLA=$(line_of inl CALLA)

# The view's rows: between its column heads (line 6) and its last line.
rows() {
    _h=$(tm display -p -t s '#{window_height}')
    screen | sed -n "7,$((_h - 2))p"
}
# sel: the selected row of the view, as text (the reverse-video one among its rows).
sel() {
    _h=$(tm display -p -t s '#{window_height}')
    _e=$(printf '\033')
    tm capture-pane -p -e -t s | sed -n "7,$((_h - 2))p" | grep -E "$_e\[([0-9]*;)*7m" |
        sed 's/\x1b\[[0-9;]*m//g' | head -n 1
}
# wait_sel ERE [SECONDS]: poll until the selected row matches.
wait_sel() {
    _n=$(( ${2:-10} * 10 ))
    while [ "$_n" -gt 0 ]; do
        sel | grep -Eq -- "$1" && return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    diag "selected: $(sel)"
    return 1
}
# row_of LINE: the view's row of source line LINE (its number after the numbers).
row_of() {
    rows | grep -E "^[ 0-9.%*]* $1(  |\$)" | head -n 1
}
# pct_of ROW: the row's % of the function (its second column).
pct_of() {
    printf '%s\n' "$1" | awk '{ sub(/%/, "", $2); print $2 }'
}
# samples_of ROW: its samples.
samples_of() {
    printf '%s\n' "$1" | awk '{ print $1 }'
}

# -- lines, live, at 80x24 ------------------------------------------------
# The default driver (perf where it may, else ptrace): the kernel's clock
# keeps the shares true on a loaded machine, where a sanitized profil tracing
# with ptrace may answer its ticks late; inl below is traced with ptrace.
tm -f /dev/null new-session -d -s s -x 80 -y 24 "env PS1='$ ' LC_ALL=C.UTF-8 NO_COLOR=1 sh"
tm send-keys -t s "cd '$T'; $PROFIL -b 1 -t 1000 -o lines.PRF $PROGS/lines 400; echo EXIT=\$?" Enter
ok "the screen comes up with lines running" wait_for ' running *$' 15
tm send-keys -t s 7
ok "7 shows the Source tab, on work (the hottest function with lines)" \
    wait_for '^ Source: work(\.constprop\.[0-9]+)? .*source' 10
ok "the tab bar names it" wait_for '^1Histogram 2Functions .*7Source' 3
ok "the hottest line, $L75 (LOOP75), is selected" wait_sel "^ *[0-9]+ .* $L75  " 10
R=$(sel)
like "$R" '\*\*\*\* ' "it has four stars"
has "$(rows)" "/lines.c" "a heading names the file"
like "$(screen)" "^lines\.c:$L75  [0-9]+ samples? \(" "the last line says the selected line whole"
first=$(samples_of "$R")
# grown: the selected row is still LOOP75's line, with more samples than
# $first, and 400 or more (the share below is read on them); 20 s at most.
grown() {
    _n=200
    while [ "$_n" -gt 0 ]; do
        R=$(sel)
        later=$(samples_of "$R")
        if printf '%s\n' "$R" | grep -Eq "^ *[0-9]+ .* $L75  " &&
            [ "${later:-0}" -gt "${first:-0}" ] && [ "${later:-0}" -ge 400 ]; then
            return 0
        fi
        sleep 0.1
        _n=$((_n - 1))
    done
    diag "selected: $R"
    return 1
}
ok "its samples grow while the program runs" grown
like "$(screen)" ' running *$' "live: $first samples, then $later, the program still running"
# (the first samples may all fall in one loop: the share is read after more)
near "$(pct_of "$R")" 75 8 "about 75 % of the function ($(pct_of "$R")%)"

tm send-keys -t s ']'
ok "] moves to the next hot line, $L25 (LOOP25)" wait_sel "^ *[0-9]+ .* $L25  " 3
near "$(pct_of "$(sel)")" 25 8 "with about 25 % of the function"
# Past LOOP25 the hot lines may go on: a tick now and then lands on the
# loop's test or the closing brace, a line of a sample or two.  ] walks
# them, coolest last, then starts again from the hottest.
ok "] past the coolest starts again from the hottest" step_to ']' wait_sel "^ *[0-9]+ .* $L75  " 1
tm send-keys -t s '['
_n=30
while [ "$_n" -gt 0 ] && sel | grep -Eq "^ *[0-9]+ .* $L75  "; do
    sleep 0.1
    _n=$((_n - 1))
done
R=$(sel)
unlike "$R" "^ *[0-9]+ .* $L75  " "[ leaves the hottest line, round to the coolest"
# The coolest: no row with samples has fewer, on one capture of the screen
# (the counts grow while the program runs).
coolest() {
    _h=$(tm display -p -t s '#{window_height}')
    tm capture-pane -p -e -t s | sed -n "7,$((_h - 2))p" | awk '
        { sel = $0 ~ /\033\[([0-9]*;)*7m/; gsub(/\033\[[0-9;]*m/, "") }
        $1 ~ /^[0-9]+$/ && $2 ~ /%$/ { if (sel) s = $1; if (min == "" || $1 + 0 < min) min = $1 + 0 }
        END { print (s != "" && s + 0 == min) ? "yes" : "no: selected " s ", fewest " min }'
}
is "$(coolest)" yes "on a line with samples, none with fewer"
tm send-keys -t s H
ok "H goes back to the hottest" wait_sel "^ *[0-9]+ .* $L75  " 3
tm send-keys -t s k k
ok "k moves the selection up" wait_sel "^ +$((L75 - 2))  " 3

tm send-keys -t s d
ok "d shows the disassembly" wait_for '^ Source: work.* disassembly' 5
like "$(rows)" '^ .* [0-9a-f]+:  imul ' "instructions under the lines: an address and imul"
like "$(rows)" '^ +[0-9]+ +[0-9.]+% +[0-9.]+% .* [0-9a-f]+:  [a-z]' "instructions with samples have their numbers"
tm send-keys -t s d
ok "d again goes back to the source" wait_for '^ Source: work.* source' 5
unlike "$(rows)" '[0-9a-f]+:  imul ' "no instruction left"

tm send-keys -t s / L O O P 2 5 Enter
ok "/ finds a line by its text (cut off at 80 columns)" wait_sel " $L25  " 3

tm resize-window -t s -x 200 -y 50
ok "at 200x50 the line shows whole" wait_for "^ .* $L75  .*LOOP75 \*/ *\$" 5
S=$(screen)
is "$(count_of "$S" "LOOP75")" 1 "once"
like "$(printf '%s\n' "$S" | sed -n 5p)" '^ Source: work.*lines +[0-9.]+% +source *$' \
    "the title: function, module, share, source"
like "$(printf '%s\n' "$S" | tail -n 1)" '^1Histogram 2Functions .*7Source' "the tabs on the last line"
tm resize-window -t s -x 80 -y 24
ok "back at 80x24" wait_for '^1Histogram 2Functions .*7Source' 5
S=$(screen)
is "$(count_of "$S" "Source: work")" 1 "one title, no leftover of the wide screen"
# Characters, not bytes: a cut line ends in "…", three bytes of UTF-8, and
# the test may run in the C locale (a fresh root has no LANG).
is "$(printf '%s\n' "$S" | LC_ALL=C.UTF-8 gawk 'length > 80' | wc -l | tr -d ' ')" 0 \
    "no line wider than the terminal"
like "$(sel)" " $L25  " "the selection kept its line"
tm send-keys -t s a
ok "a on a line that calls nothing only says so" wait_for 'calls nothing' 3
like "$(screen)" '^ Source: work' "and stays"

tm send-keys -t s q y
ok "q y stops the program" wait_for '^EXIT=143' 10
ok "the session was saved" test -s "$T/lines.PRF"

# -- its replay, at 200x50 ------------------------------------------------
tm resize-window -t s -x 200 -y 50
tm send-keys -t s "clear; $PROFIL lines.PRF; echo EXIT=\$?" Enter
ok "the replay comes up" wait_for '^ profil REPLAY' 5
tm send-keys -t s 7
ok "the replay shows the Source view as it plays" wait_for '^ Source: work.* source' 5
ok "both loops' lines get samples" wait_for "^ +[0-9]+ .* $L25  " 5
tm send-keys -t s Space
ok "Space pauses the replay" wait_for 'replay paused 1' 3
tm send-keys -t s ']'
ok "] is the next hot line here" wait_sel " $L25  .*LOOP25" 3
like "$(screen)" 'replay paused 1' "not the replay's speed"
tm send-keys -t s G H
ok "at the end, H: the hottest line" wait_sel "^ *[0-9]+ .* $L75  .*LOOP75" 5
like "$(sel)" '\*\*\*\* ' "with its four stars"
near "$(pct_of "$(sel)")" 75 8 "and its 75 %"
tm send-keys -t s q
ok "q leaves the replay" wait_for '^EXIT=0' 5

# -- inl: a from the other views, Enter and Backspace, at 80x24 -----------
tm resize-window -t s -x 80 -y 24
tm send-keys -t s "clear; $PROFIL --driver=ptrace -b 1 -t 1000 -o inl.PRF $PROGS/inl 40; echo EXIT=\$?" Enter
ok "inl runs to its end" wait_for 'Program terminated normally *$' 30
tm send-keys -t s 2 / c a l l e r _ a Enter
ok "the Functions find caller_a" wait_for_selected '^[0-9:.]+ +caller_a ' 3
tm send-keys -t s a
ok "a on it shows caller_a's source" wait_for '^ Source: caller_a .*inl' 5
ok "its call line $CALLA (CALLA) is there" wait_for "^ .* $CALLA      return mix\(1" 3
like "$(row_of "$MIX")" '^ +[0-9]+ +[0-9.]+% .*\*\*\*\*' "and mix's line $MIX, inlined into it, with its samples"
tm send-keys -t s / C A L L A Enter
ok "/ selects the call line" wait_sel " $CALLA  " 3
like "$(screen)" 'Enter: mix *$' "the last line says Enter follows to mix"
tm send-keys -t s Enter
ok "Enter follows the call into mix" wait_for '^ Source: mix .*inlined' 3
ok "on mix's hottest line" wait_sel " $MIX  " 3
tm send-keys -t s BSpace
ok "Backspace goes back to caller_a" wait_for '^ Source: caller_a ' 3
ok "on the call line it left from" wait_sel " $CALLA  " 3
tm send-keys -t s BSpace
ok "Backspace with nowhere to go back to says so" wait_for 'no step to go back to' 3
tm send-keys -t s d
ok "d on mix's caller: its instructions" wait_for '^ Source: caller_a .*disassembly' 5
tm send-keys -t s 6
ok "6: the flame graph" wait_for '^ Flame ' 3
ok "a box of caller_a selected in the flame graph" step_to j wait_for '^caller_a \(inl\) total' 1
tm send-keys -t s a
ok "a in the Flame shows its source" wait_for '^ Source: caller_a ' 3
tm send-keys -t s 1
ok "the histogram, on the hottest bucket" wait_for '^ Histogram' 3
label=$(selected | sed 's/^[0-9a-f]* *\(\. \)\{0,1\}//' | awk '{ print $1 }')
tm send-keys -t s a
ok "a in the Histogram shows the source of the bucket's function (${label:-?})" \
    wait_for "^ Source: ${label:-none} " 3
# main calls routines without samples: its disassembly names them (resolving
# a call's target adds a function to the session while the rows are made).
tm send-keys -t s 2 / m a i n Enter
wait_for_selected '^[0-9:.]+ +[^ ]*main' 3
step_to n wait_for_selected '^[0-9:.]+ +main ' 1
tm send-keys -t s a
ok "a on main: its instructions (d is still on)" wait_for '^ Source: main .*disassembly' 5
like "$(rows)" ' [0-9a-f]+:  call +[0-9a-f]+ <[A-Za-z_][A-Za-z0-9_.@]*> *$' "a call with its target's name"
tm send-keys -t s / '<caller_a' Enter
ok "/ selects the call" wait_sel '[0-9a-f]+:  call +[0-9a-f]+ <caller_a>' 3
tm send-keys -t s Enter
ok "Enter on a call instruction goes to what it calls" wait_for '^ Source: caller_a ' 3
tm send-keys -t s BSpace
ok "Backspace: main again" wait_for '^ Source: main ' 3
tm send-keys -t s q
ok "q leaves" wait_for '^EXIT=0' 5

# -- a source that is not there any more, at 200x50 -----------------------
mkdir -p "$T/build/src"
cp "$PROGS/lines.c" "$T/build/src/lines.c"
if (cd "$T/build" && cc -O2 -g -o "$T/moved-lines" src/lines.c) 2>"$T/cc.err"; then
    run "$PROFIL" --no-tui --driver=ptrace -b 1 -t 500 -o "$T/moved.PRF" "$T/moved-lines" 10 </dev/null
    rm -f "$T/build/src/lines.c"
    tm resize-window -t s -x 200 -y 50
    tm send-keys -t s "clear; $PROFIL moved.PRF; echo EXIT=\$?" Enter
    ok "the replay of a moved program comes up" wait_for '^ profil REPLAY' 5
    tm send-keys -t s G 7
    ok "its Source view shows work" wait_for '^ Source: work' 5
    ok "the where line says where the text was looked for" \
        wait_for "^ source not found: $T/build/src/lines\\.c" 3
    like "$(row_of "$L75")" "\\*\\*\\*\\* .* $L75 *\$" "line $L75 keeps its numbers and stars, without its text"
    tm send-keys -t s q
    ok "q leaves" wait_for '^EXIT=0' 5
else
    for _i in 1 2 3 4 5; do
        fail "a moved source's where line ($_i of 5)" "needs a C compiler (cc): $(head -n 1 "$T/cc.err")"
    done
fi

# -- the hottest routine whose text is here, not the hottest with lines -----
# hot() is three quarters of the work, in hot.c, which is gone; warm(), a
# quarter, is in main.c, which is here: the Source view opens on warm (it
# opened on the routine whose text was nowhere, issue 24 #8).
mkdir -p "$T/two"
cat >"$T/two/main.c" <<'EOF'
#include <stdlib.h>
long hot(long n);
__attribute__((noinline)) long warm(long n)
{
    volatile long x = 0;
    for (long i = 0; i < n; i++)
        x += i;
    return x;
}
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 60, s = 0;
    for (long i = 0; i < n; i++)
        s += hot(3000000) + warm(1000000);
    return (int)(s & 1);
}
EOF
cat >"$T/two/hot.c" <<'EOF'
long hot(long n)
{
    volatile long x = 0;
    for (long i = 0; i < n; i++)
        x += i;
    return x;
}
EOF
(cd "$T/two" && cc -O1 -g -o two main.c hot.c && rm hot.c)
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/two.PRF" "$T/two/two" 60 </dev/null
tm send-keys -t s "clear; cd '$T/two'; $PROFIL ../two.PRF; echo EXIT=\$?" Enter
tm send-keys -t s G 7
ok "the Source view opens on warm, whose text is here, not on hot" wait_for '^ Source: warm .*source' 5
tm send-keys -t s q
ok "q leaves" wait_for '^EXIT=0' 5

done_testing
