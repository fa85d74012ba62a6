#!/bin/sh
# drivers.sh - the clock drivers: --driver ptrace gives the profiles perf
# gives (shares, I/O, DOS, high, threads, forks, static and stripped
# binaries), lets signals and job control reach the program, lets go of
# what outlives the program, and works for an unprivileged user, as does
# --driver auto.  It loads both CPUs on purpose: under make -j it runs alone
# (E2E_ALONE), after the unit tests.
E2E_ALONE=1
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

# The test programs are never built with sanitizers (see Makefile.am): a
# profiled program must behave as a user's would.
if command -v ldd >/dev/null 2>&1 && ldd "$PROGS/shares" 2>/dev/null | grep -q libasan; then
    echo "Bail out! the test programs are linked with ASan"
    exit 1
fi

plan 122

# profile NAME [PROFIL-OPTION...] PROG ARG|--: run PROG under the ptrace
# driver at -b 1 -t $TICK (1000 unless set), behind $PIN (a command such as
# taskset, or nothing), into $T/NAME.PRF, its JSON report into $J.
profile() {
    _name=$1
    shift
    # shellcheck disable=SC2086 # $PIN: a command prefix, or nothing
    run $PIN "$PROFIL" --no-tui --driver ptrace -b 1 -t "${TICK:-1000}" -o "$T/$_name.PRF" "$@" </dev/null
    "$PROFIL" --report --json "$T/$_name.PRF" >"$T/$_name.json" 2>/dev/null
    J=$T/$_name.json
}
# c NAME: counters.NAME; nothing (and jq's error on stderr) when the report
# has no such counter, so that no arithmetic of calc takes it for 0.
c() { jq -r ".counters.$1 // error(\"no counters.$1 in the report\")" "$J"; }
pct() { calc "100 * $(c "$1") / ($(c total) > 0 ? $(c total) : 1)"; }
# lost_pct: the lost ticks' share of the samples and the lost together.
lost_pct() { calc "100 * $(c lost) / ($(c total) + $(c lost) > 0 ? $(c total) + $(c lost) : 1)"; }
# cpu_of: the CPU time tests/progs/spinners says it and its children used.
cpu_of() { sed -n 's/^spinners: cpu \([0-9.]*\) s$/\1/p' "$T/.out"; }
fn() { jq -r --arg f "$1" ".functions[] | select(.name == \$f) | .$2" "$J"; }
# shares3 A B C: the three functions' shares of their sum, in percent.
shares3() {
    jq -r --arg a "$1" --arg b "$2" --arg c "$3" \
        '[.functions[] | {(.name): .samples}] | add
         | (.[$a] + .[$b] + .[$c]) as $s
         | "\(100 * .[$a] / $s) \(100 * .[$b] / $s) \(100 * .[$c] / $s)"' "$J"
}

# ---------------------------------------------------------------------------
# The command line knows the driver.
run "$PROFIL" --help
like "$out" '--driver=DRIVER .*ptrace|^ +or ptrace' "--help names the ptrace driver"
run "$PROFIL" --driver bogus "$PROGS/shares"
is "$rc" 2 "--driver bogus is a usage error"
has "$err" "auto, perf, ptrace" "--driver bogus: the message lists the drivers"

# ---------------------------------------------------------------------------
# 50/30/20: the split of a CPU-bound program.  (~2 s)
# The split is checked at 250 us: at 1000 us the ticks beat against shares'
# 0.38 ms slices and work_a's share moves by 1.2-1.5 points (sd) from run to
# run, with the old driver as with this one, so +/- 3 failed one run in 20;
# at 250 us it moves by 0.3.  The 1 kHz runs below check what is lost.
TICK=250
profile shares "$PROGS/shares" --
is "$rc" 0 "shares: profil exits 0"
has "$err" "with the ptrace driver" "shares: profil says it samples with ptrace"
is "$(jq -r .driver "$J")" ptrace "shares: driver ptrace"
diag "shares: $(jq -c .counters "$J"), work_a/b/c samples: $(jq -r '[.functions[] | select(.name | test("^work_")) | .samples] | join(" ")' "$J")"
set -- $(shares3 work_a work_b work_c)
near "${1:-x}" 50 3 "shares: work_a has 50 % of the three (+/- 3)"
near "${2:-x}" 30 3 "shares: work_b has 30 % of the three (+/- 3)"
near "${3:-x}" 20 3 "shares: work_c has 20 % of the three (+/- 3)"
cmp_ok "$(c total)" ">=" 4000 "shares: at least 4000 samples in ~2 s at 250 us"
is "$(c total)" "$(($(c program) + $(c dos) + $(c io) + $(c high)))" \
    "shares: total == program + dos + io + high"
