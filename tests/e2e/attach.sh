#!/bin/sh
# attach.sh - profil -p PID: attaches to a running process with either
# driver, profiles every thread it has, ends on --duration, a signal, q or
# Ctrl-C on the screen, or the process's end, and leaves the process
# running as it was: not stopped, not traced, the same threads, no signal
# pending, its output going on.  The kernel's refusals are one line each.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 217

ATTACHEES=""
STRACE=""
SCOPE_OLD=""
cleanup() {
    [ -n "$ATTACHEES" ] && kill $ATTACHEES 2>/dev/null
    [ -n "$STRACE" ] && kill "$STRACE" 2>/dev/null
    [ -n "$SCOPE_OLD" ] && echo "$SCOPE_OLD" >/proc/sys/kernel/yama/ptrace_scope
    [ -n "$SOCK" ] && tm kill-server 2>/dev/null
    cd /
    rm -rf "$T"
}
trap cleanup EXIT

# start NAME [SECONDS [CODE]]: tests/progs/attachee in the background, its
# output in $T/NAME.out; $P is its pid, once it has printed its first line.
start() {
    _n=$1
    shift
    "$PROGS/attachee" "$@" >"$T/$_n.out" 2>&1 &
    P=$!
    ATTACHEES="$ATTACHEES $P"
    file_has "$T/$_n.out" '^attachee: pid' 5
}
# status PID FIELD: a field of /proc/PID/status.
status() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }
ticks() { grep -c '^attachee: tick' "$T/$1.out"; }
# unharmed NAME DESC: process $P runs on as before profil came.
unharmed() {
    _st=$(status "$P" State | cut -c1)
    case $_st in R | S) _tap 0 "$2: still running (State $_st)" ;;
    *) _tap 1 "$2: still running (State '$_st')" ;; esac
    is "$(status "$P" TracerPid)" 0 "$2: no tracer left on it"
    is "$(status "$P" Threads)" 3 "$2: its three threads"
    is "$(status "$P" SigPnd)$(status "$P" ShdPnd)" 00000000000000000000000000000000 \
        "$2: no signal pending for it"
    _stopped=""
    for _t in /proc/"$P"/task/*; do
        _s=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "$_t/status" 2>/dev/null)
        case $_s in T | t) _stopped="$_stopped ${_t##*/} ($_s)" ;; esac
    done
    is "$_stopped" "" "$2: no thread of it left stopped"
    # A new tick line (one a second), 5 s at most.
    _before=$(ticks "$1")
    _n=50
    while [ "$_n" -gt 0 ] && [ "$(ticks "$1")" -le "$_before" ]; do
        sleep 0.1
        _n=$((_n - 1))
    done
    cmp_ok "$(ticks "$1")" ">" "$_before" "$2: its output goes on"
    hasnt "$(cat "$T/$1.out")" "interrupted" "$2: no system call of its was cut short"
}
# shares3 FILE A B C: the three functions' shares of their sum, in percent.
shares3() {
    "$PROFIL" --report --json "$1" | jq -r --arg a "$2" --arg b "$3" --arg c "$4" \
        '[.functions[] | {(.name): .samples}] | add
         | (.[$a] + .[$b] + .[$c]) as $s
         | "\(100 * .[$a] / $s) \(100 * .[$b] / $s) \(100 * .[$c] / $s)"'
}
# no_pid: a pid no process has.
no_pid() {
    _p=4194000
    while [ -e "/proc/$_p" ]; do _p=$((_p - 1)); done
    echo "$_p"
}

# ---------------------------------------------------------------------------
# The command line.
run "$PROFIL" --help
like "$out" '^ +-p, --pid=PID' "--help documents -p, --pid"
like "$out" '^ +--duration=S' "--help documents --duration"
start usage
run "$PROFIL" --no-tui -b 1 -t 1000 -p "$P" "$PROGS/sieve" </dev/null
is "$rc" 2 "-p with a program is a usage error"
like "$err" '^profil: -p attaches to a running process: give no program' \
    "-p with a program: the message says why"
