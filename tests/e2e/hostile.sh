#!/bin/sh
# hostile.sh - what a hostile file or a careless pipe must not do (issue 16):
# a session whose strings hold terminal escapes, carriage returns, newlines
# and bells must not rewrite the terminal nor forge report lines; standard
# input that is no terminal must not hang profil nor cost it minutes.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 85

SHARES=$PROGS/shares
ECHOER=$PROGS/echoer
ESC=$(printf '\033')
C1=$(printf '\302\233') # U+009B, CSI to a terminal that takes C1 controls

# no_c1 FILE: FILE holds no UTF-8-encoded C1 control (U+0080..U+009F).
no_c1() {
    if LC_ALL=C grep -q "$(printf '\302')[$(printf '\200')-$(printf '\237')]" "$1"; then
        diag "$1 holds a C1 control:" "$(LC_ALL=C grep -n "$(printf '\302')" "$1" | od -c | head -n 4)"
        return 1
    fi
    return 0
}
# clean FILE: neither control bytes (but tab and newline) nor C1 controls.
clean() {
    ctrl_free "$1" && no_c1 "$1"
}
# made_clean FILE: the command just run ($rc) succeeded, wrote FILE, and FILE
# is clean (an empty output of a command that failed is clean too).
made_clean() {
    if [ "$rc" != 0 ] || [ ! -s "$1" ]; then
        diag "exit $rc, $(wc -c <"$1" | tr -d ' ') bytes in $1:" "$(head -n 3 "$T/.err")"
        return 1
    fi
    clean "$1"
}

# json_clean FILE: the command just run ($rc) succeeded, and FILE is valid
# UTF-8 and JSON as Python's strict reader has it, with no raw C1 control.
json_clean() {
    [ "$rc" = 0 ] &&
        python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1" &&
        no_c1 "$1"
}

# ---------------------------------------------------------------------------
# JSON is valid UTF-8 whatever the bytes of a name: an argument that is not
# UTF-8 (0xff) comes out as U+FFFD, where cJSON passed the byte through.
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/ff.PRF" "$SHARES" 2 "$(printf 'a\377b')" </dev/null
run "$PROFIL" --report --json "$T/ff.PRF"
ok "bytes: --report --json of a session with a 0xff byte is valid UTF-8 JSON" json_clean "$T/.out"
is "$(jq -r '.meta.args[1]' "$T/.out")" "$(printf 'a\357\277\275b')" "bytes: the byte is U+FFFD there"

# ---------------------------------------------------------------------------
# What a file says cannot rewrite the terminal.
# A copy of shares whose file name, one symbol, arguments and comment hold
# ESC sequences (clear the screen, set the title), CR, LF, BEL and a C1 CSI.
HOSTILE_NAME="x${ESC}[2J${ESC}]0;T$(printf '\007\r')y"
HOSTILE_SYM="wo${ESC}[31mrk
Total 99.99%$(printf '\r\007')a$C1"
HOSTILE_ARG="a${ESC}[2Jb"
HOSTILE_COMMENT="note${ESC}]0;title$(printf '\007\r')
forged$C1"
if ! command -v objcopy >/dev/null 2>&1; then
    for _i in $(seq 1 35); do
        fail "a session with control bytes in its strings ($_i of 35)" "needs objcopy (binutils) to rename a symbol"
    done
