#!/bin/sh
# control.sh - start and stop from inside (libprofilctl's profil_on,
# profil_off and profil_mark) and from outside (--control FIFO[,ACK],
# --start-paused), and the marks in the file, the report and the timeline.
. "$TESTLIB"

plan 94

W=$PROGS/ctlwork

# samples FILE FUNC: FUNC's own samples in FILE (0 when none).
samples() {
    json "$1" "[.functions[] | select(.name == \"$2\") | .samples] | add // 0"
}

# wait_fifo NAME...: until each NAME is a FIFO (10 s at most).
wait_fifo() {
    for _f in "$@"; do
        _n=100
        while [ ! -p "$_f" ] && [ "$_n" -gt 0 ]; do
            sleep 0.1
            _n=$((_n - 1))
        done
        [ -p "$_f" ] || return 1
    done
}

# ctl FIFO ACK COMMAND: write COMMAND to FIFO, then wait (10 s at most) for
# profil's ack: the command has been done when it returns.
ctl() {
    timeout 10 sh -c 'printf "%s\n" "$2" >"$1"' _ "$1" "$3" &&
        timeout 10 head -n 1 "$2" >/dev/null
}

# kid PID: the ctlwork profil PID runs, once it runs (10 s at most).
kid() {
    for _ in $(seq 1 100); do
        _k=$(pgrep -P "$1" -x ctlwork | head -n 1)
        [ -n "$_k" ] && echo "$_k" && return 0
        sleep 0.1
    done
    return 1
}
# cpu_s PID: the CPU seconds PID has used (utime + stime, /proc/PID/stat).
cpu_s() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null
}
# ran PID SECONDS: wait (20 s at most) until PID has used SECONDS more of
# CPU time: the program has run that long in the phase it is in, whatever
# the machine's load.  "yes" or "no" on stdout.
ran() {
    _r0=$(cpu_s "$1")
    _n=400
    while [ -n "$_r0" ] && [ "$_n" -gt 0 ]; do
        _r=$(cpu_s "$1")
        [ -n "$_r" ] || break
        [ "$(calc "$_r - $_r0 >= $2")" = 1 ] && echo yes && return 0
        sleep 0.05
        _n=$((_n - 1))
    done
    echo no
    return 1
}

# finish PID: wait for the background profil PID; $rc its status.
finish() {
    wait "$1"
    rc=$?
}

# ---------------------------------------------------------------------------
# In the program: profil_off() around excluded_work leaves it out, with
# both drivers; marks "start" and "after" in order.
for drv in perf ptrace; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 7 "lib/perf: the program's profil_off() leaves excluded_work out" perf-refused "$(perf_refused)"
        continue
    fi
    run "$PROFIL" --no-tui --driver "$drv" -b 1 -t 1000 -o "lib-$drv.PRF" "$W" lib </dev/null
    is "$rc" 0 "lib/$drv: the program runs to its end under profil"
    like "$out" '^ctlwork: included 0.5 s, excluded 0.5 s$' "lib/$drv: its output is its own"
    inc=$(samples "lib-$drv.PRF" included_work)
    exc=$(samples "lib-$drv.PRF" excluded_work)
    cmp_ok "$inc" ">" 150 "lib/$drv: included_work has samples ($inc of ~500)"
    cmp_ok "$exc" "<=" 2 "lib/$drv: excluded_work, run between profil_off() and profil_on(), has (almost) none ($exc)"
    io=$(json "lib-$drv.PRF" .counters.io)
    cmp_ok "$io" "<=" 20 "lib/$drv: waiting for profil's answers is not the pause's I/O ($io ticks)"
    is "$(json "lib-$drv.PRF" '[.marks[].text] | join(",")')" "start,after" \
        "lib/$drv: profil_mark's marks are in the file, in order"
    is "$(json "lib-$drv.PRF" '.marks[0].t_s < 0.2 and .marks[1].t_s - .marks[0].t_s >= 0.7')" true \
        "lib/$drv: at their times (the second after 0.25 + 0.5 s of work)"
done
lib=lib-ptrace.PRF