cmp_ok "$(c program)" ">=" "$(calc "0.95 * $(c total)")" "shares: program >= 95 % of total"
diag "shares: $(c total) samples, $(c lost) lost"
# Lost ticks are CPU time no sample stands for; waiting for a CPU is not lost.
# The old driver lost 0.1-15 % here, a third under the suite's own load.
cmp_ok "$(lost_pct)" "<" 5 "shares: under 5 % of the ticks lost"

# ---------------------------------------------------------------------------
# Beside two CPU-bound loads the program waits for a CPU a third of its time
# or more.  Those ticks are preempted: neither samples nor lost, so the
# samples still add up to the CPU time and the split stays.  Twice the
# default rounds: beside the loads, as an ordinary user, work_a's share
# spread with sd 1.1-1.5 points over 53 rounds (so +/- 3 failed about one
# run in twenty) and about 1.0 over 106.  (~9 s)
LOADS=""
# loads_start [taskset -c CPU]: two CPU-bound loads (on CPU, when given).
loads_start() {
    "$@" sh -c 'while :; do :; done' &
    LOADS="$LOADS $!"
    "$@" sh -c 'while :; do :; done' &
    LOADS="$LOADS $!"
}
loads_stop() {
    [ -n "$LOADS" ] && kill $LOADS 2>/dev/null
    LOADS=""
}
trap 'loads_stop; cd /; rm -rf "$T"' EXIT
loads_start
profile loaded "$PROGS/shares" 106
TICK=1000
is "$rc" 0 "loaded shares: profil exits 0"
diag "loaded shares: $(jq -c .counters "$J") in $(jq -r .meta.duration_s "$J") s"
set -- $(shares3 work_a work_b work_c)
near "${1:-x}" 50 3 "loaded shares: work_a has 50 % of the three (+/- 3)"
near "${2:-x}" 30 3 "loaded shares: work_b has 30 % of the three (+/- 3)"
near "${3:-x}" 20 3 "loaded shares: work_c has 20 % of the three (+/- 3)"
cmp_ok "$(lost_pct)" "<" 5 "loaded shares: under 5 % of the ticks lost"

# The spinner and both loads share CPU 0, so that it waits whatever the
# scheduler makes of the other CPU (unpinned, the suite's own tests and
# autogroups left it waiting under 12 % of its time in one run).
loads_stop
loads_start taskset -c 0
PIN="taskset -c 0"
profile loadedcpu --clock cpu "$PROGS/spinners" threads 1 1000
PIN=""
is "$rc" 0 "loaded spinner: profil exits 0"
cpu=$(cpu_of)
diag "loaded spinner: $(jq -c .counters "$J"), cpu ${cpu:-?} s in $(jq -r .meta.duration_s "$J") s"
cmp_ok "$(jq -r .meta.duration_s "$J")" ">" "$(calc "1.2 * ${cpu:-0}")" \
    "loaded spinner: the loads kept it waiting for a CPU (wall > 1.2 x CPU)"
near "$(c total)" "$(calc "${cpu:-0} * 1000")" "$(calc "${cpu:-0} * 50")" \
    "loaded spinner: samples x interval within 5 % of its CPU time (preempted ticks are not samples)"
# (A report without counters.preempted gives "missing": a failure.)
near "$(jq -r 'if (.counters.preempted | type) == "number" then .counters.total + .counters.preempted else "missing" end' "$J")" \
    "$(calc "1000 * $(jq -r .meta.duration_s "$J")")" "$(calc "100 * $(jq -r .meta.duration_s "$J")")" \
    "loaded spinner: samples + preempted ticks make up its wall time (+/- 10 %)"
