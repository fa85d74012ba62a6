#!/bin/sh
# kinds.sh - where the time goes: PROFIL's Program / DOS (shared libraries)
# / I/O (blocked, and kernel mode) / high (anonymous code) counters, for
# programs built to land in each, and binaries of every kind (static,
# non-PIE, stripped), threads and a fork.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 50

# profile NAME [PROFIL-OPTION...] PROG ARG|--: run PROG at -b 1 -t 1000 into
# $T/NAME.PRF and its JSON report into $T/NAME.json; sets $J and $rc.
profile() {
    _name=$1
    shift
    run "$PROFIL" -b 1 -t 1000 -o "$T/$_name.PRF" "$@" </dev/null
    "$PROFIL" --report --json "$T/$_name.PRF" >"$T/$_name.json" 2>/dev/null
    J=$T/$_name.json
}
# c NAME: counters.NAME; nothing (and jq's error on stderr) when the report
# has no such counter, so that no arithmetic of calc takes it for 0.
c() { jq -r ".counters.$1 // error(\"no counters.$1 in the report\")" "$J"; }
pct() { calc "100 * $(c "$1") / ($(c total) > 0 ? $(c total) : 1)"; }
fn() { jq -r --arg f "$1" ".functions[] | select(.name == \$f) | .$2" "$J"; }

# ---------------------------------------------------------------------------
# libc string routines: DOS.  (~0.5 s)
profile libc "$PROGS/libcbound" 4300
is "$rc" 0 "libcbound: profil exits 0"
cmp_ok "$(pct dos)" ">=" 80 "libcbound: DOS >= 80 % of the samples"
is "$(jq -r '.functions[0].module' "$J")" libc.so.6 "libcbound: the top function is in libc.so.6"
# libc's string routines (__memset_avx2_unaligned_erms, ...) are named only in
# its .symtab, which Debian ships apart, in libc6-dbg.
libc=$(sed -n 's|^.* \(/.*/libc\.so\.6\)$|\1|p' /proc/self/maps | head -n 1)
if [ -n "$libc" ] && debug_file_of "$libc" >/dev/null; then
    like "$(jq -r '.functions[0].name' "$J")" '(mem|str)' "libcbound: the top function is a string routine"
else
    fail "libcbound: the top function is a string routine" \
        "needs libc's debug symbols (Debian: libc6-dbg) for ${libc:-libc.so.6}: its string routines are named only there"
fi
cmp_ok "$(jq -r '[.functions[] | select(.module == "libc.so.6") | .samples] | add' "$J")" ">=" \
    "$(calc "0.8 * $(c total)")" "libcbound: libc.so.6 functions hold >= 80 % of the samples"

# ---------------------------------------------------------------------------
# Mostly asleep: I/O with the wall clock, nearly nothing with the cpu clock.
# 20 slices of 10 ms spinning and 90 ms asleep, ~2 s.  With the cpu clock
# that is ~200 samples; kernel-mode ticks count as I/O there too, a few at
# start-up (seen up to 10 on a loaded machine), hence 20 slices, not 10.
profile sleepw "$PROGS/sleeper" 20
is "$rc" 0 "sleeper (wall): profil exits 0"
cmp_ok "$(pct io)" ">=" 75 "sleeper (wall): I/O >= 75 % of the samples"
is "$(jq -r '.functions[0].name' "$J")" spin "sleeper (wall): spin is the top function"
wall_total=$(c total)
cmp_ok "$wall_total" ">=" 1000 "sleeper (wall): the sleep is counted (>= 1000 samples in ~2 s)"

profile sleepc --clock cpu "$PROGS/sleeper" 20
is "$rc" 0 "sleeper (cpu): profil exits 0"
is "$(jq -r .clock "$J")" cpu "sleeper (cpu): clock cpu"
cmp_ok "$(pct io)" "<=" 10 "sleeper (cpu): I/O <= 10 % of the samples"
cmp_ok "$(c total)" "<=" "$(calc "0.4 * $wall_total")" \
    "sleeper (cpu): total <= 40 % of the wall clock's total"
