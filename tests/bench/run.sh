#!/usr/bin/env bash
# run.sh - profil's benchmark suite: `make bench` runs it.  It measures and
# prints one table (see docs/performance.md for what each row means); it never
# fails because of what it measured, and it is not part of `make check`.
#
# Every number is a median over BENCH_RUNS runs taken in alternating order
# (round r runs every configuration once, starting at a different one each
# round), and overheads are ratios to the bare program of the same round.
#
# Environment (make bench sets the first four):
#   PROFIL, PROGS     the profil binary and tests/progs
#   BENCH_BIN         where the bench helpers were built (tests/bench)
#   CC                compiler for the generated programs of the scale part
#   BENCH_RUNS        runs per measurement (default 5, at least 5 for the docs)
#   BENCH_SECONDS     length of one run of a workload (default 1)
#   BENCH_ONLY        some of: overhead sleeper loaded frontend scale stacks
#                     unwind nosyms (default: all)
#   MKBOMB            tests/prf/mkbomb (nosyms' file, and its measures)
#   BENCH_GEN         where generated programs are cached (default: a
#                     directory in $TMPDIR named after gen.sh's checksum)
#   BENCH_KEEP=1      keep the raw data and say where it is
#   BENCH_TABLE=FILE  also write the table to FILE
set -u
export LC_ALL=C

SRC=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SRC/../.." && pwd)
: "${PROFIL:=$TOP/profil}" "${PROGS:=$TOP/tests/progs}" "${BENCH_BIN:=$TOP/tests/bench}"
: "${CC:=cc}" "${BENCH_RUNS:=5}" "${BENCH_SECONDS:=1}" "${BENCH_ONLY:=overhead sleeper loaded frontend scale stacks unwind nosyms}"
: "${MKBOMB:=$TOP/tests/prf/mkbomb}"
RUNS=$BENCH_RUNS
RUNSTAT=$BENCH_BIN/runstat
SHARES=$BENCH_BIN/shares-timed
SLEEPER=$BENCH_BIN/sleeper-timed
T8=$BENCH_BIN/threads8
DEEPT=$BENCH_BIN/deep-timed
for f in "$PROFIL" "$RUNSTAT" "$SHARES" "$SLEEPER" "$T8" "$BENCH_BIN/prfgen" \
    "$BENCH_BIN/replaybench" "$BENCH_BIN/kfloor" "$MKBOMB"; do
    if [ ! -x "$f" ]; then
        echo "bench: $f is not built (run make bench)" >&2
        exit 1
    fi
done
for t in jq tmux awk; do
    command -v "$t" >/dev/null 2>&1 || { echo "bench: $t is needed" >&2; exit 1; }