else
    objcopy --redefine-sym "work_a=$HOSTILE_SYM" "$SHARES" "$T/$HOSTILE_NAME"
    run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/h.PRF" -c "$HOSTILE_COMMENT" \
        "./$HOSTILE_NAME" 20 "$HOSTILE_ARG" </dev/null
    is "$rc" 0 "escapes: a program whose names hold control bytes is profiled"
    ok "escapes: the report at the end of the run holds no control byte" clean "$T/.out"
    ok "escapes: the messages at the end of the run hold no control byte" clean "$T/.err"
    is "$(json "$T/h.PRF" .comment)" "$HOSTILE_COMMENT" \
        "escapes: JSON keeps the comment as it is (JSON escapes it)"
    is "$(json "$T/h.PRF" '.functions[0].name')" "$HOSTILE_SYM" \
        "escapes: JSON keeps the routine's name as it is"
    # JSON escapes the C1 controls too (\u009b), which cJSON passes through.
    for cmd in "--report --json" "--export=speedscope -o -" "--diff --json"; do
        if [ "$cmd" = "--diff --json" ]; then
            run "$PROFIL" --diff --json "$T/h.PRF" "$T/h.PRF"
        else
            run "$PROFIL" $cmd "$T/h.PRF"
        fi
        ok "escapes: $cmd is valid JSON with no raw C1 control" json_clean "$T/.out"
    done

    run "$PROFIL" --report "$T/h.PRF"
    is "$rc" 0 "escapes: --report exits 0"
    ok "escapes: --report holds no control byte" clean "$T/.out"
    has "$out" 'wo\033[31mrk\nTotal 99.99%\r\aa\302\233' \
        "escapes: --report writes the routine's name as ls -b and git do"
    has "$out" ' Program: ./x\033[2J\033]0;T\a\ry 20 a\033[2Jb' \
        "escapes: --report escapes the program and its arguments"
    has "$out" ' Comment: note\033]0;title\a\r\nforged\302\233' "escapes: --report escapes the comment"
    unlike "$out" '^Total 99' "escapes: a newline in a routine's name does not forge a report line"
    unlike "$out" '^forged' "escapes: a newline in the comment does not forge a report line"

    for opt in --hist --tree --lines; do
        run "$PROFIL" --report "$opt" "$T/h.PRF"
        ok "escapes: --report $opt exits 0 and holds no control byte" made_clean "$T/.out"
    done
    run "$PROFIL" --export folded -o - "$T/h.PRF"
    ok "escapes: --export folded exits 0 and holds no control byte" made_clean "$T/.out"
    has "$out" ';wo\033[31mrk\nTotal 99.99%\r\aa\302\233' "escapes: --export folded escapes the name"
    unlike "$out" '^Total 99' "escapes: a newline in a name does not forge a stack line"
    run "$PROFIL" --diff "$T/h.PRF" "$T/h.PRF"
    ok "escapes: --diff exits 0 and holds no control byte" made_clean "$T/.out"
    has "$out" 'wo\033[31mrk\nTotal 99.99%' "escapes: --diff escapes the routine's name"
    run "$PROFIL" --list shares.c -o - "$T/h.PRF"
    ok "escapes: --list exits 0 and holds no control byte" made_clean "$T/.out"
    ok "escapes: --list's messages hold no control byte" clean "$T/.err"
    run "$PROFIL" --report --annotate "$HOSTILE_SYM" "$T/h.PRF"
    ok "escapes: --annotate exits 0 and holds no control byte" made_clean "$T/.out"
    has "$out" 'Annotated wo\033[31mrk\nTotal' "escapes: --annotate escapes the routine's name"
    run "$PROFIL" --report --annotate no_such_function "$T/h.PRF"
    is "$rc $(lines "$err")" "1 1" "escapes: a message quoting a routine's name is one line, exit 1"
    ok "escapes: the message holds no control byte" clean "$T/.err"
    has "$err" 'the hottest: wo\033[31mrk\nTotal' "escapes: the message escapes the name it quotes"

    # The live screen, replaying the session: names drawn with '?', and no
    # escape reached the terminal (the title tmux keeps is its own).
    use_tmux
    tm -f /dev/null new-session -d -s s -x 150 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 NO_COLOR=1 sh"
    # This tmux lets a program set the pane's title (else the title checks
    # below could not fail): a title set first, which profil must leave.
    title() { tm display-message -p -t s '#{pane_title}'; }
    tm send-keys -t s "printf '\\033]2;before-profil\\007'" Enter
    title_set() {
        _n=30
        while [ "$_n" -gt 0 ]; do
            [ "$(title)" = before-profil ] && return 0
            sleep 0.1
            _n=$((_n - 1))
        done
        return 1
    }
    ok "escapes: this tmux takes a title from an escape (a check that can fail)" title_set
    tm send-keys -t s "cd '$T'; $PROFIL h.PRF; echo EXIT=\$?" Enter
    ok "escapes: the replay opens" wait_for '^ profil' 5
    tm send-keys -t s 2
    ok "escapes: the screen draws the routine's control bytes as '?'" wait_for 'wo\?\[31mrk\?Total' 5
    tm send-keys -t s q
    ok "escapes: the replay ends" wait_for 'EXIT=0' 5
    is "$(title)" before-profil "escapes: no escape of the file's (T, title) set the terminal's title"
    tm kill-server 2>/dev/null
fi

