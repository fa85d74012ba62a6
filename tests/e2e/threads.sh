#!/bin/sh
# threads.sh - who ran: each process and thread of a run, with its samples,
# its time on a CPU and blocked, its own program and its exit, in the JSON,
# the report and the Threads view; --tid, --pid and --comm (and Enter in
# the Threads view) make every number that thread's or process's.
#
# tests/progs/crew: three threads, renamed from "crew-new" to alpha, beta
# and gamma, do 5:3:2 of the work in work_alpha, work_beta and work_gamma,
# and print each one's share of their CPU time by their own clocks.
# tests/progs/spawner: a parent that runs exitcode (exit 3), then shares.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 106

# tid NAME FILE: the tid of the thread named NAME in FILE.
tid() {
    json "$2" --arg n "$1" '[.threads[] | select(.name == $n) | .tid] | first // empty'
}

for driver in perf ptrace; do
    if [ "$driver" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 22 "$driver: threads" perf-refused "$(perf_refused)"
        continue
    fi
    F="$T/crew-$driver.PRF"
    run "$PROFIL" --no-tui --driver "$driver" --clock cpu -b 1 -t 1000 -o "$F" "$PROGS/crew" 40 </dev/null
    is "$rc" 0 "$driver: crew runs and is saved"
    for n in alpha beta gamma; do
        truth=$(printf '%s\n' "$out" | sed -n "s/^crew: $n \\([0-9.]*\\)%\$/\\1/p")
        # Each thread's CPU samples, as a share of the three's.
        share=$(json "$F" --arg n "$n" \
            '([.threads[] | select(.name == "alpha" or .name == "beta" or .name == "gamma") | .on_cpu] | add) as $all
             | [.threads[] | select(.name == $n) | .on_cpu] | add // 0 | 100 * . / $all')
        diag "$driver: $n: $share % of the crew's CPU samples, $truth % by its own clock"
        near "$share" "$truth" 3 "$driver: thread $n's share is its own clock's within 3 points"
    done
    is "$(json "$F" '[.threads[].name] | sort | join(" ")')" "alpha beta crew gamma" \
        "$driver: the threads are named as the program renamed them"
    is "$(json "$F" '[.threads[] | .pid] | unique | length')" 1 "$driver: all of one process"
    is "$(json "$F" '.processes | length')" 1 "$driver: one process"
    like "$(json "$F" '.processes[0].exe')" '/crew$' "$driver: its executable is crew"
    is "$(json "$F" '.processes[0].exit')" 0 "$driver: it exited 0"
    is "$(json "$F" '.processes[0].args | join(" ")')" "$PROGS/crew 40" "$driver: with its arguments"
    is "$(json "$F" '. as $r | [.threads[].samples] | add == $r.counters.total')" true \
        "$driver: the threads' samples add up to the total"
    cmp_ok "$(json "$F" '[.threads[] | select(.name == "alpha") | .program * 100 / .on_cpu] | first')" \
        ">=" 95 "$driver: alpha's samples are in its own program"

    # --tid: every number is alpha's.
    a=$(tid alpha "$F")
    run "$PROFIL" --report --json --tid "$a" "$F"
    is "$rc" 0 "$driver: --tid works"
    printf '%s\n' "$out" >"$T/alpha.json"
    is "$(jq -r '[.functions[].name | select(startswith("work_"))] | join(" ")' "$T/alpha.json")" "work_alpha" \
        "$driver: --tid alpha: of the work routines, only work_alpha"
    is "$(jq -r '.counters.total' "$T/alpha.json")" \
        "$(json "$F" --arg t "$a" '.threads[] | select(.tid == ($t | tonumber)) | .samples')" \
        "$driver: --tid alpha: the total is alpha's samples"
    like "$(jq -r '.filter' "$T/alpha.json")" "^thread $a \\(alpha\\)\$" "$driver: the JSON says the filter"
    run "$PROFIL" --report --comm beta "$F"
    like "$out" 'Filter: threads named beta' "$driver: --comm beta: the report says so"
    like "$out" ' work_beta ' "$driver: --comm beta: work_beta is ranked"
    unlike "$out" ' work_(alpha|gamma) ' "$driver: --comm beta: the others are not"
    run "$PROFIL" --report --json --pid "$(json "$F" '.processes[0].pid')" "$F"
    is "$(printf '%s\n' "$out" | jq -r '.counters.total')" "$(json "$F" .counters.total)" \
        "$driver: --pid of the program: everything"
    run "$PROFIL" --report --json --by-thread "$F"
    is "$(printf '%s\n' "$out" | jq -r --arg t "$a" \
        '.functions[] | select(.name == "work_alpha") | .by_thread | map(.tid) | join(" ")')" "$a" \
        "$driver: --by-thread: work_alpha's samples are all alpha's"
    is "$(printf '%s\n' "$out" | jq -r '[.functions[] | (.by_thread | map(.samples) | add // 0) <= .samples] | all')" \
        true "$driver: --by-thread: no function's split exceeds its samples"
done

# Wall clock: the main thread blocks in pthread_join, and the times say so
# beside the elapsed time.
F="$T/crew-wall.PRF"
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$F" "$PROGS/crew" 40 </dev/null
is "$rc" 0 "wall: crew runs"
cmp_ok "$(json "$F" '.threads[] | select(.name == "crew") | .blocked * 100 / .samples')" ">=" 90 \
    "wall: the main thread was blocked (joining) for most of its samples"
is "$(json "$F" '(.times.on_cpu_s + .times.blocked_s) * 1000 | round')" \
    "$(json "$F" '.counters.total')" "wall: on CPU and blocked time add up to the samples"
cmp_ok "$(json "$F" '.times.on_cpu_s + .times.blocked_s')" ">" "$(json "$F" '.times.elapsed_s')" \
    "wall: summed over threads, they exceed the elapsed time"
run "$PROFIL" --report "$F"
like "$out" 'Times: [0-9.]+ s elapsed; [0-9.]+ s on a CPU and [0-9.]+ s blocked, summed over 4 threads' \
    "wall: the report gives the elapsed time and the times summed over threads"
like "$out" '^[0-9]+ +crew +[0-9]+ .*/crew \(exit 0\)$' "wall: the report lists the process"
like "$out" '^ +[0-9]+ +alpha +[0-9]+ ' "wall: and its threads under it"

# A parent and the two programs it runs.
for driver in perf ptrace; do
    if [ "$driver" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 12 "$driver: processes" perf-refused "$(perf_refused)"
        continue
    fi
    F="$T/spawner-$driver.PRF"
    run "$PROFIL" --no-tui --driver "$driver" -b 1 -t 1000 -o "$F" "$PROGS/spawner" \
        "$PROGS/exitcode" "$PROGS/shares" </dev/null
    is "$rc" 0 "$driver: spawner runs"
    is "$(json "$F" '[.processes[].exe | split("/") | last] | join(" ")')" "spawner exitcode shares" \
        "$driver: three processes, each with its own executable"
    is "$(json "$F" '.processes[0].pid as $p | [.processes[1:][] | .ppid == $p] | all')" true \
        "$driver: the children's parent is spawner"
    for p in exitcode shares; do
        cmp_ok "$(json "$F" --arg p "$p" '.processes[] | select(.exe | endswith("/" + $p)) | .program * 100 / .samples')" \
            ">=" 90 "$driver: $p's samples count as its own program"
    done
    is "$(json "$F" '.processes[0].exit')" 0 "$driver: spawner's exit status"
    if [ "$driver" = ptrace ]; then
        is "$(json "$F" '[.processes[1:][] | .exit] | join(" ")')" "3 0" \
            "ptrace: each child's exit status (3 and 0)"
    else
        # The kernel's exit record carries no status: said, not made up.
        is "$(json "$F" '[.processes[1:][] | .exit] | map(tostring) | join(" ")')" "null null" \
            "perf: a child's exit status is unknown, and the JSON says null"
    fi
    run "$PROFIL" --report --json --pid "$(json "$F" '.processes[] | select(.exe | endswith("/shares")) | .pid')" "$F"
    is "$(printf '%s\n' "$out" | jq -r '[.functions[].name | select(startswith("work_") or . == "parent_work")] | sort | join(" ")')" \
        "work_a work_b work_c" "$driver: --pid of shares: its routines only"
    like "$(printf '%s\n' "$out" | jq -r '.program_area')" '/shares$' \
        "$driver: --pid of shares: its executable is the program area"
    cmp_ok "$(printf '%s\n' "$out" | jq -r '.counters.program * 100 / .counters.total')" ">=" 90 \
        "$driver: --pid of shares: its own code counts as Program"
    is "$(printf '%s\n' "$out" | jq -r '.counters.program == ([.buckets[]] | add)')" true \
        "$driver: --pid of shares: and Program is the sum of its buckets"
    like "$(json "$F" '.program_area')" '/spawner$' "$driver: unfiltered, the program area is spawner's"
done

# Many processes: the end-of-run report lists the 20 with the most samples
# and says how many more; --report lists them all.  Each of the 40 runs for
# ~10 ms, so that every one has samples (the report leaves out processes
# with none: /bin/true's 0.5 ms left 1-20 of 40 with a sample at 1 ms).
printf '#!/bin/sh\ni=0\nwhile [ $i -lt 40 ]; do "%s" 10 >/dev/null; i=$((i + 1)); done\n' \
    "$PROGS/sieve" >"$T/many.sh"
chmod +x "$T/many.sh"
run "$PROFIL" --no-tui -b 1 -t 1000 -a '' -o "$T/many.PRF" "$T/many.sh" </dev/null
is "$rc" 0 "many: a shell running sieve 40 times"
is "$(json "$T/many.PRF" '.processes | length')" 41 "many: 41 processes in the session"
rows=$(printf '%s\n' "$out" | sed -n '/^PID  *TID/,/^On CPU/p' | grep -c '^[0-9]')
is "$rows" 20 "many: the end-of-run report lists 20 of the 41 processes"
like "$out" '^\.\.\. +\([0-9]+ more processes, [0-9]+ samples: profil --report shows them all\)$' \
    "many: and says how many more"
run "$PROFIL" --report "$T/many.PRF"
is "$(printf '%s\n' "$out" | sed -n '/^PID  *TID/,/^On CPU/p' | grep -c '^[0-9]')" 41 \
    "many: --report lists them all"

# Errors: one line, and a status.
F="$T/crew-perf.PRF"
[ -f "$F" ] || F="$T/crew-ptrace.PRF"
run "$PROFIL" --report --tid 1 "$F"
is "$rc" 1 "--tid of no thread: exit 1"
is "$err" "profil: $F: no thread 1 in the session" "--tid of no thread: one line says so"
run "$PROFIL" --report --comm nobody "$F"
is "$err" "profil: $F: no thread named nobody in the session" "--comm of no thread: one line says so"
run "$PROFIL" --tid 5 "$PROGS/crew" </dev/null
is "$rc" 2 "--tid without --report: a usage error"
like "$err" '^profil: --tid goes with --report and the replay$' "and says what it goes with"
run "$PROFIL" --report --by-thread "$F"
is "$rc" 2 "--by-thread without --json: a usage error"
run "$PROFIL" --report --tid x "$F"
is "$rc" 2 "--tid x: a usage error"

# The Threads view: a row per thread under its process; Enter filters every
# view to that thread; Esc shows them all again.
use_tmux
tm -f /dev/null new-session -d -s s -x 180 -y 40 "env PS1='$ ' LC_ALL=C.UTF-8 sh"
tm send-keys -t s "cd '$T'; $PROFIL -b 1 -t 1000 -o live.PRF $PROGS/crew 400; echo EXIT=\$?" Enter
ok "live: the screen comes up" wait_for ' running *$' 10
tm send-keys -t s 8
ok "live: 8 shows the Threads view" wait_for '^ Threads .*Enter filters' 5
ok "live: alpha has its row, with its state" wait_for '^ +[0-9]+ +alpha +[0-9]+ +[0-9.]+% +[0-9.]+% +[0-9.]+% +R' 5
ok "live: the process row says it runs, and names the executable" \
    wait_for '^[0-9]+ +crew .* running, own code [0-9]+%: .*/crew' 3
tm send-keys -t s / beta Enter
tm send-keys -t s Enter
ok "live: Enter on beta filters every view to it" wait_for 'only thread [0-9]+ \(beta\) \(Esc: all\)' 5
# A row of the ranking: its Time, then the routine (the histogram's labels
# name unsampled buckets too).
rank='[0-9]{2}:[0-9]{2}\.[0-9]{3} +'
tm send-keys -t s 2
ok "live: the ranking shows work_beta" wait_for "${rank}work_beta " 5
unlike "$(screen)" "${rank}work_(alpha|gamma) " "live: and not the other threads' routines"
tm send-keys -t s Escape
ok "live: Esc shows every thread again" wait_for "${rank}work_alpha " 5
unlike "$(screen)" 'only thread' "live: the header no longer says only"
tm send-keys -t s 8 / beta Enter Enter
ok "live: filtered again" wait_for 'only thread [0-9]+ \(beta\)' 5
# A time window keeps the thread filter: the two combine, and the header
# says both, with the rate over the window (issue 24).
tm send-keys -t s 3 End Left Left Left Left Left '{'
ok "live: { starts a window in the Timeline" wait_for 'window from [0-9.]+ s: } ends it' 3
tm send-keys -t s Right Right '}'
ok "live: } ends it, and the header says the thread and the window" \
    wait_for 'only thread [0-9]+ \(beta\) in [0-9.]+-[0-9.]+ s \(Esc: all\)' 3
tm send-keys -t s 2
ok "live: in the window, the ranking shows work_beta" wait_for "${rank}work_beta " 5
unlike "$(screen)" "${rank}work_(alpha|gamma) " "live: and still not the other threads' routines"
H=$(screen | grep -E ' samples [0-9]+ ' | head -n 1)
n=$(printf '%s\n' "$H" | sed -n 's/.* samples \([0-9]*\) .*/\1/p')
r=$(printf '%s\n' "$H" | sed -n 's/.* samples [0-9]* (\([0-9]*\)\/s avg).*/\1/p')
w=$(printf '%s\n' "$H" | sed -n 's/.* in \([0-9.]*\)-\([0-9.]*\) s (Esc: all).*/\2 - \1/p')
near "${r:-x}" "$(calc "${n:-0} / (${w:-1})")" 1 \
    "live: the header's rate is over the window (${n:-?} samples in ${w:-?} s: ${r:-?}/s)"
tm resize-window -t s -x 80 -y 24
ok "live: at 80 columns the header still says both" \
    wait_for '^ .*samples [0-9]+ .*only thread [0-9]+ \(beta\) in [0-9.]+-[0-9.]+ s' 3
tm resize-window -t s -x 180 -y 40
# q once the screen is back at 180 columns, y once it asks (in CI, q and y
# sent together right after the resize left profil running for 20 s).
wait_for 'only thread [0-9]+ \(beta\) in [0-9.]+-[0-9.]+ s \(Esc: all\)' 5 || diag "$(screen)"
tm send-keys -t s q
wait_for 'Stop it and quit\? \(y/n\)' 10 || diag "$(screen)"
tm send-keys -t s y
ok "live: q y stops the program and leaves" wait_for '^EXIT=' 20 || diag "$(screen)"
# The file holds the whole run whatever the screen showed.
cmp_ok "$(json "$T/live.PRF" '[.functions[] | select(.name == "work_alpha") | .samples] | add // 0')" ">" 0 \
    "live: the file saved while filtered keeps every thread's samples"
is "$(json "$T/live.PRF" '.filter')" null "live: and no filter"

done_testing