loads_stop

# ---------------------------------------------------------------------------
# Many processes, many threads, more than the CPUs: a sample stands for CPU
# time, so samples x interval add up to what getrusage says, with either
# driver.  (~12 s)
for drv in ptrace perf; do
    for w in "procs 200 35" "threads 64 40"; do
        name=$drv-$(echo "$w" | cut -d' ' -f1)
        if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
            skip -n 4 "$name: samples add up to the CPU time" perf-refused "$(perf_refused)"
            continue
        fi
        run "$PROFIL" --no-tui --driver $drv --clock cpu -b 1 -t 1000 -o "$T/$name.PRF" \
            "$PROGS/spinners" $w </dev/null
        J=$T/$name.json
        "$PROFIL" --report --json "$T/$name.PRF" >"$J" 2>/dev/null
        cpu=$(cpu_of)
        # Where the kernel lets this user's perf events see user mode only
        # (perf_event_paranoid 2), profil says so, and its samples stand for
        # the CPU time in user mode.
        if printf '%s\n' "$err" | grep -q '^profil: kernel samples excluded'; then
            cpu=$(sed -n 's/^spinners: user cpu \([0-9.]*\) s$/\1/p' "$T/.out")
            diag "$name: kernel samples excluded: compared with the user-mode CPU time"
        fi
        diag "$name ($w): $(jq -c .counters "$J"), cpu ${cpu:-?} s in $(jq -r .meta.duration_s "$J") s"
        is "$rc" 0 "$name: profil exits 0" || diag "$err"
        # perf's cpu-clock drops about 1.5 ms per process (0.949-0.96 of the
        # CPU time with 200 processes, 0.979 with 20 of 350 ms): 10 % there.
        tol=5
        [ "$drv" = perf ] && tol=10
        near "$(c total)" "$(calc "${cpu:-0} * 1000")" "$(calc "${cpu:-0} * 10 * $tol")" \
            "$name: samples x interval within $tol % of getrusage's CPU time"
        cmp_ok "$(lost_pct)" "<" 5 "$name: under 5 % of the ticks lost"
        # Starved by the program's threads, profil once unwound up to 17 %
        # of these samples too late and kept them without their stacks.
        cmp_ok "$(jq -r '.stacks.samples // 0' "$J")" ">=" "$(calc "0.95 * $(c total)")" \
            "$name: 95 % of the samples or more keep their call stack"
    done
done

# Two files per thread: with 64 file descriptors, 100 threads are more than
# profil may keep open.  The CPU time of those it cannot watch is lost ticks,
# said so, never dropped, and profil still writes its file.  (~2 s)
run sh -c 'ulimit -n 64 && exec "$@"' sh "$PROFIL" --no-tui --driver ptrace --clock cpu -b 1 -t 1000 \
    -o "$T/fds.PRF" "$PROGS/spinners" threads 100 20 </dev/null
J=$T/fds.json
"$PROFIL" --report --json "$T/fds.PRF" >"$J" 2>/dev/null
cpu=$(cpu_of)
diag "fds (ulimit -n 64, 100 threads): $(jq -c .counters "$J"), cpu ${cpu:-?} s"
is "$rc" 0 "fds: profil exits 0"
has "$err" "file descriptors" "fds: profil says it ran out of file descriptors"
near "$(calc "$(c total) + $(c lost)")" "$(calc "${cpu:-0} * 1000")" "$(calc "${cpu:-0} * 50")" \
    "fds: samples + lost ticks within 5 % of getrusage's CPU time"