# ---------------------------------------------------------------------------
# Standard input that is no terminal: a line is capped, read in blocks, and
# three wrong answers end profil with status 2; what comes after an answer
# is left to the program.
start=$(date +%s)
head -c 30000000 /dev/zero | tr '\0' 1 | "$PROFIL" -o "$T/p.PRF" "$ECHOER" >"$T/.out" 2>"$T/.err"
rc=$? end=$(date +%s) err=$(cat "$T/.err")
is "$rc" 2 "stdin: a 30 MB answer line ends profil with status 2"
cmp_ok "$((end - start))" "<=" 5 "stdin: at once (it took $((end - start)) s)"
like "$err" '^profil: .*longer than 4096 bytes' "stdin: and says the line is too long"
is "$(lines "$err")" 1 "stdin: in one line"
ok "stdin: nothing was run" test ! -e "$T/p.PRF"

yes x | timeout 20 "$PROFIL" -o "$T/p.PRF" "$ECHOER" >"$T/.out" 2>"$T/.err"
rc=$? out=$(cat "$T/.out") err=$(cat "$T/.err")
is "$rc" 2 "stdin: 'yes x' ends profil with status 2 (124: it hung)"
is "$(count_of "$out" "$P_BUCKET")" 3 "stdin: after three wrong answers"
is "$(printf '%s\n' "$err" | grep -c "^profil: answer 'x' refused ([123] of 3): not a whole number\$")" 3 \
    "stdin: each says why it was refused"
like "$err" '^profil: 3 wrong answers and standard input is not a terminal: nothing was run$' \
    "stdin: the last line says why profil gives up"
ok "stdin: nothing was run after wrong answers" test ! -e "$T/p.PRF"

yes 5 | timeout 20 "$PROFIL" -b 1 -o "$T/p.PRF" "$ECHOER" >"$T/.out" 2>"$T/.err"
rc=$? err=$(cat "$T/.err")
is "$rc" 2 "stdin: three sample times too small end profil with status 2"
like "$err" "^profil: answer '5' refused \(3 of 3\): too small\$" "stdin: saying why"

# (-b alone: with -b and -t and no terminal the parameters are not asked.)
{ echo 1000; yes "'"; } | timeout 20 "$PROFIL" -b 1 -o "$T/p.PRF" "$ECHOER" >"$T/.out" 2>"$T/.err"
rc=$? err=$(cat "$T/.err")
is "$rc" 2 "stdin: three unterminated quotes for the parameters end profil with status 2"
like "$err" "^profil: answer ''' refused \(3 of 3\): .*unterminated" "stdin: saying why"

printf '1\n1000\n%05000d\n' 0 | timeout 20 "$PROFIL" -o "$T/p.PRF" "$ECHOER" >"$T/.out" 2>"$T/.err"
is "$?" 2 "stdin: parameters longer than 4096 bytes end profil with status 2"
like "$(cat "$T/.err")" "^profil: .*longer than 4096 bytes.*--args" "stdin: and say where they may go"

# The answers and the program's own lines, from a regular file, a pipe and a
# socket: the program reads exactly what follows the answers.
printf '1\n1000\n\nfirst line\nsecond\n' >"$T/in.txt"
run "$PROFIL" -o "$T/p.PRF" "$ECHOER" <"$T/in.txt"
is "$(printf '%s\n' "$out" | grep -E '^(FIRST LINE|SECOND)$' | tr '\n' ,)" "FIRST LINE,SECOND," \
    "stdin: from a file, the program reads the lines after the answers"
printf '1\n1000\n\nfirst line\nsecond\n' | "$PROFIL" -o "$T/p.PRF" "$ECHOER" >"$T/.out" 2>&1
is "$(grep -E '^(FIRST LINE|SECOND)$' "$T/.out" | tr '\n' ,)" "FIRST LINE,SECOND," \
    "stdin: from a pipe, the program reads the lines after the answers"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$PROFIL" "$ECHOER" "$T/p.PRF" >"$T/.out" 2>&1 <<'EOF'
import socket, subprocess, sys
a, b = socket.socketpair()
a.sendall(b'1\n1000\n\nfirst line\nsecond\n')
a.shutdown(socket.SHUT_WR)
subprocess.run([sys.argv[1], '-o', sys.argv[3], sys.argv[2]], stdin=b)
EOF
    is "$(grep -E '^(FIRST LINE|SECOND)$' "$T/.out" | tr '\n' ,)" "FIRST LINE,SECOND," \
        "stdin: from a socket, the program reads the lines after the answers"
else
    fail "stdin: from a socket" "needs python3 to make a socket pair"
fi

# ---------------------------------------------------------------------------
# No orphan: a program that profil started does not outlive profil, even
# when profil is killed by SIGKILL, with either driver.