is "$(lines "$err")" 1 "-p with a program: one line"
run "$PROFIL" --no-tui -b 1 -t 1000 -p "$P" --args "x" </dev/null
is "$rc" 2 "-p with --args is a usage error"
run "$PROFIL" --no-tui -p 0 </dev/null
is "$rc" 2 "-p 0 is a usage error"
run "$PROFIL" --no-tui --duration -1 -p "$P" </dev/null
is "$rc" 2 "--duration -1 is a usage error"
N=$(no_pid)
run "$PROFIL" --no-tui -b 1 -t 1000 -p "$N" -o "$T/none.PRF" </dev/null
is "$rc" 1 "a pid no process has: profil exits 1"
is "$err" "profil: -p $N: no such process" "a pid no process has: one line saying so"
no_prf "$T" "a pid no process has: no session file"
# Nothing is asked (issue 24): the bucket size and sample time are the
# prompts' defaults, and a running process has its parameters.
piped '7\n700\n' "$PROFIL" --no-tui --duration 1 --driver ptrace -p "$P" -o "$T/asked.PRF"
is "$rc" 0 "-p without -b or -t: profil exits 0"
hasnt "$out" "$P_BUCKET" "-p does not ask the bucket size"
is "$(json "$T/asked.PRF" '"\(.bucket_paragraphs) \(.interval_us)"')" "1 1000" \
    "-p takes the defaults: bucket 1, 1000 us"
hasnt "$out" "$P_PARAMS" "-p does not ask for parameters"
ok "-p without prompts: the session is saved" test -s "$T/asked.PRF"
is "$(json "$T/asked.PRF" '.args | length')" 0 "the session keeps the process's parameters (none)"
kill "$P"
wait "$P" 2>/dev/null