# ---------------------------------------------------------------------------
# A program that calls the kernel every few microseconds (chatty: 10 us of
# work, then a system call): an unbiased sampler finds about the kernel's
# share of its CPU time outside its own code (at the call: [vdso], libc, the
# kernel).  Where a driver's interrupt reaches a running thread late, at its
# next system call (ptrace on some virtual machines: 55 us here), it finds
# far more there, and profil must say so.  Far more, for the test: 15 points
# over the kernel's share and 2.5 times it (profil's own bound is 10 points
# and twice: room for the two measures to differ).  (~4 s)
for drv in ptrace perf; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 3 "chatty, perf: the samples at the system calls" perf-refused "$(perf_refused)"
        continue
    fi
    run "$PROFIL" --no-tui --driver "$drv" --clock cpu -b 1 -t 1000 -o "$T/chatty-$drv.PRF" "$PROGS/chatty" 1.5 </dev/null
    is "$rc" 0 "chatty, $drv: profil exits 0" || diag "$err"
    kernel=$(printf '%s\n' "$out" | sed -n 's/^chatty: .*kernel \([0-9.]*\)%$/\1/p')
    outside=$("$PROFIL" --report --json "$T/chatty-$drv.PRF" | jq -r '100 - 100 * .counters.program / ([.counters.total, 1] | max)')
    said=no
    case $err in *"on its way back from a system call"*) said=yes ;; esac
    diag "chatty, $drv: kernel ${kernel:-?} % of the CPU time, ${outside:-?} % of the samples outside work(); bias said: $said"
    cmp_ok "${outside:-x}" ">" 0 "chatty, $drv: some samples at the system calls"
    gross=x
    [ -n "$kernel" ] && gross=$(calc "${outside:-100} >= $kernel + 15 && ${outside:-100} >= 2.5 * $kernel")
    if [ "$gross" = 0 ] || { [ "$gross" = 1 ] && [ "$said" = yes ]; }; then
        _tap 0 "chatty, $drv: the samples at the system calls are the kernel's share, or profil says they are not"
    else
        _tap 1 "chatty, $drv: the samples at the system calls are the kernel's share, or profil says they are not"
        diag "gross: $gross; $err"
    fi
done

# ---------------------------------------------------------------------------
# Pausing the clock (p on the live screen): what the program runs meanwhile
# is in no sample, with either driver.  The test reads the program's CPU time
# at the pause and at the resume from its schedstat.  (~8 s)
use_tmux
trap 'loads_stop; tm kill-server 2>/dev/null; cd /; rm -rf "$T"' EXIT
# task_cpu PID: the CPU seconds of all PID's threads, by their schedstat.
task_cpu() {
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.6f\n", s / 1e9 }'
}
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
cp "$PROGS/spinners" "$T/pausespin"
for drv in ptrace perf; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 3 "pause, perf: the paused CPU time is in no sample" perf-refused "$(perf_refused)"
        continue
    fi
    tm send-keys -t s "clear; $PROFIL --driver $drv --clock cpu -b 1 -t 1000 -o $T/pause-$drv.PRF \
-a 'threads 1 4000 >$T/pause-$drv.out' $T/pausespin; echo EXIT=\$?" Enter
    wait_for ' running *$' 10
    sleep 0.4
    kid=$(pgrep -f "^$T/pausespin" | head -n 1)
    # The pause and the resume happen somewhere between the key and the
    # screen that shows them: the program's CPU time is read on both sides
    # of each, so the paused time lies between the inner and the outer pair
    # (under load the screen may show a change 0.1-0.3 s after the key).
    # (Up to 10 s for the screen to show each, and 4 s of the program's CPU
    # time: under the sanitizers, as a user, beside another test, the resume
    # once showed after the program's end, and the outer reading was lost.)
    a1=$(task_cpu "$kid")
    tm send-keys -t s p
    wait_for 'paused *$' 10
    a2=$(task_cpu "$kid")
    sleep 1.5
    b1=$(task_cpu "$kid")
    tm send-keys -t s p
    wait_for 'running *$' 10
    b2=$(task_cpu "$kid")
    wait_for 'Program terminated normally *$' 30
    tm send-keys -t s q
    wait_for '^EXIT=' 5
    J=$T/pause-$drv.json
    "$PROFIL" --report --json "$T/pause-$drv.PRF" >"$J" 2>/dev/null
    cpu=$(sed -n 's/^spinners: cpu \([0-9.]*\) s$/\1/p' "$T/pause-$drv.out")
    paused=$(calc "${b1:-0} - ${a2:-0}")
    paused_most=$(calc "${b2:-0} - ${a1:-0}")
    diag "pause, $drv: $(jq -c .counters "$J"), cpu ${cpu:-?} s, ${paused}-${paused_most} s of it paused"
    cmp_ok "$paused" ">" 0.5 "pause, $drv: the program ran while the clock was paused"
    # Within 5 % (+ 0.1 s) of the CPU time not paused, which lies between
    # the CPU time less the most it was paused and less the least.
    mid=x half=x
    if [ -n "$cpu" ]; then
        lo=$(calc "($cpu - $paused_most) * 1000 - ($cpu * 50 + 100)")
        hi=$(calc "($cpu - $paused) * 1000 + ($cpu * 50 + 100)")
        mid=$(calc "($lo + $hi) / 2") half=$(calc "($hi - $lo) / 2")
    fi
    near "$(c total)" "$mid" "$half" \
        "pause, $drv: samples x interval within 5 % (+ 0.1 s) of the CPU time not paused"
    cmp_ok "$(c lost)" "<" 50 "pause, $drv: the paused time is not lost ticks either"