# child_of PID NAME [SECONDS]: the pid of PID's child called NAME, once it
# runs (the ptrace probe's child and the child before its exec are not it).
child_of() {
    _n=$(( ${3:-5} * 10 ))
    while [ "$_n" -gt 0 ]; do
        _c=$(pgrep -P "$1" -x "$2" | head -n 1)
        [ -n "$_c" ] && { echo "$_c"; return 0; }
        sleep 0.1
        _n=$((_n - 1))
    done
    return 1
}
# gone_within PID SECONDS: PID has ended (gone, or a zombie nobody reaped).
gone_within() {
    _n=$(( $2 * 10 ))
    while [ "$_n" -gt 0 ]; do
        _st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
        case $_st in "" | Z) return 0 ;; esac
        sleep 0.1
        _n=$((_n - 1))
    done
    diag "pid $1 still runs (state $_st)"
    kill -KILL "$1" 2>/dev/null
    return 1
}
SLEEP=$(command -v sleep)
# stopped PID: PID is in a stop (T, or t under ptrace), within 5 s.
stopped() {
    _n=50
    while [ "$_n" -gt 0 ]; do
        case $(sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) in
        T | t) return 0 ;;
        esac
        sleep 0.1
        _n=$((_n - 1))
    done
    diag "pid $1 is not stopped: $(grep '^State' "/proc/$1/status" 2>/dev/null)"
    return 1
}
# taken PID SIG: signal SIG sent to PID is no longer pending (PID took it),
# within 5 s.
taken() {
    _bit=$((1 << ($2 - 1)))
    _n=50
    while [ "$_n" -gt 0 ]; do
        _p=0
        for _m in $(sed -n 's/^\(SigPnd\|ShdPnd\):[[:space:]]*//p' "/proc/$1/status" 2>/dev/null); do
            [ $((0x$_m & _bit)) -ne 0 ] && _p=1
        done
        [ -e "/proc/$1/status" ] && [ "$_p" = 0 ] && return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    diag "signal $2 is still pending in pid $1"
    return 1
}
for drv in perf ptrace; do
    why=""
    [ "$drv" = perf ] && why=$(perf_refused)
    if [ -n "$why" ]; then
        skip "orphans: $drv" perf-refused "$why"
        continue
    fi
    "$PROFIL" --no-tui --driver "$drv" -b 1 -t 1000 -o "$T/k.PRF" "$SLEEP" 30 \
        </dev/null >/dev/null 2>&1 &
    ppid=$!
    if cpid=$(child_of "$ppid" sleep); then
        kill -KILL "$ppid"
        wait "$ppid" 2>/dev/null
        ok "orphans: $drv: the program dies with a profil killed by SIGKILL" gone_within "$cpid" 3
    else
        kill -KILL "$ppid" 2>/dev/null
        _tap 1 "orphans: $drv: the program did not start"
    fi
done

# ---------------------------------------------------------------------------
# SIGTERM to profil while the program is stopped: the program is continued
# so that it ends, and the session is saved; a second SIGTERM soon after the
# first kills a program that ignores it.
for drv in perf ptrace; do
    why=""
    [ "$drv" = perf ] && why=$(perf_refused)
    if [ -n "$why" ]; then
        skip -n 10 "SIGTERM: $drv" perf-refused "$why"
        continue
    fi
    rm -f "$T/t.PRF"
    "$PROFIL" --no-tui --driver "$drv" -b 1 -t 1000 -o "$T/t.PRF" "$SLEEP" 30 \
        </dev/null >"$T/.out" 2>"$T/.err" &
    ppid=$!
    if cpid=$(child_of "$ppid" sleep); then
        kill -STOP "$cpid"
        ok "SIGTERM: $drv: the program is stopped" stopped "$cpid"
        kill -TERM "$ppid"
        ok "SIGTERM: $drv: profil ends though the program was stopped" gone_within "$ppid" 5
        kill -KILL "$cpid" 2>/dev/null
        wait "$ppid"
        is "$?" 143 "SIGTERM: $drv: profil exits as the program did (128+15)"
        has "$(cat "$T/.out")" "Program aborted (SIGTERM" "SIGTERM: $drv: the program died of SIGTERM"
        is "$(json "$T/t.PRF" .exit.signal 2>/dev/null)" SIGTERM "SIGTERM: $drv: the session was saved"
    else
        kill -KILL "$ppid" 2>/dev/null
        for _i in 1 2 3 4 5; do
            fail "SIGTERM: $drv: stopped ($_i of 5)" "the program did not start"
        done
    fi

    # A program that ignores SIGTERM: the second one kills it.
    rm -f "$T/t.PRF"
    "$PROFIL" --no-tui --driver "$drv" -b 1 -t 1000 -o "$T/t.PRF" /bin/sh -c \
        "trap '' TERM; exec $SLEEP 30" </dev/null >"$T/.out" 2>"$T/.err" &
    ppid=$!
    if cpid=$(child_of "$ppid" sleep); then
        # The second SIGTERM once profil has taken the first (two pending
        # at once are one); the program going on after the first is then
        # its dying of the SIGKILL, not of a SIGTERM (137, not 143).
        kill -TERM "$ppid"
        ok "SIGTERM: $drv: profil takes the first SIGTERM" taken "$ppid" 15
        kill -TERM "$ppid"
        ok "SIGTERM: $drv: a second SIGTERM ends it" gone_within "$ppid" 5
        kill -KILL "$cpid" 2>/dev/null
        wait "$ppid"
        is "$?" 137 "SIGTERM: $drv: the program went on after the first SIGTERM and the second killed it (128+9)"
        like "$(cat "$T/.err")" '^profil: SIGTERM again within 5 s: killing the program \(SIGKILL\)$' \
            "SIGTERM: $drv: profil says why it killed the program"
        is "$(json "$T/t.PRF" .exit.signal 2>/dev/null)" SIGKILL "SIGTERM: $drv: the session was saved"
    else
        kill -KILL "$ppid" 2>/dev/null
        for _i in 1 2 3 4 5; do
            fail "SIGTERM: $drv: ignored ($_i of 5)" "the program that ignores SIGTERM did not start"
        done
    fi