# Each call waits for profil's answer, blocked; that wait is profil's, not
# the program's I/O (clockdrv_hush).  300 calls a millisecond apart: before,
# 23-26 blocked ticks with perf, 13-21 with ptrace (an answer takes
# 0.1-0.3 ms here); now perf none, ptrace 0-13: a ptrace tick that comes in
# the first microseconds of the wait, before profil has read the request,
# still counts it (docs/control.md), so only perf's is checked.  The sleep
# that follows the last call is I/O with both: a hush ends with its wait.
# (The kernel's time in the calls is CPU time: I/O in PROFIL's counters,
# not blocked ticks.)
for drv in perf ptrace; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 4 "pings/perf: the wait for profil's answers is not I/O" perf-refused "$(perf_refused)"
        continue
    fi
    run "$PROFIL" --no-tui --driver "$drv" -b 1 -t 1000 -o "pings-$drv.PRF" "$W" pings 300 </dev/null
    is "$rc" 0 "pings/$drv: the program runs to its end"
    like "$out" '^ctlwork: 300 pings$' "pings/$drv: and says so"
    blocked=$(json "pings-$drv.PRF" '[.threads[].blocked] | add')
    nap=$(json "pings-$drv.PRF" '[.functions[] | select(.name == "nap") | .total] | add // 0')
    cmp_ok "$nap" ">=" 150 "pings/$drv: the 0.2 s asleep after the last answer is I/O ($nap ticks)"
    if [ "$drv" = perf ]; then
        cmp_ok "$((blocked - nap))" "<=" 2 \
            "pings/perf: 300 waits for profil's answer are not I/O ($((blocked - nap)) blocked ticks)"
    fi
done

# Not under profil: the calls do nothing, and the program runs as it would.
run "$W" lib </dev/null
is "$rc" 0 "no profil: the program runs normally (exit 0)"
is "$out" "ctlwork: included 0.5 s, excluded 0.5 s" "no profil: with the same output"
PROFIL_CONTROL=@profil-gone-long-ago run "$W" lib </dev/null
is "$rc:$out" "0:ctlwork: included 0.5 s, excluded 0.5 s" \
    "a PROFIL_CONTROL nobody listens on: the program runs normally too"

# The report and the JSON report show the marks with their times, in order.
run "$PROFIL" --report "$lib" </dev/null
like "$out" '^   Marks: 00:00\.[0-9]{3} start$' "report: the first mark with its time"
like "$out" '^          00:00\.[0-9]{3} after$' "report: the second under it"
is "$(json "$lib" '.marks | length == 2 and (map(.t_s) | . == sort) and all(.[]; (.t_s | type) == "number")')" \
    true "report --json: marks: [{t_s, text}], in order of time"

# ---------------------------------------------------------------------------
# --start-paused, and nothing starts the clock: no samples of the work.
run "$PROFIL" --no-tui --start-paused -b 1 -t 1000 -o paused.PRF "$W" spin 0.5 </dev/null
is "$rc" 0 "start-paused: the program runs to its end"
is "$(samples paused.PRF phase1_work)" 0 "start-paused: its work has no samples"
cmp_ok "$(json paused.PRF .counters.total)" "<=" 2 "start-paused: nor has anything else (a tick of the exec at most)"

# --start-paused, then enable on the FIFO: samples only after it.  profil
# makes both FIFOs, and removes them at the end.
"$PROFIL" --no-tui --start-paused --control "$T/c1,$T/a1" -b 1 -t 1000 -o late.PRF \
    "$W" wait "$T/go1" >late.out 2>late.err </dev/null &
pid=$!
ok "start-paused: profil makes the FIFOs --control names" wait_fifo c1 a1
# phase1_work runs 0.4 s of CPU time, paused, before enable.
p1=$(ran "$(kid $pid)" 0.4)
# The clock can run from the moment enable is written (profil reads it
# after): w0 is taken once the write is done.
ok "start-paused: enable is acknowledged" sh -c 'printf "enable\n" >c1 && date +%s%N >w0 && timeout 10 head -n 1 a1 >/dev/null'
: >go1
w0=$(cat w0)
# phase1_work runs on after enable until it sees go1: a sample a ms of
# that window at most, from the written enable, through the ack, to go1.
win=$((($(date +%s%N) - w0) / 1000000 + 2))
finish $pid
is "$rc" 0 "start-paused + enable: the program runs to its end"
is "$p1 $(calc "$(samples late.PRF phase1_work) <= $win")" "yes 1" \
    "start-paused + enable: the 0.4 s of CPU time it ran before enable have no samples ($(samples late.PRF phase1_work): the $win ms from enable to go1)"
cmp_ok "$(samples late.PRF phase4_work)" ">" 60 \
    "start-paused + enable: the 0.2 s after it have ($(samples late.PRF phase4_work))"
ok "start-paused: the FIFOs profil made are gone" test ! -e c1 -a ! -e a1