done
tm kill-server 2>/dev/null

# ---------------------------------------------------------------------------
# An unprivileged user: auto picks whatever the kernel allows; ptrace works.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    chmod 755 "$T"
    mkdir "$T/user" && chmod 777 "$T/user"
    cp "$PROFIL" "$T/user/profil"
    cp "$PROGS/shares" "$T/user/shares"
    for drv in auto ptrace; do
        (cd "$T/user" && setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups \
            ./profil --no-tui --driver $drv -b 1 -t 250 -o "$T/user/$drv.PRF" ./shares --) \
            </dev/null >"$T/.out" 2>"$T/.err"
        rc=$?
        is "$rc" 0 "nobody, --driver $drv: profil exits 0"
        J=$T/user/$drv.json
        "$PROFIL" --report --json "$T/user/$drv.PRF" >"$J" 2>/dev/null
        is "$(stat -c %U "$T/user/$drv.PRF" 2>/dev/null)" nobody "nobody, --driver $drv: the file is nobody's"
        set -- $(shares3 work_a work_b work_c)
        near "${1:-x}" 50 3 "nobody, --driver $drv: work_a has 50 % of the three (+/- 3)"
        diag "nobody, --driver $drv: $(grep 'sampling every' "$T/.err")"
    done
    is "$(jq -r .driver "$T/user/ptrace.json")" ptrace "nobody, --driver ptrace: driver ptrace"
else
    skip -n 7 "nobody: profil exits 0 and profiles" needs-root "needs root, setpriv and a user nobody"
fi