done
HAVE_PERF=0
if command -v perf >/dev/null 2>&1 && perf record -q -o /dev/null true >/dev/null 2>&1; then
    HAVE_PERF=1
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/profil-bench.XXXXXX") || exit 1
D=$W/data
mkdir -p "$D"
LOG=$W/log
SOCK=profil-bench-$$
tm() { tmux -L "$SOCK" "$@"; }
LOADS=""
cleanup() {
    [ -n "$LOADS" ] && kill $LOADS 2>/dev/null
    tm kill-server 2>/dev/null
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
        echo "bench: raw data kept in $W" >&2
    else
        rm -rf "$W"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
T_START=$SECONDS
only() { case " $BENCH_ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
say() { printf 'bench: %s\n' "$*" >&2; }

# --- small statistics -----------------------------------------------------

# median: of the numbers on stdin (nan when there are none).
median() {
    grep -E '^-?[0-9.]+([eE][-+]?[0-9]+)?$' | sort -g |
        awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
                                  else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# medexpr FILE EXPR: median of an awk expression over FILE's lines.
medexpr() {
    [ -s "$1" ] || { echo nan; return; }
    awk "{ print ($2) }" "$1" | median
}
# maxexpr FILE EXPR
maxexpr() {
    [ -s "$1" ] || { echo nan; return; }
    awk "BEGIN { m = \"nan\" } { v = ($2); if (m == \"nan\" || v > m) m = v } END { print m }" "$1"
}
# ratio FILE COL BASE BCOL: median over rounds of FILE's COL / BASE's BCOL,
# paired by round (column 1).
ratio() {
    [ -s "$1" ] && [ -s "$3" ] || { echo nan; return; }
    awk -v c="$2" -v bc="$4" 'NR == FNR { b[$1] = $bc; next }
        ($1 in b) && b[$1] > 0 && $c != "nan" { print $c / b[$1] }' "$3" "$1" | median
}
# spread FILE COL BASE BCOL: "[min-max]" of the same per-round ratios.
spread() {
    [ -s "$1" ] && [ -s "$3" ] || { echo ""; return; }
    awk -v c="$2" -v bc="$4" 'NR == FNR { b[$1] = $bc; next }
        ($1 in b) && b[$1] > 0 && $c != "nan" { v = $c / b[$1]; if (n++ == 0 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
        END { if (n > 1) printf " [%.3f-%.3f]", lo, hi }' "$3" "$1"
}
# fmt FORMAT VALUE: printf unless VALUE is not a number.
fmt() {
    case $2 in
    nan | '' | -nan) printf 'n/a' ;;
    *) awk -v v="$2" "BEGIN { printf \"$1\", v }" ;;
    esac
}
# ok A OP B: numeric comparison (false when either is not a number).
ok() {
    awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
        if (a !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ || b !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1
        a += 0; b += 0
        r = op == "<" ? a < b : op == "<=" ? a <= b : op == ">" ? a > b : a >= b
        exit !r }'
}
# verdict COND...: "met" or "missed" after evaluating the ok-expression.
verdict() { if "$@"; then echo met; else echo MISSED; fi; }
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# cpu_ns PID: CPU time of every thread of PID so far, in ns (sets CPU).
cpu_ns() {
    local f a s=0
    for f in /proc/"$1"/task/*/schedstat; do
        read -r a _ <"$f" 2>/dev/null && s=$((s + a))
    done
    CPU=$s
}
# hwm_kb PID: peak resident memory of PID (VmHWM), in kB.
hwm_kb() { awk '/^VmHWM:/ { print $2 }' /proc/"$1"/status 2>/dev/null || echo nan; }

# rotate N R: the order of N configurations in round R (1..N, starting at R).
rotate() { local n=$1 r=$2 i; for ((i = 0; i < n; i++)); do echo $(((r + i) % n)); done; }

# --- the machine ------------------------------------------------------------

machine() {
    local model
    model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine:   $(nproc) CPUs ($model), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
    echo "kernel:    $(uname -sr), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null),"\
         "perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)"
    echo "virt:      vm $(systemd-detect-virt --vm 2>/dev/null || echo none), container $(systemd-detect-virt --container 2>/dev/null || echo none), cpu flags: $(grep -m1 -wo hypervisor /proc/cpuinfo || echo no hypervisor flag)"
    echo "tools:     $($CC --version | head -1); $(perf version 2>/dev/null || echo 'no perf'); $(tmux -V)"
    echo "profil:    $("$PROFIL" --version 2>/dev/null | head -1), $(cd "$TOP" && git describe --always --dirty 2>/dev/null || echo 'not a git tree')"
    echo "runs:      $RUNS per measurement, ${BENCH_SECONDS} s workloads, shares at $ROUNDS rounds"
}

# --- 1, 2, 5: overhead, accuracy and the sampling limit on shares ------------

# prf_counts FILE: "err a b c total lost io preempted" of a session of shares
# (preempted: nan when the report does not have it).
prf_counts() {
    "$PROFIL" --report --json "$1" 2>/dev/null | jq -r '
        ([.functions[] | select(.name | test("^work_[abc]$")) | {(.name): .samples}] | add // {}) as $f
        | "\($f.work_a // 0) \($f.work_b // 0) \($f.work_c // 0) \(.counters.total) \(.counters.lost) \(.counters.io) \(.counters.preempted // "nan")"' |
        shares_line
}
# perf_counts FILE: the same from a perf.data file, through perf report.
perf_counts() {
    local lost
    lost=$(perf report -i "$1" --stats 2>/dev/null | awk '/LOST events:/ { s += $3 } END { print s + 0 }')
    perf report -i "$1" --stdio -q -n --sort sym --percent-limit 0 2>/dev/null |
        awk -v lost="$lost" '{ t += $2 } / work_a$/ { a = $2 } / work_b$/ { b = $2 } / work_c$/ { c = $2 }
            END { print a + 0, b + 0, c + 0, t + 0, lost, "nan", "nan" }' | shares_line
}
# shares_line: "a b c total lost io preempted" samples -> "err %a %b %c total
# lost io preempted", err being the largest distance in points from 50/30/20
# of the three.
shares_line() {
    awk '{ s = $1 + $2 + $3
           if (s == 0) { print "nan nan nan nan", $4, $5, $6, $7; next }
           a = 100 * $1 / s; b = 100 * $2 / s; c = 100 * $3 / s
           e = a - 50; if (e < 0) e = -e; m = e
           e = b - 30; if (e < 0) e = -e; if (e > m) m = e
           e = c - 20; if (e < 0) e = -e; if (e > m) m = e
           printf "%.3f %.2f %.2f %.2f %s %s %s %s\n", m, a, b, c, $4, $5, $6, $7 }'
}

# ov_run CFG ROUND [PART]: one run of shares.  Lines of $D/PART-CFG (PART ov
# by default; columns):
#  1 round, 2-8 runstat: wall user sys maxrss status first start,
#  9-12 the program's own: wall cpu start end (so 11 - 8 is the start-up
#  before the program, 8 + 2 - 12 the time after it), and for profiled runs
#  13 err, 14-16 a b c (% of the three), 17 total, 18 lost, 19 io,
#  20 preempted.
ov_run() {
    local cfg=$1 r=$2 part=${3:-ov} us drv extra=""
    local -a cmd
    case $cfg in
    bare) cmd=("$SHARES" "$ROUNDS") ;;
    rec:*)
        us=${cfg#rec:}
        cmd=(perf record -q -e cpu-clock -c $((us * 1000)) -o "$W/p.data" -- "$SHARES" "$ROUNDS") ;;
    *)
        drv=${cfg%%:*} us=${cfg#*:}
        cmd=("$PROFIL" --no-tui --driver "$drv" -b 1 -t "$us" -o "$W/x.PRF" "$SHARES" "$ROUNDS") ;;
    esac
    rm -f "$W/rs" "$W/times" "$W/x.PRF" "$W/p.data"
    BENCH_TIMES=$W/times timeout 120 "$RUNSTAT" -r "$W/rs" -- "${cmd[@]}" </dev/null >/dev/null 2>>"$LOG"
    case $cfg in
    bare) ;;
    rec:*) extra=$(perf_counts "$W/p.data") ;;
    *) extra=$(prf_counts "$W/x.PRF") ;;
    esac
    echo "$r $(cat "$W/rs" 2>/dev/null || echo nan nan nan nan 1 -1 nan) $(cat "$W/times" 2>/dev/null || echo nan nan nan nan) $extra" >>"$D/$part-$cfg"
}

overhead() {
    local cfgs=(bare perf:1000 perf:500 perf:200 perf:100 perf:60 ptrace:1000 ptrace:500 ptrace:200
        ptrace:100 ptrace:60)
    [ "$HAVE_PERF" = 1 ] && cfgs+=(rec:1000 rec:100 rec:60)
    local r i
    say "overhead, accuracy, limit: ${#cfgs[@]} configurations x $RUNS runs of shares"
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#cfgs[@]} "$r"); do
            ov_run "${cfgs[$i]}" "$r"
        done
    done
    # The kernel's own cost of the clock, without any reader (same loop).
    # At 1000 us the effect is small beside the noise: twice the pairs, of
    # the whole workload; half-length loops do at the shorter intervals.
    local iters
    iters=$(awk -v r="$ROUNDS" 'BEGIN { printf "%d", r * 100 * 10 * 20000 }')
    say "kernel floor: cpu-clock with no reader, $RUNS to $((2 * RUNS)) pairs per interval"
    "$BENCH_BIN/kfloor" 1000 "$iters" $((2 * RUNS)) >"$D/floor-1000" 2>>"$LOG"
    for us in 100 60; do
        "$BENCH_BIN/kfloor" "$us" $((iters / 2)) "$RUNS" >"$D/floor-$us" 2>>"$LOG"
    done
}

# --- 2b: the wall/cpu split on sleeper ---------------------------------------

# sl_run CFG ROUND. Lines of $D/sl-CFG: columns 1-12 as for ov_run, then
# 13 io, 14 total, 15 program, 16 dos, 17 high.
sl_run() {
    local cfg=$1 r=$2 extra=""
    local -a cmd=("$SLEEPER" "$SLICES")
    [ "$cfg" = bare ] || cmd=("$PROFIL" --no-tui --driver "$cfg" -b 1 -t 1000 -o "$W/s.PRF" "${cmd[@]}")
    rm -f "$W/rs" "$W/times" "$W/s.PRF"
    BENCH_TIMES=$W/times timeout 60 "$RUNSTAT" -r "$W/rs" -- "${cmd[@]}" </dev/null >/dev/null 2>>"$LOG"
    [ "$cfg" = bare ] || extra=$("$PROFIL" --report --json "$W/s.PRF" 2>/dev/null |
        jq -r '.counters | "\(.io) \(.total) \(.program) \(.dos) \(.high)"')
    echo "$r $(cat "$W/rs" 2>/dev/null || echo nan nan nan nan 1 -1 nan) $(cat "$W/times" 2>/dev/null || echo nan nan nan nan) $extra" >>"$D/sl-$cfg"
}

sleeper() {
    local cfgs=(bare perf ptrace) r i
    say "sleeper: ${#cfgs[@]} configurations x $RUNS runs"
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#cfgs[@]} "$r"); do
            sl_run "${cfgs[$i]}" "$r"
        done
    done
}

# --- 2c: shares beside two CPU-bound loads --------------------------------------

# The program waits for a CPU a third of its time or more, and the profiler
# competes for one too.  Same runs as ov_run, into $D/ld-CFG.
loaded() {
    local cfgs=(perf:1000 ptrace:1000) r i
    [ "$HAVE_PERF" = 1 ] && cfgs+=(rec:1000)
    say "loaded: ${#cfgs[@]} configurations x $RUNS runs of shares beside two CPU-bound loads"
    sh -c 'while :; do :; done' &
    LOADS="$LOADS $!"
    sh -c 'while :; do :; done' &
    LOADS="$LOADS $!"
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#cfgs[@]} "$r"); do
            ov_run "${cfgs[$i]}" "$r" ld
        done
    done
    kill $LOADS 2>/dev/null
    LOADS=""
}

# --- 3: the front end's own CPU ------------------------------------------------

FE_SECS=1.5 FE_T0=0.3 FE_WIN=1.0

# wait_pane ERE SECONDS: poll the pane until a line matches.
wait_pane() {
    local n=$(($2 * 20))
    while [ "$n" -gt 0 ]; do
        tm capture-pane -p -t "$PANE" 2>/dev/null | grep -Eq -- "$1" && return 0
        sleep 0.05
        n=$((n - 1))
    done
    return 1
}
# wait_gone PID SECONDS
wait_gone() {
    local n=$(($2 * 20))
    while [ "$n" -gt 0 ] && kill -0 "$1" 2>/dev/null; do
        sleep 0.05
        n=$((n - 1))
    done
}
# tui_start NAME COMMAND: start COMMAND in a fresh 120x40 tmux session NAME;
# sets PID (of COMMAND, which bash execs) and T0 (its start, in us).
tui_start() {
    PANE=$1
    shift
    rm -f "$W/pid" "$W/t0"
    tm kill-session -t "$PANE" 2>/dev/null
    tm new-session -d -s "$PANE" -x 120 -y 40 \
        "bash -c 'echo \${EPOCHREALTIME/./} >$W/t0; echo \$\$ >$W/pid; exec $*'"
    local n=200
    while [ "$n" -gt 0 ] && ! [ -s "$W/pid" ]; do
        sleep 0.01
        n=$((n - 1))
    done
    PID=$(cat "$W/pid" 2>/dev/null)
    T0=$(cat "$W/t0" 2>/dev/null)
}
# tui_quit: q once the program has ended (the screen stays until then), then
# make sure the session is gone.
tui_quit() {
    wait_pane 'saved\. q to quit|Program (terminated|aborted)' 20 || echo "bench: $PANE did not end" >>"$LOG"
    tm send-keys -t "$PANE" q
    wait_gone "$PID" 5
    tm capture-pane -p -t "$PANE" >>"$LOG" 2>/dev/null
    tm kill-session -t "$PANE" 2>/dev/null
}

# fe_run CFG ROUND, CFG = MODE:US:THREADS.  Lines of $D/fe-CFG:
# round cpu_pct_of_a_core total lost
fe_run() {
    local cfg=$1 r=$2 mode us n c0 c1 t0 t1 extra
    IFS=: read -r mode us n <<<"$cfg"
    rm -f "$W/fe.PRF" "$W/fe.data"
    local prof=("$PROFIL" --driver perf -d 1 -b 1 -t "$us" -o "$W/fe.PRF" "$T8" "$FE_SECS" "$n")
    case $mode in
    tui)
        tui_start fe "${prof[*]}" ;;
    plain)
        "${prof[0]}" --no-tui "${prof[@]:1}" </dev/null >/dev/null 2>>"$LOG" &
        PID=$! ;;
    rec)
        perf record -q -e cpu-clock -c $((us * 1000)) -o "$W/fe.data" -- "$T8" "$FE_SECS" "$n" \
            </dev/null >/dev/null 2>>"$LOG" &
        PID=$! ;;
    esac
    sleep "$FE_T0"
    cpu_ns "$PID"; c0=$CPU; t0=$(now_us)
    sleep "$FE_WIN"
    cpu_ns "$PID"; c1=$CPU; t1=$(now_us)
    case $mode in
    tui) tui_quit ;;
    *) wait "$PID" ;;
    esac
    if [ "$mode" = rec ]; then
        extra=$(perf_counts "$W/fe.data" | awk '{ print $5, $6 }')
    else
        extra=$("$PROFIL" --report --json "$W/fe.PRF" 2>/dev/null | jq -r '.counters | "\(.total) \(.lost)"')
    fi
    echo "$r $(awk -v c="$((c1 - c0))" -v t="$((t1 - t0))" 'BEGIN { printf "%.3f", c / 10 / t }') $extra" >>"$D/fe-$cfg"
}

frontend() {
    local cfgs=(tui:1000:1 tui:1000:8 tui:100:1 tui:100:8 plain:1000:1 plain:1000:8 plain:100:1
        plain:100:8) r i
    [ "$HAVE_PERF" = 1 ] && cfgs+=(rec:1000:1 rec:1000:8 rec:100:1 rec:100:8)
    say "front end: ${#cfgs[@]} configurations x $RUNS runs of threads8"
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#cfgs[@]} "$r"); do
            fe_run "${cfgs[$i]}" "$r"
        done
    done
}

# --- 4: scale ----------------------------------------------------------------

# fs_run PROG FUNC_ERE ROUND: time to the header and to the first ranked
# function of PROG on the live screen, and profil's peak memory.  Lines of
# $D/fs-PROG: round header_s function_s hwm_kb
fs_run() {
    local prog=$1 func=$2 r=$3 th=nan tf=nan t s hwm
    tui_start fs "$PROFIL" -b 1 -t 1000 -o "$W/fs.PRF" "$GEN/$prog" 1
    local deadline=$(($(now_us) + 10000000))
    while [ "$(now_us)" -lt "$deadline" ]; do
        s=$(tm capture-pane -p -t fs 2>/dev/null)
        t=$(now_us)
        if [ "$th" = nan ] && printf '%s\n' "$s" | grep -q '^ profil '; then
            th=$t
        fi
        if printf '%s\n' "$s" | grep -Eq -- "$func"; then
            tf=$t
            [ "$th" = nan ] && th=$t
            break
        fi
        sleep 0.005
    done
    wait_pane 'saved\. q to quit|Program (terminated|aborted)' 20
    hwm=$(hwm_kb "$PID")
    tui_quit
    awk -v r="$r" -v t0="$T0" -v th="$th" -v tf="$tf" -v m="$hwm" 'BEGIN {
        printf "%d %s %s %s\n", r, th == "nan" ? "nan" : (th - t0) / 1e6,
            tf == "nan" ? "nan" : (tf - t0) / 1e6, m }' >>"$D/fs-$prog"
}

# rp_run NAME ROUND: time to the first replay screen of a session file.
# Lines of $D/rp-NAME: round header_s hwm_kb
rp_run() {
    local name=$1 r=$2 th=nan hwm=nan
    tui_start rp "$PROFIL" --replay "$W/$name.PRF"
    local deadline=$(($(now_us) + 10000000))
    while [ "$(now_us)" -lt "$deadline" ]; do
        if tm capture-pane -p -t rp 2>/dev/null | grep -q '^ profil REPLAY'; then
            th=$(now_us)
            break
        fi
        sleep 0.005
    done
    hwm=$(hwm_kb "$PID")
    tm send-keys -t rp q
    wait_gone "$PID" 5
    tm kill-session -t rp 2>/dev/null
    awk -v r="$r" -v t0="$T0" -v th="$th" -v m="$hwm" 'BEGIN {
        printf "%d %s %s\n", r, th == "nan" ? "nan" : (th - t0) / 1e6, m }' >>"$D/rp-$name"
}

# sc_run CFG ROUND: the quick ones, through runstat or replaybench.
sc_run() {
    local cfg=$1 r=$2 kind=${1%%:*} name=${1#*:}
    rm -f "$W/rs"
    case $kind in
    fs) fs_run "$name" "$(fs_func "$name")" "$r" ;;
    rp) rp_run "$name" "$r" ;;
    st) # start-up without the screen: until the clock starts, and the whole run
        timeout 60 "$RUNSTAT" -r "$W/rs" -l 'sampling every' -- "$PROFIL" --no-tui -b 1 -t 1000 \
            -o "$W/st.PRF" "$GEN/$name" 0 </dev/null >/dev/null 2>>"$LOG"
        echo "$r $(cat "$W/rs" 2>/dev/null)" >>"$D/st-$name" ;;
    rep) # profil --report: lines "round wall user sys maxrss status"
        timeout 60 "$RUNSTAT" -r "$W/rs" -- "$PROFIL" --report "$W/$name.PRF" </dev/null >/dev/null 2>>"$LOG"
        echo "$r $(cat "$W/rs" 2>/dev/null)" >>"$D/rep-$name" ;;
    rb) # replaybench: "round read read2 new seek rank report maxrss frames samples same"
        echo "$r $(timeout 60 "$BENCH_BIN/replaybench" "$W/$name.PRF" 2>>"$LOG")" >>"$D/rb-$name" ;;
    prep) # perf report of a recording of the same program
        timeout 60 "$RUNSTAT" -r "$W/rs" -- perf report -i "$W/$name.data" --stdio </dev/null >/dev/null 2>>"$LOG"
        echo "$r $(cat "$W/rs" 2>/dev/null)" >>"$D/prep-$name" ;;
    esac
}
fs_func() {
    case $1 in
    big100k) echo ' f[0-9]{6} ' ;;
    libs50) echo ' b[0-9]{2}_f[0-9]{3} ' ;;
    big1m) echo ' g[0-9]{5} ' ;;
    esac
}

scale() {
    local sum
    sum=$(cat "$SRC/gen.sh" | cksum | awk '{ print $1 }')
    GEN=${BENCH_GEN:-${TMPDIR:-/tmp}/profil-bench-gen-$sum}
    local p
    for p in 100k libs50 big1m; do
        local bin=$p
        [ "$p" = 100k ] && bin=big100k
        if [ ! -x "$GEN/$bin" ]; then
            say "scale: generating and building $bin in $GEN"
            (. "$SRC/gen.sh" && "gen_$p" "$GEN") >>"$LOG" 2>&1 || say "scale: building $bin failed (see log)"
        fi
    done
    say "scale: the session files"
    "$BENCH_BIN/prfgen" "$PROGS/shares" 3600 1000 "$W/hour.PRF" >>"$LOG" 2>&1
    "$BENCH_BIN/prfgen" "$GEN/big1m" 600 1000 "$W/gen1m.PRF" >>"$LOG" 2>&1
    "$PROFIL" --no-tui -b 1 -t 1000 -o "$W/live1m.PRF" "$GEN/big1m" "$BENCH_SECONDS" </dev/null >/dev/null 2>>"$LOG"
    local cfgs=(fs:big100k fs:libs50 fs:big1m st:big100k st:libs50 st:big1m rep:hour rb:hour rp:hour
        rep:live1m rb:live1m rep:gen1m rb:gen1m rp:gen1m)
    if [ "$HAVE_PERF" = 1 ]; then
        for p in big100k libs50 big1m; do
            perf record -q -e cpu-clock -c 1000000 -o "$W/$p.data" -- "$GEN/$p" "$BENCH_SECONDS" \
                </dev/null >/dev/null 2>>"$LOG"
        done
        cfgs+=(prep:big100k prep:libs50 prep:big1m)
    fi
    local r i
    say "scale: ${#cfgs[@]} configurations x $RUNS runs"
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#cfgs[@]} "$r"); do
            sc_run "${cfgs[$i]}" "$r"
        done
    done
    ls -l "$W"/*.PRF >>"$LOG"
    for f in hour gen1m live1m; do
        "$PROFIL" --report --json "$W/$f.PRF" 2>/dev/null |
            jq -r --arg f "$f" '"\($f) \(.bucket_count) \(.counters.total) \(.functions | length)"' >>"$D/files"
        echo "$f $(stat -c %s "$W/$f.PRF" 2>/dev/null)" >>"$D/sizes"
    done
}

# --- 6: unwinding, libdwfl against libunwind ---------------------------------

# unwindbench captures 2000 stacks of deep (no frame pointers) and unwinds the
# same captures with each library, RUNS passes over fresh unwinders; it prints
# the rows of its own table into $D/unw (how walks ended, and where they
# differ, go to the log).  Built only where libunwind-dev is installed.
unwind() {
    if [ ! -x "$BENCH_BIN/unwindbench" ] || [ ! -x "$BENCH_BIN/deep" ]; then
        say "unwind: unwindbench is not built (libunwind-dev missing at configure): skipped"
        return 0
    fi
    local cfg depth kib head=-H
    say "unwind: 2000 stacks of deep at depth 10 and 300, $RUNS runs of each library"
    for cfg in 10:8 300:8 300:64; do
        IFS=: read -r depth kib <<<"$cfg"
        echo "unwindbench: depth $depth, $kib KiB" >>"$LOG"
        timeout 600 "$BENCH_BIN/unwindbench" $head -n 2000 -r "$RUNS" -s "$kib" -- \
            "$BENCH_BIN/deep" "$depth" </dev/null >>"$D/unw" 2>>"$LOG" || say "unwind: depth $depth, $kib KiB failed (see log)"
        head=
    done
}
# --- 6: call stacks against perf record --call-graph -------------------------

# The call-structure workloads, sized to BENCH_SECONDS of CPU (stacks): deep
# (no frame pointers, through libc's qsort) at depth 10 and 300, and shares.
stk_prog() {
    STK_ARGS=() # profil's, before the program
    case $1 in
    d10) STK_PROG=("$DEEPT" 10 "$SORTS") ;;
    d300) STK_PROG=("$DEEPT" 300 "$SORTS") ;;
    shares) STK_PROG=("$SHARES" "$STK_ROUNDS") ;;
    true) STK_PROG=(/bin/true) STK_ARGS=(-a '') ;;
    esac
}

# stk_run CFG WORKLOAD ROUND: one run of WORKLOAD at 1 kHz (or as CFG says).
# CFG: bare; perf, ptrace, perf64 (profil with stacks, 8 or 64 KiB copies);
# dwarf, dwarf64, fp (perf record --call-graph); ns:US (profil --no-stacks);
# nbpf:US, rec:US (perf record without stacks, with and without
# --no-bpf-event).  Lines of $D/sk-WORKLOAD-CFG: columns 1-12 as for ov_run,
# 13 the size of the file written (bytes), then for profil 14 stacks unwound,
# 15 median us, 16 p99 us, 17 total, 18 lost, 19 truncated stacks, 20 the
# largest depth, 21 samples with a stack; for perf record 14 lost, 15 samples.
stk_run() {
    local cfg=$1 wl=$2 r=$3 us extra="" size=nan
    local -a cmd
    stk_prog "$wl"
    us=${cfg#*:}
    case $cfg in
    bare) cmd=("${STK_PROG[@]}") ;;
    perf | ptrace) cmd=("$PROFIL" --no-tui --driver "$cfg" -b 1 -t 1000 -o "$W/k.PRF" "${STK_ARGS[@]}" "${STK_PROG[@]}") ;;
    perf64) cmd=("$PROFIL" --no-tui --driver perf --stack-size=65536 -b 1 -t 1000 -o "$W/k.PRF" "${STK_ARGS[@]}" "${STK_PROG[@]}") ;;
    ns:*) cmd=("$PROFIL" --no-tui --driver perf --no-stacks -b 1 -t "$us" -o "$W/k.PRF" "${STK_ARGS[@]}" "${STK_PROG[@]}") ;;
    dwarf) cmd=(perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o "$W/k.data" -- "${STK_PROG[@]}") ;;
    dwarf64) cmd=(perf record -q -e cpu-clock -F 1000 --call-graph dwarf,65528 -o "$W/k.data" -- "${STK_PROG[@]}") ;;
    fp) cmd=(perf record -q -e cpu-clock -F 1000 --call-graph fp -o "$W/k.data" -- "${STK_PROG[@]}") ;;
    nbpf:*) cmd=(perf record -q --no-bpf-event -e cpu-clock -F $((1000000 / us)) -o "$W/k.data" -- "${STK_PROG[@]}") ;;
    rec:*) cmd=(perf record -q -e cpu-clock -F $((1000000 / us)) -o "$W/k.data" -- "${STK_PROG[@]}") ;;
    esac
    rm -f "$W/rs" "$W/times" "$W/k.PRF" "$W/k.data"
    BENCH_TIMES=$W/times timeout 120 "$RUNSTAT" -r "$W/rs" -- "${cmd[@]}" </dev/null >/dev/null 2>>"$LOG"
    if [ -f "$W/k.PRF" ]; then
        size=$(stat -c %s "$W/k.PRF")
        extra=$("$PROFIL" --report --json "$W/k.PRF" 2>/dev/null | jq -r '
            "\(.meta.unwind.stacks // 0) \(.meta.unwind.median_us // "nan") \(.meta.unwind.p99_us // "nan") \(.counters.total) \(.counters.lost) \(.stacks.truncated // "nan") \(.stacks.max_depth // "nan") \(.stacks.samples // "nan")"')
    elif [ -f "$W/k.data" ]; then
        size=$(stat -c %s "$W/k.data")
        extra=$(perf report -i "$W/k.data" --stats 2>/dev/null |
            awk '/LOST events:/ { l += $3 } /^ *SAMPLE events:/ && !s { s = $3 } END { print l + 0, s + 0 }')
    fi
    [ "$wl" = true ] && : >"$W/times" # /bin/true has no times of its own
    echo "$r $(cat "$W/rs" 2>/dev/null || echo nan nan nan nan 1 -1 nan) $(cat "$W/times" 2>/dev/null | grep . || echo nan nan nan nan) $size $extra" >>"$D/sk-$wl-$cfg"
}

# stk_fe_run CFG WORKLOAD ROUND: profil on the live screen at 1 kHz, CFG =
# on (stacks, 8 KiB), on64 (64 KiB) or off (--no-stacks), over a run of
# three times the length; profil's CPU from 1.5 s to 2.5 s after its start,
# past its start-up (reading the symbols of the program and libc: ~65 ms of
# CPU, which a loaded machine spreads over the first second).  Lines of
# $D/skfe-WORKLOAD-CFG: round cpu_pct total lost
STK_FE_T0=1.5
stk_fe_run() {
    local cfg=$1 wl=$2 r=$3 c0 c1 t0 t1 opt=""
    stk_prog "$wl"
    case $cfg in
    on64) opt=--stack-size=65536 ;;
    off) opt=--no-stacks ;;
    esac
    local -a prog=("${STK_PROG[@]}")
    prog[${#prog[@]} - 1]=$((3 * ${prog[${#prog[@]} - 1]}))
    rm -f "$W/kf.PRF"
    tui_start skfe "$PROFIL" --driver perf $opt -d 1 -b 1 -t 1000 -o "$W/kf.PRF" "${prog[*]}"
    sleep "$STK_FE_T0"
    cpu_ns "$PID"; c0=$CPU; t0=$(now_us)
    sleep "$FE_WIN"
    cpu_ns "$PID"; c1=$CPU; t1=$(now_us)
    tui_quit
    echo "$r $(awk -v c="$((c1 - c0))" -v t="$((t1 - t0))" 'BEGIN { printf "%.3f", c / 10 / t }') $("$PROFIL" --report --json "$W/kf.PRF" 2>/dev/null |
        jq -r '"\(.counters.total) \(.counters.lost)"')" >>"$D/skfe-$wl-$cfg"
}

stacks() {
    if [ ! -x "$DEEPT" ]; then
        say "stacks: $DEEPT is not built: skipped"
        return 0
    fi
    # deep's sorts for BENCH_SECONDS of CPU (the machine may be loaded: CPU
    # time, not wall).
    rm -f "$W/cal"
    BENCH_TIMES=$W/cal "$DEEPT" 10 20000 >/dev/null
    SORTS=$(awk -v s="$BENCH_SECONDS" '{ n = int(20000 * s / $2 + 0.5) } END { print (n < 1 ? 1 : n) }' "$W/cal")
    rm -f "$W/cal"
    BENCH_TIMES=$W/cal "$SHARES" 10 >/dev/null
    STK_ROUNDS=$(awk -v s="$BENCH_SECONDS" '{ r = int(10 * s / $2 + 0.5) } END { print (r < 1 ? 1 : r) }' "$W/cal")
    echo "stacks: deep sorts $SORTS times, shares $STK_ROUNDS rounds" >>"$LOG"
    local -a runs=() fes=()
    local wl c
    for wl in d10 d300 shares; do
        for c in bare perf ptrace; do runs+=("$c $wl"); done
        [ "$wl" = d300 ] && runs+=("perf64 $wl")
        if [ "$HAVE_PERF" = 1 ]; then
            for c in dwarf fp; do runs+=("$c $wl"); done
            [ "$wl" = d300 ] && runs+=("dwarf64 $wl")
        fi
        for c in on off; do fes+=("$c $wl"); done
        [ "$wl" = d300 ] && fes+=("on64 $wl")
    done
    # Without stacks: shares at 1 and 10 kHz, and the start-up on /bin/true.
    for c in ns:1000 ns:100; do runs+=("$c shares"); done
    runs+=("bare true" "ns:1000 true" "perf true")
    if [ "$HAVE_PERF" = 1 ]; then
        for c in nbpf:1000 nbpf:100 rec:1000 rec:100; do runs+=("$c shares"); done
        runs+=("nbpf:1000 true" "rec:1000 true")
    fi
    say "stacks: ${#runs[@]} configurations x $RUNS runs, then ${#fes[@]} on the live screen x $RUNS"
    local r i
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#runs[@]} "$r"); do
            stk_run ${runs[$i]} "$r"
        done
    done
    for ((r = 1; r <= RUNS; r++)); do
        for i in $(rotate ${#fes[@]} "$r"); do
            stk_fe_run ${fes[$i]} "$r"
        done
    done
}

# --- 8: symbols made up ---------------------------------------------------------

# nosyms: profil --report of a 1 MB file (tests/prf/mkbomb hits) whose
# 600,000 PCs lie in a library with no symbols and no segments, so that each
# makes its own function up: issue 16's quadratic insertion (it did not
# finish in 120 s).  Lines of $D/nosyms: round seconds peak_kB exit.
nosyms() {
    "$MKBOMB" hits "$W/nosyms.PRF" 600000 >>"$LOG" 2>&1 || { say "nosyms: mkbomb failed (see log)"; return; }
    wc -c <"$W/nosyms.PRF" | tr -d ' ' >"$D/nosyms-size"
    say "nosyms: $RUNS runs"
    local r kb s how n
    for ((r = 1; r <= RUNS; r++)); do
        "$MKBOMB" measure "$W/m" timeout 120 "$PROFIL" --report "$W/nosyms.PRF" >/dev/null 2>>"$LOG"
        read -r kb s how n _cpu <"$W/m" && echo "$r $s $kb $how:$n" >>"$D/nosyms"
    done
}

# --- the table ----------------------------------------------------------------

TABLE=$W/table
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$@" >>"$TABLE"; }

table_overhead() {
    local drv us whole prog cpu rw rp rc target v pref f b=$D/ov-bare
    for drv in perf ptrace; do
        for us in 1000 500 200 100 60; do
            f=$D/ov-$drv:$us
            whole=$(ratio "$f" 2 "$b" 2)
            prog=$(ratio "$f" 9 "$b" 9)
            cpu=$(ratio "$f" 10 "$b" 10)
            pref=-
            rw=nan rp=nan
            if [ -s "$D/ov-rec:$us" ]; then
                rw=$(ratio "$D/ov-rec:$us" 2 "$b" 2)
                rp=$(ratio "$D/ov-rec:$us" 9 "$b" 9)
                rc=$(ratio "$D/ov-rec:$us" 10 "$b" 10)
                pref="perf record: whole $(fmt '%.3f' "$rw"), program $(fmt '%.3f' "$rp")$(spread "$D/ov-rec:$us" 9 "$b" 9), cpu $(fmt '%.3f' "$rc"); start $(fmt '%.0f' "$(medexpr "$D/ov-rec:$us" '($11 - $8) * 1000')") ms, end $(fmt '%.0f' "$(medexpr "$D/ov-rec:$us" '($8 + $2 - $12) * 1000')") ms"
            fi
            target=- v=-
            case $drv:$us in
            perf:1000)
                target="whole <= 1.015; program <= perf record's"
                v=$(verdict ok "$whole" '<=' 1.015)
                if [ "$rp" != nan ] && ! ok "$prog" '<=' "$rp"; then
                    v="$v; vs perf record MISSED by $(awk -v a="$prog" -v b="$rp" 'BEGIN { printf "%.3f", a - b }')"
                elif [ "$rp" != nan ]; then
                    v="$v; vs perf record met"
                fi ;;
            perf:100) target="whole <= 1.07"; v=$(verdict ok "$whole" '<=' 1.07) ;;
            ptrace:1000) target="whole <= 1.04"; v=$(verdict ok "$whole" '<=' 1.04) ;;
            esac
            row "1" "overhead, $drv driver, $us us" \
                "whole $(fmt '%.3f' "$whole")$(spread "$f" 2 "$b" 2), program $(fmt '%.3f' "$prog")$(spread "$f" 9 "$b" 9), cpu $(fmt '%.3f' "$cpu"); start $(fmt '%.0f' "$(medexpr "$f" '($11 - $8) * 1000')") ms, end $(fmt '%.0f' "$(medexpr "$f" '($8 + $2 - $12) * 1000')") ms; profil's own cpu $(fmt '%.1f' "$(medexpr "$f" '100 * ($3 + $4 - $10) / $2')") % of a core" \
                "$pref" "$target" "$v"
        done
    done
    row "1" "bare shares: wall of the whole run / of the program / its cpu (s); start, end" \
        "$(fmt '%.3f' "$(medexpr "$b" '$2')") / $(fmt '%.3f' "$(medexpr "$b" '$9')") / $(fmt '%.3f' "$(medexpr "$b" '$10')") s; start $(fmt '%.1f' "$(medexpr "$b" '($11 - $8) * 1000')") ms, end $(fmt '%.1f' "$(medexpr "$b" '($8 + $2 - $12) * 1000')") ms" \
        "-" "-" "-"
    local fl
    for us in 1000 100 60; do
        fl=$D/floor-$us
        row "1" "kernel floor, $us us: the same cpu-clock event on the same loop, no ring buffer, no reader" \
            "-" "x$(fmt '%.3f' "$(medexpr "$fl" '$2 / $1')"), $(fmt '%.1f' "$(medexpr "$fl" '($2 - $1) * 1e6 / ($3 > 0 ? $3 : 1)')") us per sample" \
            "-" "-"
    done
}

table_accuracy() {
    local drv us e pe f r
    only overhead && for us in 1000 100 60; do
        for drv in perf ptrace; do
            f=$D/ov-$drv:$us r=$D/ov-rec:$us
            e=$(medexpr "$f" '$13')
            pe=$(medexpr "$r" '$13')
            row "2" "accuracy on shares, $drv driver, $us us: largest error vs 50/30/20, points (median shares a/b/c)" \
                "$(fmt '%.2f' "$e") ($(fmt '%.1f' "$(medexpr "$f" '$14')")/$(fmt '%.1f' "$(medexpr "$f" '$15')")/$(fmt '%.1f' "$(medexpr "$f" '$16')"))" \
                "perf report: $(fmt '%.2f' "$pe") ($(fmt '%.1f' "$(medexpr "$r" '$14')")/$(fmt '%.1f' "$(medexpr "$r" '$15')")/$(fmt '%.1f' "$(medexpr "$r" '$16')"))" \
                "<= 2 points" "$(verdict ok "$e" '<=' 2)"
        done
    done
    only sleeper || return 0
    local truth
    truth=$(medexpr "$D/sl-bare" '100 * (1 - $10 / $9)')
    for drv in perf ptrace; do
        local f=$D/sl-$drv io own
        io=$(medexpr "$f" '100 * $13 / ($14 > 0 ? $14 : 1)')
        own=$(medexpr "$f" '100 * (1 - $10 / $9)')
        e=$(awk -v a="$io" 'BEGIN { e = a - 90; if (e < 0) e = -e; print (a == "nan" ? "nan" : e) }')
        row "2" "wall/cpu split on sleeper, $drv driver, 1000 us: I/O share vs the 90 % blocked of its design" \
            "$(fmt '%.2f' "$io") % I/O, error $(fmt '%.2f' "$e") points (blocked measured: bare $(fmt '%.2f' "$truth") %, under profil $(fmt '%.2f' "$own") %)" \
            "- (perf record -e cpu-clock cannot see blocked time)" "<= 2 points" "$(verdict ok "$e" '<=' 2)"
    done
}

table_loaded() {
    local cfg f name lost e y pre target v
    for cfg in perf:1000 ptrace:1000 rec:1000; do
        f=$D/ld-$cfg
        [ -s "$f" ] || continue
        case $cfg in
        perf:*) name="perf driver" ;;
        ptrace:*) name="ptrace driver" ;;
        rec:*) name="perf record -e cpu-clock -c 1000000" ;;
        esac
        lost=$(medexpr "$f" '100 * $18 / ($17 + $18 > 0 ? $17 + $18 : 1)')
        e=$(medexpr "$f" '$13')
        # Samples per ms of the program's own CPU time: 100 % when a sample
        # stands for a period of CPU time and none is missed.
        y=$(medexpr "$f" '100 * ($17 - ($19 == "nan" ? 0 : $19)) / ($10 * 1000)')
        pre=$(medexpr "$f" '$20')
        target=- v=-
        if [ "$cfg" = ptrace:1000 ]; then
            target="lost < 5 %, error <= 2 points"
            if ok "$lost" '<' 5 && ok "$e" '<=' 2; then v=met; else v=MISSED; fi
        fi
        row "2" "beside two CPU-bound loads, $name, 1000 us: lost share (median, max); largest error vs 50/30/20, points (median, max; shares a/b/c); CPU samples per ms of the program's CPU; preempted ticks; program's wall / cpu" \
            "lost $(fmt '%.2f' "$lost") % ($(fmt '%.2f' "$(maxexpr "$f" '100 * $18 / ($17 + $18 > 0 ? $17 + $18 : 1)')") % max); error $(fmt '%.2f' "$e") ($(fmt '%.2f' "$(maxexpr "$f" '$13')") max; $(fmt '%.1f' "$(medexpr "$f" '$14')")/$(fmt '%.1f' "$(medexpr "$f" '$15')")/$(fmt '%.1f' "$(medexpr "$f" '$16')")); $(fmt '%.1f' "$y") %; preempted $(fmt '%d' "$pre"); $(fmt '%.2f' "$(medexpr "$f" '$9')") / $(fmt '%.2f' "$(medexpr "$f" '$10')") s" \
            "$([ "$cfg" = rec:1000 ] && echo "(this row)" || echo "-")" "$target" "$v"
    done
}

table_frontend() {
    local mode us n v ref target
    for mode in tui plain; do
        for us in 1000 100; do
            for n in 1 8; do
                local f=$D/fe-$mode:$us:$n
                v=$(medexpr "$f" '$2')
                ref=-
                [ -s "$D/fe-rec:$us:$n" ] && ref="perf record: $(fmt '%.2f' "$(medexpr "$D/fe-rec:$us:$n" '$2')") %"
                target=- verd=-
                if [ "$mode:$us" = tui:1000 ]; then
                    target="< 2 %"
                    verd=$(verdict ok "$v" '<' 2)
                fi
                row "3" "front end, $([ "$mode" = tui ] && echo 'screen at 10 Hz' || echo '--no-tui'), $us us, $n thread$([ "$n" = 1 ] || echo s): profil's CPU, % of a core (lost max)" \
                    "$(fmt '%.2f' "$v") % ($(fmt '%d' "$(maxexpr "$f" '$4')") lost)" "$ref" "$target" "$verd"
            done
        done
    done
}

table_scale() {
    local p h fn m target
    for p in big100k libs50 big1m; do
        local f=$D/fs-$p what
        case $p in
        big100k) what="100,000 functions" ;;
        libs50) what="50 shared libraries" ;;
        big1m) what="16 MiB of code, 1,048,576+ buckets" ;;
        esac
        h=$(medexpr "$f" '$2')
        fn=$(medexpr "$f" '$3')
        m=$(medexpr "$f" '$4 / 1024')
        target=- verd=-
        if [ "$p" = big100k ]; then
            target="first screen < 0.2 s"
            verd=$(verdict ok "$h" '<' 0.2)
        fi
        local pref=-
        [ -s "$D/prep-$p" ] && pref="perf report --stdio of 1 s: $(fmt '%.3f' "$(medexpr "$D/prep-$p" '$2')") s, $(fmt '%.0f' "$(medexpr "$D/prep-$p" '$5 / 1024')") MB"
        row "4" "first screen, $what ($p): header / first function ranked (s, tmux); profil's peak memory" \
            "$(fmt '%.3f' "$h") s / $(fmt '%.3f' "$fn") s; $(fmt '%.0f' "$m") MB" "$pref" "$target" "$verd"
        local s=$D/st-$p
        row "4" "start-up without the screen ($p): until the clock starts / whole run of a 0 s program (s); peak memory" \
            "$(fmt '%.3f' "$(medexpr "$s" '$7')") s / $(fmt '%.3f' "$(medexpr "$s" '$2')") s; $(fmt '%.0f' "$(medexpr "$s" '$5 / 1024')") MB" \
            "-" "-" "-"
    done
    local name desc files
    for name in hour live1m gen1m; do
        case $name in
        hour) desc="1-hour session at 1 kHz (prfgen over shares)" ;;
        live1m) desc="real ${BENCH_SECONDS} s session of big1m at -b 1" ;;
        gen1m) desc="10-minute session at 1 kHz over big1m at -b 1 (prfgen)" ;;
        esac
        files=$(awk -v n="$name" '$1 == n { printf "%s buckets, %s samples, %s functions", $2, $3, $4 }' "$D/files" 2>/dev/null)
        files="$files, $(awk -v n="$name" '$1 == n { printf "%.1f MB", $2 / 1e6 }' "$D/sizes" 2>/dev/null)"
        local b=$D/rb-$name read
        read=$(medexpr "$b" '$2 / 1000')
        target=- verd=-
        if [ "$name" = hour ]; then
            target="loads < 0.2 s"
            verd=$(verdict ok "$read" '<' 0.2)
        fi
        row "4" "load $desc [$files]: read / --report whole / its peak memory" \
            "$(fmt '%.3f' "$read") s / $(fmt '%.3f' "$(medexpr "$D/rep-$name" '$2')") s / $(fmt '%.0f' "$(medexpr "$D/rep-$name" '$5 / 1024')") MB" \
            "-" "$target" "$verd"
        row "4" "replay $desc: two reads + replay_new / seek to the end / rank (s); replay peak memory" \
            "$(fmt '%.3f' "$(medexpr "$b" '($2 + $3 + $4) / 1000')") / $(fmt '%.3f' "$(medexpr "$b" '$5 / 1000')") / $(fmt '%.3f' "$(medexpr "$b" '$6 / 1000')") s; $(fmt '%.0f' "$(medexpr "$b" '$8 / 1024')") MB" \
            "-" "-" "$(awk '$11 != 1 { bad = 1 } END { print bad ? "END STATE DIFFERS" : "-" }' "$b" 2>/dev/null)"
        if [ -s "$D/rp-$name" ]; then
            local rp
            rp=$(medexpr "$D/rp-$name" '$2')
            target=- verd=-
            if [ "$name" = hour ]; then
                target="loads < 0.2 s, as profil --replay shows it"
                verd=$(verdict ok "$rp" '<' 0.2)
            fi
            row "4" "first replay screen, $desc (s, tmux); profil's peak memory" \
                "$(fmt '%.3f' "$rp") s; $(fmt '%.0f' "$(medexpr "$D/rp-$name" '$3 / 1024')") MB" "-" "$target" "$verd"
        fi
    done
}

table_nosyms() {
    local f=$D/nosyms t
    [ -s "$f" ] || return 0
    t=$(medexpr "$f" '$2')
    row "8" "--report of a $(awk '{ printf "%.2f", $1 / 1e6 }' "$D/nosyms-size") MB file whose 600,000 PCs have no symbol (each makes its function up): wall / peak memory" \
        "$(fmt '%.2f' "$t") s / $(fmt '%.0f' "$(medexpr "$f" '$3 / 1024')") MB$(awk '$4 != "exit:0" { bad = 1 } END { if (bad) printf " (SOME RUNS FAILED)" }' "$f")" \
        "-" "< 10 s (it did not finish in 120 s)" "$(verdict ok "$t" '<' 10)"
}

table_limit() {
    local drv us lost worst yield best desc all
    for drv in perf ptrace; do
        best=none desc="" all=1
        for us in 1000 500 200 100 60; do
            local f=$D/ov-$drv:$us
            lost=$(medexpr "$f" '$18')
            worst=$(maxexpr "$f" '$18')
            yield=$(medexpr "$f" "100 * \$17 / (\$9 * 1e6 / $us)")
            desc="$desc${desc:+; }$us us: lost $(fmt '%d' "$lost") median, $(fmt '%d' "$worst") max, yield $(fmt '%.0f' "$yield") %"
            # Sustained: no run lost anything here nor at any longer sample time.
            if [ "$all" = 1 ] && ok "$worst" '<=' 0; then
                best=$us
            else
                all=0
            fi
        done
        row "5" "sampling limit, $drv driver: smallest sample time with 0 lost in every run (shares); lost and yield (samples / expected) per sample time" \
            "$([ "$best" = none ] && echo 'none of 1000..60 us' || echo "$best us") ($desc)" "-" "-" "-"
    done
    if [ -s "$D/ov-rec:60" ]; then
        row "5" "perf record lost samples at 1000 / 100 / 60 us (max)" "-" \
            "$(fmt '%d' "$(maxexpr "$D/ov-rec:1000" '$18')") / $(fmt '%d' "$(maxexpr "$D/ov-rec:100" '$18')") / $(fmt '%d' "$(maxexpr "$D/ov-rec:60" '$18')")" "-" "-"
    fi
}

# stk_ratios FILE BASE: "cpu C, program P [spread], whole W" against BASE.
stk_ratios() {
    echo "cpu $(fmt '%.3f' "$(ratio "$1" 10 "$2" 10)")$(spread "$1" 10 "$2" 10), program $(fmt '%.3f' "$(ratio "$1" 9 "$2" 9)")$(spread "$1" 9 "$2" 9), whole $(fmt '%.3f' "$(ratio "$1" 2 "$2" 2)")"
}
# stk_start FILE: the median start-up (fork to the program's first
# constructor) and end (the program's exit to wait4's return), in ms.
stk_start() {
    echo "start $(fmt '%.1f' "$(medexpr "$1" '($11 - $8) * 1000')") ms, end $(fmt '%.0f' "$(medexpr "$1" '($8 + $2 - $12) * 1000')") ms"
}
stk_name() {
    case $1 in
    d10) echo "deep 10" ;;
    d300) echo "deep 300" ;;
    *) echo "$1" ;;
    esac
}

table_stacks() {
    local wl cfg f b dw fp ref cpu rcpu target v name kib
    for wl in d10 d300 shares; do
        b=$D/sk-$wl-bare name=$(stk_name "$wl")
        [ -s "$b" ] || continue
        row "6" "stacks at 1 kHz, $name, bare: the program's wall / cpu (s)" \
            "$(fmt '%.3f' "$(medexpr "$b" '$9')") / $(fmt '%.3f' "$(medexpr "$b" '$10')") s" "-" "-" "-"
        for cfg in perf ptrace perf64; do
            f=$D/sk-$wl-$cfg
            [ -s "$f" ] || continue
            dw=$D/sk-$wl-dwarf kib=8
            [ "$cfg" = perf64 ] && dw=$D/sk-$wl-dwarf64 kib=64
            fp=$D/sk-$wl-fp
            cpu=$(ratio "$f" 10 "$b" 10)
            ref=- target=- v=-
            if [ -s "$dw" ]; then
                rcpu=$(ratio "$dw" 10 "$b" 10)
                ref="--call-graph dwarf$([ "$kib" = 64 ] && echo ',65528'): $(stk_ratios "$dw" "$b"); $(stk_start "$dw"); fp: $(stk_ratios "$fp" "$b")"
                target="program's cpu <= under perf record --call-graph dwarf"
                v=$(verdict ok "$cpu" '<=' "$rcpu")
                ok "$(ratio "$f" 9 "$b" 9)" '<=' "$(ratio "$dw" 9 "$b" 9)" && v="$v (wall: met)" || v="$v (wall: MISSED)"
            fi
            row "6" "slowdown at 1 kHz with stacks ($kib KiB), $name, $cfg driver: ratios to bare of the program's cpu, its wall [min-max], the whole run; start-up, end; profil's own cpu; samples (lost, max)" \
                "$(stk_ratios "$f" "$b"); $(stk_start "$f"); profil's own cpu $(fmt '%.1f' "$(medexpr "$f" '100 * ($3 + $4 - $10) / $2')") % of a core; $(fmt '%d' "$(medexpr "$f" '$17')") samples ($(fmt '%d' "$(maxexpr "$f" '$18')") lost)" \
                "$ref" "$target" "$v"
        done
    done
    for wl in d10 d300 shares; do
        name=$(stk_name "$wl")
        for cfg in perf ptrace perf64; do
            f=$D/sk-$wl-$cfg
            [ -s "$f" ] || continue
            kib=8
            [ "$cfg" = perf64 ] && kib=64
            row "6" "unwinding per sample (META), $name, $cfg driver, $kib KiB: median / p99 us (medians over runs; largest p99); stacks cut at the copy's end; largest depth" \
                "$(fmt '%.1f' "$(medexpr "$f" '$15')") / $(fmt '%.1f' "$(medexpr "$f" '$16')") us ($(fmt '%.1f' "$(maxexpr "$f" '$16')") max); $(fmt '%.1f' "$(medexpr "$f" '100 * $19 / ($21 > 0 ? $21 : 1)')") % truncated; $(fmt '%d' "$(medexpr "$f" '$20')") frames" \
                "-" "-" "-"
        done
    done
    for wl in d10 d300 shares; do
        name=$(stk_name "$wl")
        for cfg in on on64 off; do
            f=$D/skfe-$wl-$cfg
            [ -s "$f" ] || continue
            target=- v=-
            if [ "$cfg" != off ]; then
                target="< 5 % of a core"
                v=$(verdict ok "$(medexpr "$f" '$2')" '<' 5)
            fi
            row "6" "front end, screen at 10 Hz, 1 kHz, $name, $(case $cfg in on) echo 'stacks (8 KiB)' ;; on64) echo 'stacks (64 KiB)' ;; off) echo '--no-stacks' ;; esac): profil's CPU, % of a core, median (max); samples (lost, max)" \
                "$(fmt '%.2f' "$(medexpr "$f" '$2')") % ($(fmt '%.2f' "$(maxexpr "$f" '$2')") %); $(fmt '%d' "$(medexpr "$f" '$3')") ($(fmt '%d' "$(maxexpr "$f" '$4')") lost)" \
                "-" "$target" "$v"
        done
    done
    local pr dr
    for wl in d10 d300 shares; do
        name=$(stk_name "$wl")
        for cfg in perf perf64; do
            f=$D/sk-$wl-$cfg
            [ -s "$f" ] || continue
            dw=$D/sk-$wl-dwarf kib=8
            [ "$cfg" = perf64 ] && dw=$D/sk-$wl-dwarf64 kib=64
            fp=$D/sk-$wl-fp
            # Bytes per minute of the program's wall time.
            pr=$(medexpr "$f" '$13 * 60 / $9 / 1e6')
            ref=- target=- v=-
            if [ -s "$dw" ]; then
                dr=$(medexpr "$dw" '$13 * 60 / $9 / 1e6')
                ref="perf.data, --call-graph dwarf$([ "$kib" = 64 ] && echo ',65528'): $(fmt '%.2f' "$dr") MB/min, x$(fmt '%.0f' "$(awk -v a="$dr" -v b="$pr" 'BEGIN { print a / b }')") the .PRF; fp: $(fmt '%.3f' "$(medexpr "$fp" '$13 * 60 / $9 / 1e6')") MB/min"
                target=".PRF >= 20x smaller than perf.data (dwarf)"
                v=$(verdict ok "$(awk -v a="$dr" -v b="$pr" 'BEGIN { print a / b }')" '>=' 20)
            fi
            row "6" "bytes written per minute at 1 kHz, $name, perf driver, $kib KiB stacks (file size / the program's wall time)" \
                "$(fmt '%.3f' "$pr") MB/min ($(fmt '%.0f' "$(medexpr "$f" '$13')") bytes for $(fmt '%.2f' "$(medexpr "$f" '$9')") s)" "$ref" "$target" "$v"
        done
    done
    local lost=0 n=0
    for f in "$D"/sk-*-perf "$D"/sk-*-ptrace "$D"/sk-*-perf64 "$D"/sk-shares-ns:1000 "$D"/skfe-*; do
        [ -s "$f" ] || continue
        case $f in */skfe-*) v=$(maxexpr "$f" '$4') ;; *) v=$(maxexpr "$f" '$18') ;; esac
        ok "$v" '>' "$lost" && lost=$v
        n=$((n + $(wc -l <"$f")))
    done
    row "6" "samples lost at 1 kHz: the largest count in any of profil's runs of this part" \
        "$lost lost (in $n runs)" "-" "no sample lost" "$(verdict ok "$lost" '<=' 0)"
    b=$D/sk-shares-bare
    local us hz nb rc
    for us in 1000 100; do
        f=$D/sk-shares-ns:$us nb=$D/sk-shares-nbpf:$us rc=$D/sk-shares-rec:$us
        [ -s "$f" ] || continue
        hz=$((1000 / us))
        ref=- target=- v=-
        if [ -s "$nb" ]; then
            ref="--no-bpf-event: $(stk_ratios "$nb" "$b"); $(stk_start "$nb"); plain perf record: $(stk_ratios "$rc" "$b"); $(stk_start "$rc")"
            target="program's cpu <= under perf record --no-bpf-event"
            v=$(verdict ok "$(ratio "$f" 10 "$b" 10)" '<=' "$(ratio "$nb" 10 "$b" 10)")
            ok "$(ratio "$f" 9 "$b" 9)" '<=' "$(ratio "$nb" 9 "$b" 9)" && v="$v (wall: met)" || v="$v (wall: MISSED)"
        fi
        row "6" "without stacks (--no-stacks), shares, $hz kHz, perf driver: ratios to bare of the program's cpu, its wall [min-max], the whole run; start-up, end; samples (lost, max)" \
            "$(stk_ratios "$f" "$b"); $(stk_start "$f"); $(fmt '%d' "$(medexpr "$f" '$17')") samples ($(fmt '%d' "$(maxexpr "$f" '$18')") lost)" \
            "$ref" "$target" "$v"
    done
    f=$D/sk-true-ns:1000
    if [ -s "$f" ]; then
        ref=-
        [ -s "$D/sk-true-nbpf:1000" ] && ref="perf record --no-bpf-event: $(fmt '%.1f' "$(medexpr "$D/sk-true-nbpf:1000" '$2 * 1000')") ms; plain perf record: $(fmt '%.1f' "$(medexpr "$D/sk-true-rec:1000" '$2 * 1000')") ms"
        row "6" "start-up: wall time of profiling /bin/true at 1 kHz without stacks, fork to wait4 (bare /bin/true: $(fmt '%.1f' "$(medexpr "$D/sk-true-bare" '$2 * 1000')") ms)" \
            "$(fmt '%.1f' "$(medexpr "$f" '$2 * 1000')") ms" "$ref" "-" "-"
    fi
    f=$D/sk-true-perf
    if [ -s "$f" ]; then
        local ms
        ms=$(medexpr "$f" '$2 * 1000')
        row "6" "start-up at the defaults (stacks, perf driver): wall time of profiling /bin/true at 1 kHz, fork to wait4" \
            "$(fmt '%.1f' "$ms") ms" "-" "<= 20 ms (issue 26)" \
            "$(ok "$ms" '<=' 20 && echo met || echo MISSED)"
    fi
}

# --- main -----------------------------------------------------------------------

# Size shares to BENCH_SECONDS: 10 rounds once, then scale.
rm -f "$W/cal"
"$SHARES" 2 >/dev/null
BENCH_TIMES=$W/cal "$SHARES" 10 >/dev/null
ROUNDS=$(awk -v s="$BENCH_SECONDS" '{ r = int(10 * s / $1 + 0.5) } END { print (r < 1 ? 1 : r) }' "$W/cal")
SLICES=$(awk -v s="$BENCH_SECONDS" 'BEGIN { n = int(10 * s + 0.5); print (n < 1 ? 1 : n) }')
tm -f /dev/null new-session -d -s keep -x 120 -y 40 "sleep 100000"

machine | tee "$W/machine" >&2
for part in overhead sleeper loaded frontend scale stacks unwind nosyms; do
    if only "$part"; then
        t=$SECONDS
        "$part"
        echo "$part $((SECONDS - t))" >>"$D/durations"
    fi
done

{
    echo "| part | measurement | profil | perf reference | target | verdict |"
    echo "| --- | --- | --- | --- | --- | --- |"
} >"$TABLE"
only overhead && table_overhead
{ only overhead || only sleeper; } && table_accuracy
only loaded && table_loaded
only frontend && table_frontend
only scale && table_scale
only stacks && table_stacks
only overhead && table_limit
only nosyms && table_nosyms

echo
cat "$W/machine"
echo "took:      $((SECONDS - T_START)) s ($(awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $1, $2 }' "$D/durations"))"
# The main table, unless only unwinding was measured.
main_table=0
for part in overhead sleeper loaded frontend scale stacks nosyms; do
    only "$part" && main_table=1
done
[ "$main_table" = 1 ] || : >"$TABLE"
echo
cat "$TABLE"
# Unwinding has a table of its own (docs/performance.md, "Unwinding").
if only unwind && [ -s "$D/unw" ]; then
    { echo; cat "$D/unw"; } >>"$TABLE.unw"
    cat "$TABLE.unw"
fi
if [ -n "${BENCH_TABLE:-}" ]; then
    { cat "$W/machine"; echo; cat "$TABLE"; cat "$TABLE.unw" 2>/dev/null; } >"$BENCH_TABLE"
fi
exit 0