# What the program maps while the clock is off is known when it comes on:
# libc, mapped by ld.so while paused, is DOS (with perf, whose clock events
# report no mapping while disabled, it was the high area's: 98 %).
for drv in perf ptrace; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 4 "start-paused, perf: libc is DOS" perf-refused "$(perf_refused)"
        continue
    fi
    "$PROFIL" --no-tui --driver $drv --start-paused --control "$T/c9,$T/a9" -b 1 -t 1000 \
        -o "libc-$drv.PRF" "$PROGS/libcbound" 20000 >/dev/null 2>libc.err </dev/null &
    pid=$!
    wait_fifo c9 a9
    ok "start-paused, $drv: enable is acknowledged" ctl c9 a9 enable
    finish $pid
    is "$rc" 0 "start-paused, $drv: libcbound runs to its end"
    diag "start-paused, $drv, libcbound: $(json "libc-$drv.PRF" -c .counters)"
    cmp_ok "$(json "libc-$drv.PRF" '100 * .counters.dos / ([.counters.total, 1] | max)')" ">=" 80 \
        "start-paused, $drv: libc, mapped while the clock was off, is DOS (80 % or more)"
    cmp_ok "$(json "libc-$drv.PRF" '.counters.high')" "<=" 2 \
        "start-paused, $drv: and not the high area's"
done

# ---------------------------------------------------------------------------
# disable, enable and mark on a FIFO made beforehand (kept at the end).
mkfifo c2 a2
"$PROFIL" --no-tui --control "$T/c2,$T/a2" -b 1 -t 1000 -o fifo.PRF \
    "$W" wait "$T/A2" "$T/B2" "$T/C2" >fifo.out 2>fifo.err </dev/null &
pid=$!
# Each phase runs a given CPU time of the program's (not a sleep of the
# test's): 0.3 s before disable, 0.4 s disabled, 0.3 s after enable.
k=$(kid $pid)
ran "$k" 0.3 >/dev/null
ok "fifo: disable is acknowledged" ctl c2 a2 disable
: >A2
p2=$(ran "$k" 0.4)
ok "fifo: enable is acknowledged" sh -c 'printf "enable\n" >c2 && date +%s%N >w0 && timeout 10 head -n 1 a2 >/dev/null'
: >B2
w0=$(cat w0)
win=$((($(date +%s%N) - w0) / 1000000 + 2)) # ms from enable to B2, as above
ran "$k" 0.3 >/dev/null
ok "fifo: mark warm is acknowledged" ctl c2 a2 "mark warm"
: >C2
finish $pid
is "$rc" 0 "fifo: the program runs to its end"
cmp_ok "$(samples fifo.PRF phase1_work)" ">" 30 "fifo: before disable, samples ($(samples fifo.PRF phase1_work))"
is "$p2 $(calc "$(samples fifo.PRF phase2_work) <= $win")" "yes 1" \
    "fifo: between disable and enable (0.4 s of its CPU time), none ($(samples fifo.PRF phase2_work): the $win ms from enable to B2)"
cmp_ok "$(samples fifo.PRF phase3_work)" ">" 30 "fifo: after enable, samples again ($(samples fifo.PRF phase3_work))"
is "$(json fifo.PRF '[.marks[] | select(.text == "warm" and .t_s > 0.8)] | length')" 1 \
    "fifo: mark warm is in the file, at its time"
ok "fifo: a FIFO profil did not make stays" test -p c2 -a -p a2

# A wait across a pause: sleep 2, the clock off for half a second in the
# middle.  Its blocked time is I/O before the pause and after it (the perf
# driver forgot that the thread was blocked at the pause, and the 1.5 s
# after it were lost, issue 24: 813 ticks of 2,450).
for drv in perf ptrace; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 2 "pause/$drv: a wait across the pause" perf-refused "$(perf_refused)"
        continue
    fi
    rm -f cp ap
    "$PROFIL" --no-tui --driver=$drv --control "$T/cp,$T/ap" -b 1 -t 1000 -o pause-$drv.PRF \
        sleep 2 >pause.out 2>pause.err </dev/null &
    pid=$!
    wait_fifo cp ap
    sleep 1
    t0=$(date +%s%N)
    ctl cp ap disable
    sleep 0.5
    ctl cp ap enable
    off=$((($(date +%s%N) - t0) / 1000000)) # ms, at most: the acks are inside
    finish $pid
    is "$rc" 0 "pause/$drv: the program runs to its end"
    io=$(json pause-$drv.PRF .counters.io)
    near "$io" "$((2000 - off))" 250 "pause/$drv: its wait is I/O but for the ${off} ms paused ($io ticks)"
done

# clear: the end-of-run report counts from the clear, the file the whole
# run.  phase1_work ends 0.2 s before the clear.
"$PROFIL" --no-tui --control "$T/c3,$T/a3" -b 1 -t 1000 -o clear.PRF \
    "$W" wait "$T/A3" "$T/B3" >clear.out 2>clear.err </dev/null &