# ---------------------------------------------------------------------------
# Each driver: attach for 2 s, the shares, the process unharmed.
REFUSED=$(perf_refused)
for drv in ptrace perf; do
    if [ "$drv" = perf ] && [ -n "$REFUSED" ]; then
        skip -n 49 "perf: attach, shares, unharmed" perf-refused "$REFUSED"
        continue
    fi
    start "$drv"
    run "$PROFIL" --no-tui --driver "$drv" --duration 2 -p "$P" -b 1 -t 1000 -o "$T/$drv.PRF" \
        </dev/null
    is "$rc" 0 "$drv: profil -p exits 0"
    like "$err" "^profil: attached to process $P, sampling every 1000 us with the $drv driver" \
        "$drv: profil says it attaches, with which driver"
    like "$err" "^profil: --duration 2 s reached: detaching from process $P" \
        "$drv: --duration ends the session by detaching"
    has "$out" "Program still running (profil detached from it)" \
        "$drv: the end says the process still runs"
    ok "$drv: the session is saved" test -s "$T/$drv.PRF"
    J=$("$PROFIL" --report --json "$T/$drv.PRF")
    is "$(printf '%s' "$J" | jq -r '.attached, .exit.status, .meta.attached' | tr '\n' ' ')" \
        "true running true " "$drv: the file says attached, still running"
    like "$(printf '%s' "$J" | jq -r .meta.attached_at)" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' \
        "$drv: the file says when profil attached"
    has "$(printf '%s' "$J" | jq -r .meta.attached_note)" "start was not seen" \
        "$drv: the file says the start of the process was not seen"
    is "$(printf '%s' "$J" | jq -r .program)" "$PROGS/attachee" \
        "$drv: the program is the process's executable"
    cmp_ok "$(printf '%s' "$J" | jq -r .meta.threads)" ">=" 3 "$drv: all three threads were seen"
    R=$("$PROFIL" --report "$T/$drv.PRF")
    like "$R" '^Attached: to process [0-9]+ at .*its start was not seen' \
        "$drv: --report says the session was attached"
    like "$R" '^ +Ended: Program still running \(profil detached from it\)' \
        "$drv: --report says the process still ran"
    diag "$drv: $(printf '%s' "$J" | jq -c .counters), duration $(printf '%s' "$J" | jq -r .meta.duration_s) s"
    near "$(printf '%s' "$J" | jq -r .meta.duration_s)" 2 0.5 "$drv: the session lasted about 2 s"
    is "$(printf '%s' "$J" | jq -r '[.threads[].name] | map(. // "?") | sort | unique | join(" ")')" \
        "attachee" "$drv: the threads it had before profil came are named"
    # The main thread sleeps between its lines: blocked for all of the
    # session, though no switch record said so when profil came.
    b=$(printf '%s' "$J" | jq -r --argjson p "$P" '.threads[] | select(.tid == $p) | .blocked')
    cmp_ok "${b:-0}" ">=" 1600 "$drv: the sleeping main thread counts as blocked from the start ($b of ~2000 ticks)"
    # 3 points, or 4 standard deviations when a loaded machine (the
    # suite's other tests, other users) left the workers few samples: at
    # 650 samples (seen under load) work_c's share has a deviation of 1.6.
    n=$(printf '%s' "$J" | jq -r '[.functions[] | select(.name | test("^work_[abc]$")) | .samples] | add // 0')
    set -- $(shares3 "$T/$drv.PRF" work_a work_b work_c)
    diag "$drv: work_a/b/c ${1:-?} ${2:-?} ${3:-?} % of $n samples"
    for w in "a 50 ${1:-x}" "b 30 ${2:-x}" "c 20 ${3:-x}"; do
        set -- $w
        tol=$(awk -v n="$n" -v p="$2" 'BEGIN { if (n < 1) n = 1
            t = 4 * 100 * sqrt(p / 100 * (1 - p / 100) / n); printf "%.1f\n", (t > 3 ? t : 3) }')
        near "$3" "$2" "$tol" "$drv: work_$1 has $2 % of the three (+/- $tol)"
    done
    unharmed "$drv" "$drv: after detaching"

    # A TERM to profil ends the session; the process is not sent it.
    "$PROFIL" --no-tui --driver "$drv" -p "$P" -b 1 -t 1000 -o "$T/$drv-term.PRF" \
        </dev/null >"$T/term.out" 2>"$T/term.err" &
    PP=$!
    # Once it samples (a TERM before then stops profil while it sets up,
    # which a loaded machine made take more than 1.5 s).
    file_has "$T/term.err" 'attached to process' 10
    sleep 0.5
    kill -TERM "$PP"
    wait "$PP"
    is "$?" 0 "$drv: TERM to profil: it exits 0"
    like "$(cat "$T/term.err")" '^profil: SIGTERM: detaching from process' \
        "$drv: TERM to profil: it says it detaches"
    ok "$drv: TERM to profil: the session is saved" test -s "$T/$drv-term.PRF"
    unharmed "$drv" "$drv: after a TERM to profil"
    kill "$P"
    wait "$P" 2>/dev/null

    # The process ends while profil watches: the session ends with it.
    # (5 s: attaching under the sanitizers on a loaded machine took more
    # than the 2 s this once had, and the process was gone before profil came.)
    start "$drv-end" 5 7
    run "$PROFIL" --no-tui --driver "$drv" -p "$P" -b 1 -t 1000 -o "$T/$drv-end.PRF" </dev/null
    is "$rc" 0 "$drv: the process's end ends the session (profil exits 0)" || diag "$err"
    ok "$drv: the process's end: the session is saved" test -s "$T/$drv-end.PRF"
    has "$(cat "$T/$drv-end.out")" "attachee: done" "$drv: the process ran to its end"
    if [ "$drv" = ptrace ]; then
        has "$out" "Program terminated normally (exit status 7)" \
            "ptrace: the process's own exit status is seen"
        is "$(json "$T/$drv-end.PRF" '"\(.exit.status) \(.exit.code)"')" "terminated 7" \
            "ptrace: the file keeps its exit status"
        like "$("$PROFIL" --report "$T/$drv-end.PRF")" 'Ended: Program terminated normally \(exit status 7\)' \
            "ptrace: --report says the exit status"
    else
        has "$out" "Program exited (status unknown" \
            "perf: the end is seen, its status honestly unknown"
        is "$(json "$T/$drv-end.PRF" .exit.status)" "exited" "perf: the file says exited"
        like "$("$PROFIL" --report "$T/$drv-end.PRF")" 'Ended: Program exited \(status unknown' \
            "perf: --report says the status is unknown"
    fi
    wait "$P"
    is "$?" 7 "$drv: its parent still gets its exit status"

    # A process whose main thread has ended (pthread_exit) while two others
    # run on: the main thread is a zombie, with no executable, maps or
    # command line in /proc, and nothing to trace or sample.
    "$PROGS/spinners" leader 2 1500 >"$T/$drv-leader.out" 2>&1 &
    P=$!
    ATTACHEES="$ATTACHEES $P"
    _i=0
    while [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$P/stat" 2>/dev/null)" != Z ] && [ $_i -lt 50 ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    run "$PROFIL" --no-tui --driver "$drv" --clock cpu -p "$P" -b 1 -t 1000 -o "$T/$drv-leader.PRF" </dev/null
    is "$rc" 0 "$drv: main thread ended first: profil attaches and exits 0" || diag "$err"
    has "$out" "Program exited (status unknown" "$drv: main thread ended first: the end is seen"
    J=$("$PROFIL" --report --json "$T/$drv-leader.PRF")
    diag "$drv: main thread ended first: $(printf '%s' "$J" | jq -c '[.counters, [.threads[] | [.tid, .samples, .end_s]]]')"
    is "$(printf '%s' "$J" | jq -r .program)" "$PROGS/spinners" \
        "$drv: main thread ended first: the program is its executable"
    # Its maps were read: no sample is of code profil knows nothing of (the
    # high area), and its own code has the most.  (Not a share: the threads
    # read their CPU clock every half millisecond, a system call, and under
    # load 20-23 % of the ticks landed there, in libc or the kernel.)
    is "$(printf '%s' "$J" | jq -r '"\(.counters.high) \(.counters.program > .counters.total / 2)"')" "0 true" \
        "$drv: main thread ended first: every sample in code it knows, most in its own (its maps were read)"
    is "$(printf '%s' "$J" | jq -r --argjson p "$P" '[.threads[] | select(.tid != $p and .samples > 100)] | length')" 2 \
        "$drv: main thread ended first: both other threads sampled"
    cmp_ok "$(printf '%s' "$J" | jq -r --argjson p "$P" '.threads[] | select(.tid == $p) | .end_s // 99')" "<" 0.1 \
        "$drv: main thread ended first: it ended when profil came"
    cmp_ok "$(printf '%s' "$J" | jq -r '.processes[0].end_s // 0')" ">" 0.5 \
        "$drv: main thread ended first: the process ended with its last thread"
    wait "$P"
done

# ---------------------------------------------------------------------------
# A process stopped by SIGSTOP stays stopped when profil lets go of it, and
# goes on at SIGCONT: the group-stop is neither swallowed nor ended.
start stopped
kill -STOP "$P"
sleep 0.2
for drv in ptrace perf; do
    if [ "$drv" = perf ] && [ -n "$REFUSED" ]; then
        skip -n 2 "perf: a stopped process" perf-refused "$REFUSED"
        continue
    fi
    run "$PROFIL" --no-tui --driver "$drv" --duration 1 -p "$P" -b 1 -t 1000 \
        -o "$T/stopped-$drv.PRF" </dev/null
    is "$rc" 0 "$drv: attached to a stopped process, profil exits 0" || diag "$err"
    is "$(status "$P" State | cut -c1)$(status "$P" TracerPid)" T0 \
        "$drv: the stopped process is still stopped, and not traced"
done
kill -CONT "$P"
sleep 0.2
unharmed stopped "after SIGCONT"
kill "$P"
wait "$P" 2>/dev/null

# ---------------------------------------------------------------------------
# --duration with a program profil starts: stopped as --until-settled stops it.
run "$PROFIL" --no-tui --driver ptrace --duration 1 -b 1 -t 1000 -o "$T/launched.PRF" \
    "$PROGS/attachee" -- </dev/null
is "$rc" 143 "--duration on a started program: it is stopped by SIGTERM (profil exits 143)"
like "$err" '^profil: --duration 1 s reached: stopping the program' \
    "--duration on a started program: profil says it stops it"
has "$out" "Program aborted (SIGTERM" "--duration on a started program: the end says SIGTERM"
ok "--duration on a started program: the session is saved" test -s "$T/launched.PRF"
near "$(json "$T/launched.PRF" .meta.duration_s)" 1 0.5 \
    "--duration on a started program: it lasted about 1 s"

# ---------------------------------------------------------------------------
# The kernel's refusals: one line naming the cause, exit 1, the target unharmed.
start refuse
STRACE=""
{ # strace: ./setup installs it; missing, these checks fail
    strace -o /dev/null -p "$P" 2>/dev/null &
    STRACE=$!
    _i=0
    while [ "$_i" -lt 50 ] && [ "$(status "$P" TracerPid)" = 0 ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    run "$PROFIL" --no-tui --driver ptrace -b 1 -t 1000 -p "$P" -o "$T/traced.PRF" </dev/null
    is "$rc" 1 "another tracer: profil exits 1"
    like "$err" "^profil: ptrace: process $P is already traced by process $STRACE \\(strace\\)" \
        "another tracer: the message names it"
    is "$(lines "$err")" 1 "another tracer: one line"
    ok "another tracer: no session file" test ! -e "$T/traced.PRF"
    kill "$STRACE"
    wait "$STRACE" 2>/dev/null
    STRACE=""
    sleep 0.3
    unharmed refuse "another tracer, once it let go"
}

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
    run setpriv --reuid=65534 --regid=65534 --clear-groups "$PROFIL" --no-tui -b 1 -t 1000 \
        -p "$P" -o /dev/null/x.PRF </dev/null
    is "$rc" 1 "another user's process: profil exits 1"
    like "$err" "^profil: -p $P: not permitted to read its program .*belongs to uid 0" \
        "another user's process: the message says whose it is"
    is "$(lines "$err")" 1 "another user's process: one line"
else
    skip -n 3 "another user's process" needs-root "needs root and setpriv to run profil as another user"
fi

# Yama: scope 1 or 2 refuses a profil without CAP_SYS_PTRACE.  Scope 3 is
# never set here: the kernel will not lower it again before a reboot.
if [ ! -e /proc/sys/kernel/yama/ptrace_scope ]; then
    skip -n 3 "kernel.yama.ptrace_scope refusal" no-yama "this kernel has no Yama (no /proc/sys/kernel/yama/ptrace_scope)"
elif [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
    SCOPE_OLD=$(cat /proc/sys/kernel/yama/ptrace_scope)
    if [ "$SCOPE_OLD" -ge 3 ]; then
        SCOPE_OLD=""
        skip -n 3 "kernel.yama.ptrace_scope refusal" yama-scope-3 "ptrace_scope is 3 already: refused below"
    else
        echo 2 >/proc/sys/kernel/yama/ptrace_scope
        run setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace "$PROFIL" --no-tui \
            --driver ptrace -b 1 -t 1000 -p "$P" -o "$T/yama.PRF" </dev/null
        echo "$SCOPE_OLD" >/proc/sys/kernel/yama/ptrace_scope
        SCOPE_OLD=""
        is "$rc" 1 "ptrace_scope 2 without CAP_SYS_PTRACE: profil exits 1"
        like "$err" "kernel.yama.ptrace_scope is 2.*CAP_SYS_PTRACE" \
            "ptrace_scope 2: the message names the setting and the capability"
        is "$(lines "$err")" 1 "ptrace_scope 2: one line"
    fi
elif [ "$(cat /proc/sys/kernel/yama/ptrace_scope)" -ge 1 ]; then
    run "$PROFIL" --no-tui --driver ptrace -b 1 -t 1000 -p "$P" -o "$T/yama.PRF" </dev/null
    is "$rc" 1 "ptrace_scope refuses a non-descendant: profil exits 1"
    like "$err" "kernel.yama.ptrace_scope is [123]" "ptrace_scope: the message names the setting"
    is "$(lines "$err")" 1 "ptrace_scope: one line"
else
    skip -n 3 "kernel.yama.ptrace_scope refusal" yama-scope-0 "ptrace_scope is 0 and profil is not root: nothing refuses"
fi
unharmed refuse "after the refusals"
kill "$P"
wait "$P" 2>/dev/null

# ---------------------------------------------------------------------------
# The live screen: attach, see the ranking, q; Ctrl-C on a --no-tui run.
use_tmux
trap cleanup EXIT
start screen
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
tm send-keys -t s "cd '$T'; $PROFIL --driver ptrace -b 1 -t 1000 -p $P -o screen.PRF; echo EXIT=\$?" Enter
ok "screen: it comes up attached" wait_for "pid $P attached" 10
ok "screen: the ranking shows the work" wait_for 'work_a +[0-9]+\.[0-9]+%' 10
like "$(screen | head -n 1)" "profil .*attachee" "screen: the title names the program"
tm send-keys -t s q
ok "screen: q leaves at once, detaching" wait_for '^EXIT=0' 10
like "$(screen)" '^Program still running \(profil detached from it\)' \
    "screen: the end says the process still runs"
ok "screen: the session is saved" test -s "$T/screen.PRF"
unharmed screen "screen: after q"

# Ctrl-C on the screen: the process has no terminal of profil's to send it
# to; the session ends as q ends it (it did nothing before, issue 24).
tm send-keys -t s "clear; $PROFIL --driver ptrace -b 1 -t 1000 -p $P -o screen-cc.PRF; echo EXIT=\$?" Enter
ok "screen, Ctrl-C: it comes up attached" wait_for "pid $P attached" 10
tm send-keys -t s C-c
ok "screen, Ctrl-C: profil leaves at once, detaching" wait_for '^EXIT=0' 10
like "$(screen)" '^Program still running \(profil detached from it\)' \
    "screen, Ctrl-C: the end says the process still runs"
ok "screen, Ctrl-C: the session is saved" test -s "$T/screen-cc.PRF"
unharmed screen "screen: after Ctrl-C"

tm send-keys -t s "clear; $PROFIL --no-tui --driver ptrace -b 1 -t 1000 -p $P -o cc.PRF; echo EXIT=\$?" Enter
ok "Ctrl-C: the run starts" wait_for "attached to process $P" 10
sleep 1
tm send-keys -t s C-c
ok "Ctrl-C on --no-tui: profil detaches and exits 0" wait_for '^EXIT=0' 10
has "$(tm capture-pane -p -S - -t s)" "SIGINT: detaching from process $P" \
    "Ctrl-C on --no-tui: profil says it detaches"
ok "Ctrl-C on --no-tui: the session is saved" test -s "$T/cc.PRF"
unharmed screen "Ctrl-C: after it"

# --duration on the screen, attached: when the time is up the process is let
# go of and runs on, and the screen stays, the session saved, until q, as at
# an end (the screen closed at once, issue 24).
for drv in ptrace perf; do
    if [ "$drv" = perf ] && [ -n "$REFUSED" ]; then
        skip -n 12 "screen, attached, perf, --duration: let go of, the screen stays" perf-refused "$REFUSED"
        continue
    fi
    n="screen, attached, $drv, --duration"
    tm send-keys -t s "clear; $PROFIL --driver $drv -b 1 -t 1000 --duration 1 -p $P -o dur-$drv.PRF; echo EXIT=\$?" Enter
    ok "$n: the screen stays, and says the process runs on" \
        wait_for "stopped by --duration: let go of process $P, which runs on; saved\. q to quit" 15
    ok "$n: the session is saved before q" test -s "$T/dur-$drv.PRF"
    unharmed screen "$n: before q"
    tm send-keys -t s q
    ok "$n: q leaves (exit 0)" wait_for '^EXIT=0' 10
    is "$(json "$T/dur-$drv.PRF" '"\(.attached) \(.exit.status)"')" "true running" \
        "$n: the file says attached, still running"
    near "$(json "$T/dur-$drv.PRF" .meta.duration_s)" 1 0.5 "$n: the session lasted about 1 s"
done

# --duration on the screen, a program profil started: it is stopped, and the
# screen stays, the session saved, until q, as at any end (it closed at
# once, issue 24).
tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 --duration 1 -o dur.PRF $PROGS/calls 100000; echo EXIT=\$?" Enter
ok "screen, --duration: the program is stopped and the screen stays" \
    wait_for 'stopped by --duration: saved\. q to quit' 15
ok "screen, --duration: the session is saved before q" test -s "$T/dur.PRF"
tm send-keys -t s q
ok "screen, --duration: q leaves (the program's status, SIGTERM)" wait_for '^EXIT=143' 10

done_testing