is "$(jq -r '.functions[0].name' "$J")" spin "sleeper (cpu): spin is the top function"

# ---------------------------------------------------------------------------
# Code in anonymous memory: high.  (~0.8 s)
profile anon "$PROGS/anon" 1200000000
is "$rc" 0 "anon: profil exits 0"
cmp_ok "$(pct high)" ">=" 70 "anon: high >= 70 % of the samples"
is "$(fn native_work module)" anon "anon: native_work is credited to the program"

# ---------------------------------------------------------------------------
# Static, non-PIE and stripped builds of the sieve.  (~0.9 s each: start-up
# costs a few dozen I/O ticks on a loaded machine; 1500 rounds keep them
# well under 10 %.)
for kind in static nopie stripped; do
    prog=sieve-$kind
    profile "$kind" "$PROGS/$prog" 1500
    is "$rc" 0 "$prog: profil exits 0"
    cmp_ok "$(pct program)" ">=" 90 "$prog: program >= 90 % of the samples"
    is "$(jq -r '.buckets | add' "$J")" "$(c program)" "$prog: the buckets add up to the program counter"
    is "$(jq -r '.functions[0].module' "$J")" "$prog" "$prog: the top function is in $prog"
    if [ "$kind" = stripped ]; then
        is "$(fn markbit samples)" "" "$prog: no symbol names (no markbit)"
        like "$(jq -r '.functions[0].name' "$J")" "^sieve-stripped\\+0x[0-9a-f]+\$" \
            "$prog: routines are named sieve-stripped+0x..."
        is "$(jq -r '[.functions[] | select(.module == "sieve-stripped")
                      | select(.name | test("^sieve-stripped\\+0x[0-9a-f]+$") | not)] | length' "$J")" 0 \
            "$prog: every routine of the program is named sieve-stripped+0x..."
    else
        cmp_ok "$(fn markbit samples)" ">" 0 "$prog: markbit is listed"
        is "$(fn markbit module)" "$prog" "$prog: markbit is in $prog"
    fi
done

# ---------------------------------------------------------------------------
# Three threads with equal work on two cores.  (~1 s)
profile threads "$PROGS/threads" 500000000
is "$rc" 0 "threads: profil exits 0"
for f in thread_a thread_b thread_c; do
    cmp_ok "$(fn $f samples)" ">" 0 "threads: $f is listed"
done
set -- $(jq -r '[.functions[] | select(.name | test("^thread_[abc]$")) | {(.name): .samples}] | add
                | (.thread_a + .thread_b + .thread_c) as $s
                | "\(100 * .thread_a / $s) \(100 * .thread_b / $s) \(100 * .thread_c / $s)"' "$J")
near "${1:-x}" 33.3 6 "threads: thread_a has a third of the three (+/- 6)"
near "${2:-x}" 33.3 6 "threads: thread_b has a third of the three (+/- 6)"
near "${3:-x}" 33.3 6 "threads: thread_c has a third of the three (+/- 6)"
cmp_ok "$(c program)" ">=" \
    "$(jq -r '2 * ([.functions[] | select(.name | test("^thread_")) | .samples] | max)' "$J")" \
    "threads: every thread is sampled (program >= 2 x one thread's samples)"
cmp_ok "$(jq -r .meta.threads "$J")" ">=" 4 "threads: meta.threads counts main and the three"

# ---------------------------------------------------------------------------
# A parent that works while its child execs /bin/sh.  (~0.6 s)
profile forker "$PROGS/forker" --
is "$rc" 0 "forker: profil exits 0"
cmp_ok "$(fn parent_work samples)" ">" 0 "forker: parent_work is listed"
is "$(jq -r '.functions[0].name' "$J")" parent_work "forker: parent_work is the top function"
is "$(jq -r '"\(.exit.status) \(.exit.code)"' "$J")" "terminated 0" "forker: exit terminated, code 0"
is "$(c total)" "$(($(c program) + $(c dos) + $(c io) + $(c high)))" \
    "forker: total == program + dos + io + high"

done_testing