pid=$!
wait_fifo c3 a3
k=$(kid $pid)
ran "$k" 0.3 >/dev/null
: >A3
ran "$k" 0.1 >/dev/null # phase1_work, which sees A3 within a ms, is over
ok "clear: clear is acknowledged" ctl c3 a3 clear
: >B3
finish $pid
is "$rc" 0 "clear: the program runs to its end"
unlike "$(cat clear.out)" ' phase1_work ' "clear: the report at the end counts from the clear"
like "$(cat clear.out)" ' phase4_work ' "clear: and what came after it"
cmp_ok "$(samples clear.PRF phase1_work)" ">" 30 "clear: the file keeps the whole run"
run "$PROFIL" --report clear.PRF </dev/null
like "$out" '^ Cleared: at ' "clear: and says where it was cleared"

# snapshot: a readable session while the program still runs; a bad command
# is said and ignored.
"$PROFIL" --no-tui --control "$T/c4,$T/a4" -b 1 -t 1000 -o snap.PRF \
    "$W" wait "$T/A4" >snap.out 2>snap.err </dev/null &
pid=$!
wait_fifo c4 a4
ran "$(kid $pid)" 0.3 >/dev/null
ok "snapshot: snapshot is acknowledged" ctl c4 a4 snapshot
ok "snapshot: the file is there while the program runs" test -f snap.PRF
ok "snapshot: the program still runs" kill -0 $pid
cmp_ok "$(samples snap.PRF phase1_work)" ">" 30 "snapshot: it is a readable session with the work so far"
is "$(json snap.PRF .meta.exit.status)" "null" "snapshot: which has not ended yet"
ok "bad command: acknowledged too" ctl c4 a4 "frobnicate now"
: >A4
finish $pid
is "$rc" 0 "bad command: profil goes on, the program runs to its end"
like "$(cat snap.err)" "^profil: control: unknown command 'frobnicate now' \(enable, disable, clear, snapshot, mark TEXT\)$" \
    "bad command: said in one line on stderr"
is "$(json snap.PRF .meta.exit.status)" "terminated" "snapshot: the file at the end is the whole run"

# A regular file is no FIFO: refused in one line, before anything runs.
echo data >regular
run "$PROFIL" --no-tui --control regular -b 1 -t 1000 -o reg.PRF "$W" spin 0.1 </dev/null
isnt "$rc" 0 "regular file: refused (exit $rc)"
is "$(lines "$err")" 1 "regular file: in one line"
like "$err" "^profil: --control: regular is not a FIFO \(a regular file\)" "regular file: saying why"
is "$out" "" "regular file: nothing ran"
is "$(cat regular)" data "regular file: left as it was"
ok "regular file: no session written" test ! -e reg.PRF

# ---------------------------------------------------------------------------
# The live screen: --start-paused says paused; a mark shows in the status
# line and in the timeline; enable starts the clock.
use_tmux
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' sh"
tm send-keys -t s "cd '$T'; $PROFIL --start-paused --control $T/c5 -b 1 -t 1000 -o tui.PRF $W wait $T/A5; echo EXIT=\$?" Enter
ok "screen: the status line says paused" wait_for ' paused *$' 10
wait_fifo c5
# say FIFO COMMAND: write COMMAND to FIFO, without an ack to wait for.
say() {
    timeout 10 sh -c 'printf "%s\n" "$2" >"$1"' _ "$1" "$2"
}
ok "screen: mark on the FIFO" say c5 "mark warm"
ok "screen: the status line says so" wait_for "control: mark 'warm' at [0-9.]+ s" 5
ok "screen: enable on the FIFO" say c5 enable
ok "screen: the clock runs" wait_for ' running *$' 5
k5=$(pgrep -xf "$W wait $T/A5" | head -n 1)
ran "$k5" 0.2 >/dev/null # 0.2 s of its CPU time with the clock on
ok "screen: p pauses it again" sh -c "tmux -L '$SOCK' send-keys -t s p"
ok "screen: paused" wait_for ' paused *$' 5
tm send-keys -t s p
ok "screen: p starts it" wait_for ' running *$' 5
ran "$k5" 0.1 >/dev/null
: >A5
ok "screen: the program ends" wait_for 'Program terminated normally *$' 10
tm send-keys -t s 3
ok "screen: the timeline shows the mark" wait_for '[|]warm' 5
tm send-keys -t s q
ok "screen: q leaves" wait_for '^EXIT=0' 5
cmp_ok "$(samples tui.PRF phase1_work)" ">" 30 "screen: the work after enable has samples"
is "$(json tui.PRF '[.marks[].text] | join(",")')" "warm" "screen: the mark is in the file"

# The replay shows it too.
tm send-keys -t s "clear; $PROFIL tui.PRF; echo EXIT=\$?" Enter
ok "replay: plays to its end" wait_for 'replay end' 10
tm send-keys -t s 3
ok "replay: the timeline shows the mark" wait_for '[|]warm' 5
tm send-keys -t s q
ok "replay: q leaves" wait_for '^EXIT=0' 5

done_testing