done

# The live screen: the same for a stopped program (it used to be killed
# after the grace of two seconds).
if [ -z "$(perf_refused)" ]; then
    use_tmux
    tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 NO_COLOR=1 sh"
    tm send-keys -t s "cd '$T'; $PROFIL --driver perf -b 1 -t 1000 -o t2.PRF $SLEEP 30; echo EXIT=\$?" Enter
    ok "SIGTERM: screen: the live screen is up" wait_for '^ profil ' 5
    ppid=$(pgrep -f "o t2.PRF $SLEEP 30" | head -n 1)
    if cpid=$(child_of "$ppid" sleep); then
        kill -STOP "$cpid"
        ok "SIGTERM: screen: the program is stopped" stopped "$cpid"
        kill -TERM "$ppid"
        ok "SIGTERM: screen: the program dies of the SIGTERM, not of the SIGKILL after the grace" \
            wait_for 'EXIT=143' 5
        kill -KILL "$cpid" 2>/dev/null
    else
        fail "SIGTERM: screen: stopped" "the program did not start"
        fail "SIGTERM: screen: the program dies of the SIGTERM" "the program did not start"
    fi
    tm kill-server 2>/dev/null
else
    skip -n 3 "SIGTERM: screen" perf-refused "$(perf_refused)"
fi

# ---------------------------------------------------------------------------
# The perf driver loses a process that executes a setuid program (the
# kernel takes its events off): it says so rather than let the profile end
# without a word.
ENV=$(command -v env)
if [ -n "$(perf_refused)" ]; then
    skip -n 4 "setuid: perf" perf-refused "$(perf_refused)"
elif [ "$(id -u)" -ne 0 ] || ! id -u nobody >/dev/null 2>&1; then
    skip -n 4 "setuid: perf" needs-root "needs root and a user nobody, to make a setuid program of another user"
else
    cp "$(command -v id)" "$T/suid-id"
    chown nobody "$T/suid-id" && chmod 4755 "$T/suid-id"
    if [ "$("$T/suid-id" -u 2>/dev/null)" != "$(id -u nobody)" ]; then
        skip -n 4 "setuid: perf" nosuid-tmp "the file system of $T is mounted nosuid"
    else
        cp "$SHARES" "$T/suid-shares"
        chown nobody "$T/suid-shares" && chmod 4755 "$T/suid-shares"
        run "$PROFIL" --no-tui --driver perf -b 1 -t 1000 -o "$T/su.PRF" "$ENV" "$T/suid-shares" 5 \
            </dev/null
        is "$rc" 0 "setuid: a program that executes a setuid program is profiled"
        like "$err" '^profil: (.*; )?the program ran a setuid program: not profiled after exec' \
            "setuid: perf says the setuid program was not profiled"
        run "$PROFIL" --no-tui --driver perf -b 1 -t 1000 -o "$T/su.PRF" "$ENV" "$SHARES" 5 \
            </dev/null
        unlike "$err" 'setuid' "setuid: an exec of a plain program is not taken for one"
        cmp_ok "$(json "$T/su.PRF" .counters.total)" ">" 20 "setuid: and is profiled after its exec"
    fi
fi

done_testing
