#!/bin/sh
# endings.sh - how a program ends, and what profil makes of it: a crash, an
# exit status, Ctrl-C caught or not, SIGTERM sent to profil; the session is
# written every time.  And the program's stdin is its own.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 49

# ---------------------------------------------------------------------------
# SIGSEGV after ~0.3 s of doomed_work.
run "$PROFIL" -b 1 -t 1000 -o "$T/crash.PRF" "$PROGS/crash" -- </dev/null
is "$rc" 139 "crash: profil exits 139 (128 + SIGSEGV)"
like "$out" '^Program aborted \(SIGSEGV: Segmentation fault\)$' "crash: 'Program aborted (SIGSEGV: Segmentation fault)'"
like "$out" '^about to crash$' "crash: the program's output comes through"
ok "crash: the .PRF is written" test -s "$T/crash.PRF"
is "$(json "$T/crash.PRF" '"\(.exit.status) \(.exit.signal) \(.exit.code)"')" "aborted SIGSEGV null" \
    "crash: exit aborted, signal SIGSEGV, code null"
is "$(json "$T/crash.PRF" '.functions[0].name')" doomed_work "crash: doomed_work is the top function"

# ---------------------------------------------------------------------------
# exit(3) after ~0.1 s.
run "$PROFIL" -b 1 -t 1000 -o "$T/exit.PRF" "$PROGS/exitcode" -- </dev/null
is "$rc" 3 "exitcode: profil exits 3"
like "$out" '^Program terminated normally \(exit status 3\)$' "exitcode: 'Program terminated normally (exit status 3)'"
is "$(json "$T/exit.PRF" '"\(.exit.status) \(.exit.code) \(.exit.signal)"')" "terminated 3 null" \
    "exitcode: exit terminated, code 3, signal null"

# ---------------------------------------------------------------------------
# Ctrl-C on this terminal goes to the program, not to profil.  catcher
# works ~3 s unless SIGINT comes first.  The keys' times count from the
# program's first line (-w): profil's own start (its debug information, slow
# under ASan) must not make a key come before the program runs.
ptyrun -t 60 -w 'catcher: waiting' -k 0.7:^C -- "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/catch.PRF" "$PROGS/catcher" --
is "$rc" 0 "Ctrl-C caught: profil exits 0, as the program did"
like "$out" '^(\^C)?caught SIGINT$' "Ctrl-C caught: the program says 'caught SIGINT'"
like "$out" '^Program terminated normally$' "Ctrl-C caught: 'Program terminated normally'"
ok "Ctrl-C caught: the .PRF is written" test -s "$T/catch.PRF"
is "$(json "$T/catch.PRF" '"\(.exit.status) \(.exit.code)"')" "terminated 0" \
    "Ctrl-C caught: the session says terminated, code 0"
cmp_ok "$(json "$T/catch.PRF" .meta.duration_s)" "<" 2.5 "Ctrl-C caught: the program stopped early"

# sieve at 20000 rounds would take ~12 s; Ctrl-C kills it.
ptyrun -t 60 -w 'sieve: ' -k 0.5:^C -- "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/int.PRF" "$PROGS/sieve" 20000
is "$rc" 130 "Ctrl-C not caught: profil exits 130 (128 + SIGINT)"
like "$out" '^(\^C)?Program aborted \(SIGINT: Interrupt\)$' "Ctrl-C not caught: 'Program aborted (SIGINT: Interrupt)'"
ok "Ctrl-C not caught: the .PRF is written" test -s "$T/int.PRF"
is "$(json "$T/int.PRF" '"\(.exit.status) \(.exit.signal)"')" "aborted SIGINT" \
    "Ctrl-C not caught: the session says aborted by SIGINT"
cmp_ok "$(json "$T/int.PRF" '[.functions[] | select(.name == "markbit") | .samples] | add // 0')" ">" 0 \
    "Ctrl-C not caught: the samples before it are kept"

# A program whose input is not a terminal has a session of its own (and so
# its own autogroup: the scheduler shares the CPUs between profil and it as
# between two jobs); one that reads the terminal shares profil's, for
# Ctrl-C, Ctrl-Z and /dev/tty.  Field 6 of /proc/PID/stat is the session.
sid_of='echo "pid $$ session $(cut -d" " -f6 /proc/$$/stat)"'
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/sid.PRF" /bin/sh -c "$sid_of" </dev/null
set -- $(printf '%s\n' "$out" | sed -n 's/^pid \([0-9]*\) session \([0-9]*\)$/\1 \2/p')
is "${1:-x}" "${2:-y}" "input not a terminal: the program leads a session of its own"
ptyrun -t 30 -- "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/sid2.PRF" /bin/sh -c "$sid_of"
set -- $(printf '%s\n' "$out" | sed -n 's/^pid \([0-9]*\) session \([0-9]*\)$/\1 \2/p')
isnt "${1:-x}" "${2:-x}" "input a terminal: the program stays in profil's session"
# Ctrl-C then reaches it through profil, as the terminal would have sent it.
ptyrun -t 60 -w 'catcher: waiting' -k 0.7:^C -- sh -c 'exec "$0" --no-tui -b 1 -t 1000 -o "$1" "$2" -- </dev/null' \
    "$PROFIL" "$T/catch3.PRF" "$PROGS/catcher"
