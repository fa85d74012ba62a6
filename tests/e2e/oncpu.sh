#!/bin/sh
# oncpu.sh - on-CPU time (the o key, --on-cpu).  tests/progs/threads runs
# three threads of the same busy loop while main waits in pthread_join.
# Under the wall clock the waits are sampled too: a blocked thread's stack
# ends in [blocked], and each thread_* is a sixth of the samples or less.
# With the waits left out each is a third, live, in a replay, in --report
# and in the exports, and the saved session still holds every sample.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 47

# pct FILE NAME [OPTION...]: NAME's Self share of the report, in %.
pct() {
    _f=$1 _n=$2
    shift 2
    "$PROFIL" --report --json "$@" "$_f" |
        jq -r --arg n "$_n" '[.functions[] | select(.name == $n) | .self_pct] + [0] | .[0]'
}

F="$T/w.PRF"
run "$PROFIL" --no-tui -b 1 -t 1000 --clock=wall -o "$F" "$PROGS/threads" 150000000 </dev/null
is "$rc" 0 "threads runs under the wall clock"
blocked=$(json "$F" '[.functions[] | select(.kind == "blocked") | .total] | add // 0')
total=$(json "$F" .counters.total)
cmp_ok "$(calc "100 * $blocked / $total")" ">=" 20 \
    "the waits have a frame of their own, [blocked] ($blocked of $total)"
is "$(json "$F" '[.functions[] | select(.name == "[blocked]") | .self] | add')" 0 \
    "[blocked] has no Self: the report counts waits as I/O"
is "$(json "$F" '.on_cpu')" false "the JSON says all time is shown"
a=$(pct "$F" thread_a)
cmp_ok "$a" "<" 24 "all time: thread_a is less than a quarter ($a %)"

# --report --on-cpu
run "$PROFIL" --report --on-cpu "$F"
is "$rc" 0 "--report --on-cpu exits 0"
like "$out" '  On CPU: only the samples of threads that ran \(--on-cpu\)' "the report says on-CPU only"
is "$("$PROFIL" --report --json --on-cpu "$F" | jq .on_cpu)" true "the JSON says on_cpu"
for fn in thread_a thread_b thread_c; do
    p=$(pct "$F" "$fn" --on-cpu)
    near "$p" 33 8 "--on-cpu: $fn is a third ($p %)"
done
is "$("$PROFIL" --report --json --on-cpu "$F" |
    jq '[.functions[] | select(.name == "[blocked]" and .total > 0)] | length')" \
    0 "--on-cpu: [blocked] is in no Total"
# main's wait in pthread_join (a futex) was a third or more of all time; on
# a CPU, a futex call is only the moments a thread makes one.
fx=$("$PROFIL" --report --json --on-cpu "$F" |
    jq '[.functions[] | select(.name | test("futex")) | .total_pct] | max // 0')
cmp_ok "$fx" "<" 5 "--on-cpu: the futex waits are gone (largest futex Total $fx %)"
on_total=$("$PROFIL" --report --json --on-cpu "$F" | jq .counters.total)
cmp_ok "$on_total" "<" "$total" "--on-cpu: fewer samples than all time ($on_total of $total)"
io=$("$PROFIL" --report --json --on-cpu "$F" | jq .counters.io)
cmp_ok "$(calc "100 * $io / $on_total")" "<" 15 "--on-cpu: I/O is the kernel's own time only ($io)"

# The exports: [blocked] on top of a wait's stack; --on-cpu leaves it out.
run "$PROFIL" --export=folded -o "$T/all.folded" "$F"
is "$rc" 0 "--export=folded exits 0"
fb=$(awk '/;\[blocked\] [0-9]+$/ { n += $NF } END { print n + 0 }' "$T/all.folded")
is "$fb" "$blocked" "folded: the stacks ending in [blocked] hold the report's waits"
has "$(grep -F '[blocked]' "$T/all.folded" | head -n 1)" "pthread_clockjoin_ex;" \
    "folded: main's wait in pthread_join ends in [blocked]"
run "$PROFIL" --export=folded --on-cpu -o "$T/on.folded" "$F"
is "$rc" 0 "--export=folded --on-cpu exits 0"
is "$(grep -c -F '[blocked]' "$T/on.folded")" 0 "folded --on-cpu: no [blocked]"
all_n=$(awk '{ n += $NF } END { print n }' "$T/all.folded")
on_n=$(awk '{ n += $NF } END { print n }' "$T/on.folded")
is "$((all_n - on_n))" "$blocked" "folded --on-cpu: what is left out is the waits, no more"
run "$PROFIL" --export=pprof --on-cpu -o "$T/on.pb.gz" "$F"
is "$rc" 0 "--export=pprof --on-cpu exits 0"