# kernel.perf_event_paranoid 3 (Debian's default): a user without
# CAP_PERFMON may not use perf.  --driver perf says which setting, in one
# line; auto goes on with ptrace; -p with perf says it too.
PARANOID=/proc/sys/kernel/perf_event_paranoid
if [ -d "$T/user" ] && [ -w "$PARANOID" ] && [ -z "$(perf_refused)" ]; then
    old_paranoid=$(cat "$PARANOID")
    echo 3 >"$PARANOID"
    as_nobody() { (cd "$T/user" && setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups "$@") \
        </dev/null >"$T/.out" 2>"$T/.err"; rc=$?; }
    as_nobody ./profil --no-tui --driver perf -b 1 -t 1000 -o "$T/user/p3.PRF" ./shares 5
    p3_rc=$rc p3_err=$(cat "$T/.err")
    as_nobody ./profil --no-tui --driver auto -b 1 -t 1000 -o "$T/user/a3.PRF" ./shares 5
    a3_rc=$rc a3_err=$(cat "$T/.err")
    (cd "$T/user" && exec setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups ./shares 400) \
        >/dev/null 2>&1 &
    NP=$!
    sleep 0.2
    as_nobody ./profil --no-tui --driver perf -b 1 -t 1000 -p "$NP" -o "$T/user/p3a.PRF"
    p3a_rc=$rc p3a_err=$(cat "$T/.err")
    kill "$NP" 2>/dev/null
    wait "$NP" 2>/dev/null
    echo "$old_paranoid" >"$PARANOID"
    if [ "$p3_rc" = 0 ] && printf '%s\n' "$p3_err" | grep -q 'with the perf driver'; then
        # Debian's kernels refuse perf to users at 3; mainline reads 3 as 2.
        skip -n 7 "paranoid 3: perf refused in one line" paranoid3-allows-perf "this kernel lets users use perf at perf_event_paranoid 3 (a mainline kernel: only Debian's refuse at 3)"
    else
        is "$p3_rc" 1 "paranoid 3, nobody, --driver perf: profil exits 1"
        like "$p3_err" 'perf_event_paranoid is 3; it must be 2 or less, or profil needs CAP_PERFMON' \
            "paranoid 3, nobody, --driver perf: the message names the setting and the capability"
        is "$(printf '%s\n' "$p3_err" | wc -l)" 1 "paranoid 3, nobody, --driver perf: in one line"
        is "$a3_rc" 0 "paranoid 3, nobody, --driver auto: profil exits 0"
        like "$a3_err" 'sampling every 1000 us with the ptrace driver' "paranoid 3, nobody, --driver auto: ptrace samples"
        is "$p3a_rc" 1 "paranoid 3, nobody, -p with perf: profil exits 1"
        like "$p3a_err" 'perf_event_paranoid is 3; it must be 2 or less, or profil needs CAP_PERFMON' \
            "paranoid 3, nobody, -p with perf: the message names the setting and the capability"
    fi
    diag "paranoid 3: $p3_err | $p3a_err"
else
    skip -n 7 "paranoid 3: perf refused in one line" needs-root "needs root, setpriv, a user nobody and perf"
fi

# SCHED_FIFO: profil takes it while the program runs, with either driver, where it may, and
# gives it back once the program has ended, while the screen stays; not at
# all for an interval under 200 us.  Where root may raise RLIMIT_RTPRIO, the
# run is user nobody's, who may not clear SCHED_FLAG_RESET_ON_FORK again.
# policy_of PID: its scheduling policy, as chrt -p says it.
policy_of() { chrt -p "$1" 2>/dev/null | sed -n 's/.*scheduling policy: //p'; }
if { [ "$(id -u)" -eq 0 ] || [ "$(ulimit -r 2>/dev/null || echo 0)" != 0 ]; } &&
    command -v chrt >/dev/null 2>&1; then
    who=$(id -un)
    wrap=""
    if [ -d "$T/user" ] && prlimit --rtprio=1:1 true 2>/dev/null; then
        who=nobody
        wrap="prlimit --rtprio=1:1 setpriv --reuid=nobody --regid=$(id -gn nobody) --clear-groups"
        mkdir -p "$T/fifo" && chmod 777 "$T/fifo"
    fi
    cp "$PROGS/spinners" "$T/fifospin"
    tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
    for drv in ptrace perf; do
        if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
            skip -n 4 "fifo, perf: given back once the program has ended" perf-refused "$(perf_refused)"
            continue
        fi
        for iv in 1000 100; do
            tm send-keys -t s "clear; cd $T; $wrap $PROFIL --driver $drv -b 1 -t $iv \
-o $T/fifo$iv.PRF $T/fifospin threads 1 1500; echo EXIT=\$?" Enter
            wait_for ' running *$' 10
            sleep 0.2
            me=$(pgrep -f "^$PROFIL --driver $drv -b 1 -t $iv -o $T/" | head -n 1)
            running=$(policy_of "$me")
            wait_for 'Program terminated normally *$' 30
            ended=$(policy_of "$me")
            tm send-keys -t s q
            wait_for '^EXIT=' 5
            if [ "$iv" = 1000 ]; then
                is "$running" "SCHED_FIFO|SCHED_RESET_ON_FORK" "fifo, $drv, $who, $iv us: FIFO while the program runs"
            else
                is "$running" SCHED_OTHER "fifo, $drv, $who, $iv us: no FIFO under 200 us"
            fi
            like "$ended" '^SCHED_OTHER' "fifo, $drv, $who, $iv us: normal policy once the program has ended"
        done
    done
    tm kill-server 2>/dev/null