is "$rc" 0 "input not a terminal, Ctrl-C: profil exits 0, as the program did"
like "$out" '^(\^C)?caught SIGINT$' "input not a terminal, Ctrl-C: passed on to the program, which caught it"

# The same on the live screen: Ctrl-C is typed to the program's terminal;
# a TERM once it is over closes the screen.  Times count from the screen's
# first drawing, once the program runs.
ptyrun -t 60 -w 'Histogram' -k 0.7:^C -k 4:TERM -- "$PROFIL" -b 1 -t 1000 -o "$T/catch2.PRF" "$PROGS/catcher" --
is "$rc" 0 "live: Ctrl-C caught: profil exits 0"
like "$(printf '%s\n' "$out" | tail -n 2)" 'Program terminated normally$' \
    "live: Ctrl-C caught: 'Program terminated normally' after the screen"
is "$(json "$T/catch2.PRF" '"\(.exit.status) \(.exit.code)"')" "terminated 0" \
    "live: Ctrl-C caught: the session says terminated, code 0"
cmp_ok "$(json "$T/catch2.PRF" .meta.duration_s)" "<" 2.5 "live: Ctrl-C caught: the program stopped early"

# ---------------------------------------------------------------------------
# Ctrl-C before the program starts: it says nothing was run and exits 130;
# the file an earlier run left is not touched.  What holds profil there is
# the program's loader listing its libraries (`LOADER --list PROGRAM`, for
# their debug information; given up after 2 s), which the ptrace driver does
# before the start (the perf driver starts the program at once and reads
# debug information as samples need it): a copy of sieve-stripped
# whose PT_INTERP names, in the same number of bytes, a script that sleeps,
# so a Ctrl-C at 1 s falls there.  (The program itself could not run.)
interp=$(readelf -l "$PROGS/sieve-stripped" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
sleeper=/tmp/pe$(printf "%0$((${#interp} - 7))d" $$)
if [ -z "$interp" ] || [ "${#sleeper}" -ne "${#interp}" ]; then
    for _i in 1 2 3 4 5; do
        fail "early Ctrl-C ($_i of 5)" "$PROGS/sieve-stripped has no PT_INTERP of 8 bytes or more: '$interp'"
    done
else
    printf '#!/bin/sh\nsleep 5\n' >"$sleeper" && chmod +x "$sleeper"
    perl -0777 -pe 'BEGIN { $o = shift; $n = shift } s/\Q$o\E/$n/' "$interp" "$sleeper" \
        <"$PROGS/sieve-stripped" >"$T/sieve-stripped" && chmod +x "$T/sieve-stripped"
    echo earlier >"$T/early.PRF"
    ptyrun -t 30 -k 1:^C -- "$PROFIL" --no-tui --driver=ptrace -b 1 -t 1000 -o "$T/early.PRF" \
        "$T/sieve-stripped" 10
    rm -f "$sleeper"
    is "$rc" 130 "early Ctrl-C: profil exits 130 (128 + SIGINT)"
    like "$out" '^profil: interrupted before the program started: nothing was run$' \
        "early Ctrl-C: says that nothing was run"
    hasnt "$out" "sieve:" "early Ctrl-C: the program did not run"
    is "$(cat "$T/early.PRF")" earlier "early Ctrl-C: the earlier file is untouched"
    ok "early Ctrl-C: no .old made" test ! -e "$T/early.PRF.old"
fi

# Ctrl-C while the end of the run waits for a debug file: the program ran
# at once (debuginfod is asked in the background); its end waits for the
# answer, so that the file has the names, and Ctrl-C saves without them.
# The "server" is a file:// URL whose file is a FIFO nobody writes, which
# no timeout ends.  The program is a copy of sieve-stripped given a build id
# of its own, drawn here: no debug file of it can be installed on the
# machine, so profil has to ask the server.
bid_of() { readelf -n "$1" 2>/dev/null | sed -n 's/^[[:space:]]*Build ID: //p' | head -n 1; }
old_bid=$(bid_of "$PROGS/sieve-stripped")
if [ -z "$old_bid" ]; then
    for _i in 1 2 3 4 5 6 7 8 9; do
        fail "late Ctrl-C ($_i of 9)" "$PROGS/sieve-stripped has no build id: the build makes it with one"
    done
else
    bid=$(od -An -tx1 -N $((${#old_bid} / 2)) /dev/urandom | tr -d ' \n')
    perl -0777 -pe 'BEGIN { $o = pack("H*", shift); $n = pack("H*", shift) } s/\Q$o\E/$n/g' \
        "$old_bid" "$bid" <"$PROGS/sieve-stripped" >"$T/sieve-late" && chmod +x "$T/sieve-late"
    if [ "$(bid_of "$T/sieve-late")" != "$bid" ] || [ -n "$(debug_file_of "$T/sieve-late")" ]; then
        echo "Bail out! could not give a copy of sieve-stripped the build id $bid, of which no debug file is installed"
        exit 1
    fi
    mkdir -p "$T/srv/buildid/$bid"
    mkfifo "$T/srv/buildid/$bid/debuginfo"
    # (fast_unwind_on_malloc=0: see debuginfod.sh, libdebuginfod's leak)
    ptyrun -t 30 -k 2.5:^C -- env DEBUGINFOD_URLS="file://$T/srv" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" \
        DEBUGINFOD_CACHE_PATH="$T/late-cache" "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/late.PRF" \
        "$T/sieve-late" 10
    is "$rc" 0 "late Ctrl-C: profil exits 0, the program's status" || diag "$out"
    like "$out" '^sieve:' "late Ctrl-C: the program ran, without waiting for the server"
    like "$out" '^profil: waiting for debug info from debuginfod \(Ctrl-C: save without it\)' \
        "late Ctrl-C: the wait is said, with how to end it"
    like "$out" '^(\^C)?profil: SIGINT: saving without the debug info still on its way$' \
        "late Ctrl-C: Ctrl-C saves without it (after the terminal's ^C)"
    ok "late Ctrl-C: the session is written" test -s "$T/late.PRF"
    like "$(json "$T/late.PRF" '.functions[0].name')" '^sieve-late\+0x[0-9a-f]+$' \
        "late Ctrl-C: named from the program alone"
    # On the live screen the status line says so, and q saves without it.
    use_tmux
    tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' sh"
    tm send-keys -t s "cd '$T'; DEBUGINFOD_URLS='file://$T/srv' DEBUGINFOD_CACHE_PATH='$T/late-cache2' ASAN_OPTIONS='${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0' $PROFIL -b 1 -t 1000 -o late2.PRF '$T/sieve-late' 10; echo EXIT=\$?" Enter
    ok "late, live: the status line says the end waits for debug info, and how to end it" \
        wait_for 'waiting for debug info from debuginfod before saving \(q: save without it\)' 20
    tm send-keys -t s q
    ok "late, live: q saves without it" \
        wait_for 'saved without the debug info still on its way\. q to quit' 10
    tm send-keys -t s q
    ok "late, live: q then quits" wait_for "EXIT=0" 10
fi

# ---------------------------------------------------------------------------
# SIGTERM to profil: passed on to the program, the session still written.
"$PROFIL" -b 1 -t 1000 -o "$T/term.PRF" "$PROGS/sieve" 20000 </dev/null >"$T/term.out" 2>"$T/term.err" &
pid=$!
# Wait until the program runs (its first line), then 0.5 s more.
i=0
while [ $i -lt 100 ] && ! grep -q '^sieve:' "$T/term.out" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
is "$rc" 143 "SIGTERM: profil exits 143 (128 + SIGTERM)"
like "$(cat "$T/term.out")" '^Program aborted \(SIGTERM: Terminated\)$' "SIGTERM: 'Program aborted (SIGTERM: Terminated)'"
ok "SIGTERM: the .PRF is written" test -s "$T/term.PRF"
is "$(json "$T/term.PRF" '"\(.exit.status) \(.exit.signal)"')" "aborted SIGTERM" \
    "SIGTERM: the session says aborted by SIGTERM"
cmp_ok "$(json "$T/term.PRF" .meta.duration_s)" "<" 8 "SIGTERM: the program was stopped, not left to finish"

# ---------------------------------------------------------------------------
# The program's stdin is kept for it.
piped 'abc\n' "$PROFIL" -b 1 -t 1000 -o "$T/echo.PRF" "$PROGS/echoer" --
is "$rc" 0 "stdin: profil exits 0"
is "$(printf '%s\n' "$out" | head -n 1)" ABC "stdin: the program reads it (prints ABC first)"

done_testing
