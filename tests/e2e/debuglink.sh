#!/bin/sh
# debuglink.sh - a stripped program whose debug file only its .gnu_debuglink
# finds (no build id) gets its real names, wherever gdb would look: beside
# it, or in its .debug/ directory.  A debug file whose CRC-32 differs from
# the one the link carries is someone else's: it is ignored.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 14

# profile PROG: run PROG at -b 1 -t 1000 into $T/PROG.PRF, its JSON report into $J.
profile() {
    run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/$1.PRF" "$PROGS/$1" 1500 </dev/null
    "$PROFIL" --report --json "$T/$1.PRF" >"$T/$1.json" 2>/dev/null
    J=$T/$1.json
}
# names PROG: the names of PROG's own routines, one line, sorted.
names() { jq -r --arg m "$1" '[.functions[] | select(.module == $m) | .name] | sort | join(" ")' "$J"; }

is "$(readelf -n "$PROGS/sieve-debuglink" | grep -c 'Build ID')" 0 \
    "sieve-debuglink has no build id: only its debuglink names its debug file"

for prog in sieve-debuglink sieve-dotdebug; do
    profile $prog
    is "$rc" 0 "$prog: profil exits 0"
    diag "$prog: $(names $prog)"
    for f in markbit testbit; do
        has " $(names $prog) " " $f " "$prog: $f is named"
    done
    unlike "$(names $prog | tr ' ' '\n')" "^$prog\\+0x" "$prog: no routine is named $prog+0x..."
    hasnt "$err" "debug info" "$prog: nothing said about debug info"
done

profile sieve-badcrc
is "$rc" 0 "sieve-badcrc: profil exits 0"
hasnt " $(names sieve-badcrc) " " markbit " "sieve-badcrc: a debug file with another CRC is ignored"
like "$(jq -r '.functions[0].name' "$J")" '^sieve-badcrc\+0x[0-9a-f]+$' \
    "sieve-badcrc: its routines are named sieve-badcrc+0x..."

done_testing