else
    skip -n 8 "fifo: given back once the program has ended" needs-root "needs root or RLIMIT_RTPRIO, and chrt"
fi

# ---------------------------------------------------------------------------
# Asleep: I/O with the wall clock, nearly nothing with the cpu clock.  (~1 s)
profile sleepw "$PROGS/sleeper" --
is "$rc" 0 "sleeper (wall): profil exits 0"
cmp_ok "$(pct io)" ">=" 75 "sleeper (wall): I/O >= 75 % of the samples"
is "$(jq -r '.functions[0].name' "$J")" spin "sleeper (wall): spin is the top function"
profile sleepc --clock cpu "$PROGS/sleeper" --
is "$rc" 0 "sleeper (cpu): profil exits 0"
is "$(jq -r .clock "$J")" cpu "sleeper (cpu): clock cpu"
cmp_ok "$(pct io)" "<=" 10 "sleeper (cpu): I/O <= 10 % of the samples"
cmp_ok "$(fn spin samples)" ">" 0 "sleeper (cpu): spin is sampled"

# A main thread that ends before the others (pthread_exit) stays a zombie
# until they end: it is neither blocked nor sampled.  (~1 s)
profile leader "$PROGS/spinners" leader 1 1000
is "$rc" 0 "leader exits first: profil exits 0"
diag "leader exits first: $(jq -c .counters "$J")"
cmp_ok "$(pct io)" "<=" 10 "leader exits first (wall): I/O <= 10 % of the samples"

# A thread other than the main one execs: it takes the main thread's id, and
# its readings go on there, not the main thread's.  (~1 s)
profile execthread --clock cpu "$PROGS/spinners" exec 1 400
cpu=$(cpu_of)
is "$rc" 0 "exec from a thread: profil exits 0"
diag "exec from a thread: $(jq -c .counters "$J"), cpu ${cpu:-?} s"
near "$(calc "$(c total) + $(c lost)")" "$(calc "${cpu:-0} * 1000")" "$(calc "${cpu:-0} * 50 + 10")" \
    "exec from a thread: samples + lost within 5 % (+ 10) of getrusage's CPU time"

# ---------------------------------------------------------------------------
# Threads, a fork, a crash.
profile threads "$PROGS/threads" 500000000
is "$rc" 0 "threads: profil exits 0"
set -- $(shares3 thread_a thread_b thread_c)
near "${1:-x}" 33.3 6 "threads: thread_a has a third of the three (+/- 6)"
near "${2:-x}" 33.3 6 "threads: thread_b has a third of the three (+/- 6)"
near "${3:-x}" 33.3 6 "threads: thread_c has a third of the three (+/- 6)"
cmp_ok "$(jq -r .meta.threads "$J")" ">=" 4 "threads: meta.threads counts main and the three"

profile forker "$PROGS/forker" --
is "$rc" 0 "forker: profil exits 0"
cmp_ok "$(fn parent_work samples)" ">" 0 "forker: parent_work is listed"
is "$(jq -r '"\(.exit.status) \(.exit.code)"' "$J")" "terminated 0" "forker: exit terminated, code 0"
cmp_ok "$(jq -r '[.functions[] | select(.module == "dash" or .module == "bash" or .module == "sh")]
                 | length' "$J")" ">" 0 "forker: the child's shell is sampled after its exec"

profile crash "$PROGS/crash" --
has "$out" "Program aborted (SIGSEGV: Segmentation fault)" "crash: Program aborted (SIGSEGV)"
is "$rc" $((128 + 11)) "crash: profil exits 128+SIGSEGV"
ok "crash: the session file is written" test -s "$T/crash.PRF"
cmp_ok "$(fn doomed_work samples)" ">" 0 "crash: doomed_work is sampled"

# ---------------------------------------------------------------------------
# Binaries of every kind, libraries, anonymous code.  (0.5 s of CPU each: a
# sample stands for CPU time, so markbit's 100 samples need 0.25 s of it.)
for prog in sieve-static sieve-nopie sieve-stripped; do
    profile "$prog" "$PROGS/$prog" 2000
    is "$rc" 0 "$prog: profil exits 0"
    cmp_ok "$(pct program)" ">=" 90 "$prog: program >= 90 % of the samples"