# A re-saved file is the recorded run whatever the view: --merge of the file
# with itself doubles every count, waits included.
run "$PROFIL" --merge "$F" "$F" -o "$T/twice.PRF"
is "$rc" 0 "the file merges with itself"
is "$(json "$T/twice.PRF" '[.functions[] | select(.name == "[blocked]") | .total] | add')" \
    "$((2 * blocked))" "[blocked] is kept in the file (merged twice: twice the waits)"

# The screen: a replay, then a live run.
use_tmux
rank='[0-9]{2}:[0-9]{2}\.[0-9]{3} +'
tm -f /dev/null new-session -d -s s -x 130 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
tm send-keys -t s "cd '$T'; $PROFIL w.PRF; echo EXIT=\$?" Enter
ok "replay: the screen comes up" wait_for 'profil REPLAY' 10
tm send-keys -t s G 2
ok "replay: at the end" wait_for 'replay end' 5
ok "replay: [blocked] is in the ranking" wait_for "${rank}\[blocked\] " 5
tm send-keys -t s o
ok "replay: o shows on-CPU time only" wait_for 'on-CPU time only \(o: all\)' 5
ok "replay: thread_a's Self is a third" wait_for "${rank}thread_[abc] +(2[5-9]|3[0-9]|4[01])\.[0-9]{2}%" 5
unlike "$(screen)" "${rank}\[blocked\] " "replay: [blocked] has left the ranking"
tm send-keys -t s ,
ok "replay: a step back keeps on-CPU time" wait_for 'on-CPU time only \(o: all\)' 5
tm send-keys -t s G o
ok "replay: o again shows all time: [blocked] again" wait_for "${rank}\[blocked\] " 5
ok "replay: and the header no longer says on-CPU" gone 'on-CPU time only' 5
tm send-keys -t s q
ok "replay: q leaves" wait_for '^EXIT=0' 5

# A program that mostly sleeps: the header says so, and names the key.
run "$PROFIL" --no-tui -b 1 -t 1000 --clock=wall -o "$T/s.PRF" "$PROGS/sleeper" </dev/null
is "$rc" 0 "sleeper runs under the wall clock"
tm send-keys -t s "clear; $PROFIL s.PRF; echo EXIT=\$?" Enter
ok "replay of sleeper: the header says most samples are waits and names o" \
    wait_for '(mostly waits: o shows on-CPU time|  o: on-CPU  )' 10
tm send-keys -t s q
ok "replay of sleeper: q leaves" wait_for '^EXIT=0' 5

tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 --clock=wall -o live.PRF $PROGS/threads 2000000000; echo EXIT=\$?" Enter
ok "live: the screen comes up" wait_for ' running *$' 10
tm send-keys -t s 2
ok "live: thread_a ranks" wait_for "${rank}thread_a " 10
tm send-keys -t s o
ok "live: o shows on-CPU time only" wait_for 'on-CPU time only \(o: all\)' 5
# Samples go on coming in: the ranking, counted as they come, stays a third each.
sleep 1
ok "live: thread_a's Self is a third of what is shown" \
    wait_for "${rank}thread_a +(2[5-9]|3[0-9]|4[01])\.[0-9]{2}%" 5
tm send-keys -t s q
ok "live: q asks or leaves" wait_for '(Stop it and quit\? \(y/n\)|^EXIT=)' 10
tm send-keys -t s y
ok "live: q leaves" wait_for '^EXIT=' 10
ok "live: the file holds the waits whatever the view" \
    test "$(json "$T/live.PRF" '[.functions[] | select(.name == "[blocked]") | .total] | add // 0')" -gt 0

# The CPU clock samples no wait: o says so.
tm send-keys -t s "clear; $PROFIL -b 1 -t 1000 --clock=cpu -o cpu.PRF $PROGS/threads 50000000; echo EXIT=\$?" Enter
ok "cpu: the program ends on the screen" wait_for 'ended *$' 15
tm send-keys -t s o
ok "cpu: o says the CPU clock never samples a wait" wait_for 'the CPU clock never samples a wait' 5
tm send-keys -t s q
ok "cpu: q leaves" wait_for '^EXIT=0' 5

done_testing