done
like "$(jq -r '.functions[0].name' "$T/sieve-stripped.json")" '^sieve-stripped\+0x[0-9a-f]+$' \
    "sieve-stripped: routines are named sieve-stripped+0x..."
# (Which work routine leads depends on the CPU: see sieve.sh.)
like "$(jq -r '.functions[0].name' "$T/sieve-static.json")" '^(markbit|markall|testbit|findnext)$' \
    "sieve-static: one of sieve's own routines comes first, named"
cmp_ok "$(jq -r '[.functions[] | select(.name == "markbit") | .samples] | add // 0' "$T/sieve-nopie.json")" \
    ">" 100 "sieve-nopie: markbit is named and sampled at a fixed address"

profile libc "$PROGS/libcbound" 4300
is "$rc" 0 "libcbound: profil exits 0"
cmp_ok "$(pct dos)" ">=" 80 "libcbound: DOS >= 80 % of the samples"
like "$(jq -r '.functions[0].module' "$J")" '^libc\.so\.6$' \
    "libcbound: the top function is in libc.so.6"

profile anon "$PROGS/anon" 1200000000
is "$rc" 0 "anon: profil exits 0"
cmp_ok "$(pct high)" ">=" 70 "anon: high >= 70 % of the samples"
is "$(fn native_work module)" anon "anon: native_work is credited to the program"

# ---------------------------------------------------------------------------
# Signals reach the program unchanged: Ctrl-C on the terminal.
ptyrun -t 30 -w 'catcher: waiting' -k 0.7:^C -- "$PROFIL" --no-tui --driver ptrace -b 1 -t 1000 -o "$T/catcher.PRF" \
    "$PROGS/catcher" --
has "$out" "caught SIGINT" "catcher: the program's handler saw SIGINT"
has "$out" "Program terminated normally" "catcher: it then ended normally"
is "$rc" 0 "catcher: profil exits 0"

# Job control: a stopped program stays stopped until SIGCONT, then ends.
# (pgrep: procps, which ./setup installs.)
{
    "$PROFIL" --no-tui --driver ptrace -b 1 -t 1000 -o "$T/stop.PRF" "$PROGS/shares" -- \
        </dev/null >"$T/stop.out" 2>&1 &
    ppid=$!
    # The program exists once profil has read the debug information (slow
    # under ASan): wait for it, then let it run a little.
    kid=""
    for _ in $(seq 1 100); do
        kid=$(pgrep -P "$ppid" -x shares | head -n 1)
        [ -n "$kid" ] && break
        sleep 0.1
    done
    sleep 0.3
    kill -STOP "$kid" 2>/dev/null
    sleep 0.5
    state1=$(cut -d' ' -f3 "/proc/$kid/stat" 2>/dev/null)
    sleep 0.3
    state2=$(cut -d' ' -f3 "/proc/$kid/stat" 2>/dev/null)
    kill -CONT "$kid" 2>/dev/null
    wait "$ppid"
    rc=$?
    like "$state1$state2" '^[Tt][Tt]$' "SIGSTOP: the program stays stopped under the clock"
    is "$rc" 0 "SIGCONT: it goes on and profil exits 0"
    has "$(cat "$T/stop.out")" "shares: done" "SIGCONT: the program finished its work"
}

# What outlives the program is let go, neither killed nor left traced.
run "$PROFIL" --no-tui --driver ptrace -b 1 -t 1000 -o "$T/bg.PRF" /bin/sh -- -c 'sleep 5 & echo "bg=$!"'
is "$rc" 0 "background child: profil exits 0 when the program does"
bg=$(printf '%s\n' "$out" | sed -n 's/^bg=//p')
if [ -n "$bg" ] && [ -r "/proc/$bg/status" ]; then
    is "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$bg/status")" 0 \
        "background child: still running, and no longer traced"
    kill "$bg" 2>/dev/null
else
    _tap 1 "background child: still running, and no longer traced"
    diag "no process for bg='$bg'"
fi



done_testing
