#!/usr/bin/env bash
# disasm.sh - profil's disassembler (capstone, through disasm_module, the call
# the Source view makes) beside `objdump -d` on the same code: all of sieve's
# .text, libc's biggest function, and all of libc's .text.  For each, the
# instructions each finds, the addresses where only one of them starts an
# instruction, the lines whose text is objdump's (less its <symbol> and #
# comments), their (bad) bytes, and the time: capstone's first call (its
# handle is opened in it) and its median call, in process; objdump's median
# run, a process per call (what shelling out to objdump would cost); beside
# each median wall time, the median CPU time (user + sys for objdump).  `make
# bench` runs it after names.sh; it prints a table and never fails because of
# what it measured.
#
# Environment: PROGS, BENCH_BIN (make bench sets them), BENCH_RUNS (objdump
# runs per row, 10), BENCH_TABLE=FILE (also write the table there).
set -u
export LC_ALL=C
SRC=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SRC/../.." && pwd)
: "${PROGS:=$TOP/tests/progs}" "${BENCH_BIN:=$TOP/tests/bench}" "${BENCH_RUNS:=10}"
for t in objdump readelf gawk ldd; do
    command -v "$t" >/dev/null 2>&1 || { echo "disasm: $t is needed" >&2; exit 1; }
done
for b in disasmbench runstat; do
    [ -x "$BENCH_BIN/$b" ] || { echo "disasm: $BENCH_BIN/$b is not built (make bench builds it)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/profil-disasm.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
libc=$(readlink -f "$(ldd "$PROGS/sieve" | gawk '$1 ~ /^libc\.so/ { print $3 }')")

row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" | tee -a "$W/table"; }
{
    echo "| code | bytes | instructions: capstone / objdump | starts only capstone / only objdump has | lines that read as objdump's | (bad): capstone / objdump | capstone: first / median call, ms (CPU) | objdump: median run, ms (CPU) |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} | tee "$W/table"

# text FILE: the image addresses of FILE's .text, "LO HI".
text() {
    readelf -SW "$1" | gawk '{ for (i = 1; i < NF; i++) if ($i == ".text") {
        lo = strtonum("0x" $(i + 2)); printf "0x%x 0x%x\n", lo, lo + strtonum("0x" $(i + 4)) } }'
}

# measure LABEL REPEAT FILE WHAT...: disasmbench on FILE's WHAT (a symbol,
# biggest, or LO HI), then objdump on the range it took.
measure() {
    local label=$1 reps=$2 file=$3
    shift 3
    local line name lo hi bytes insns bad first min med cpu
    if ! line=$("$BENCH_BIN/disasmbench" -r "$reps" -l "$W/cs" "$file" "$@"); then
        echo "disasm: $label: disasmbench failed" >&2
        return
    fi
    read -r name lo hi bytes insns bad first min med cpu <<<"$line"
    local od=(objdump -d --insn-width=15 --start-address="$lo" --stop-address="$hi" "$file")
    # objdump's lines as "address<TAB>text", without its <symbol> and # comments.
    "${od[@]}" | gawk -F'\t' '/^ *[0-9a-f]+:\t/ && NF >= 3 { a = $1; sub(/^ */, "", a);
        sub(/:$/, "", a); t = $3; sub(/ *<[^>]*>/, "", t); sub(/ *#.*/, "", t); sub(/ +$/, "", t);
        print a "\t" t }' >"$W/od"
    local oinsns obad only_cs only_od same fns
    oinsns=$(wc -l <"$W/od")
    obad=$(cut -f2 "$W/od" | grep -c '^(bad)')
    only_cs=$(comm -23 <(cut -f1 "$W/cs" | sort) <(cut -f1 "$W/od" | sort) | wc -l)
    only_od=$(comm -13 <(cut -f1 "$W/cs" | sort) <(cut -f1 "$W/od" | sort) | wc -l)
    same=$(gawk -F'\t' 'NR == FNR { t[$1] = $2; next } ($1 in t) && t[$1] == $2' "$W/cs" "$W/od" | wc -l)
    rm -f "$W/times"
    for ((i = 0; i < BENCH_RUNS; i++)); do
        "$BENCH_BIN/runstat" -r "$W/times" -- "${od[@]}" >/dev/null
    done
    # runstat: wall_s user_s sys_s ...; the medians of wall and of user + sys.
    local omed ocpu
    omed=$(sort -g "$W/times" | gawk '{ w[NR] = $1 } END { printf "%.3f", w[int((NR + 1) / 2)] * 1000 }')
    ocpu=$(gawk '{ print $2 + $3 }' "$W/times" | sort -g |
        gawk '{ c[NR] = $1 } END { printf "%.3f", c[int((NR + 1) / 2)] * 1000 }')
    [ "$name" = range ] && name=".text"
    row "$label: $name [$lo, $hi)" "$bytes" "$insns / $oinsns" "$only_cs / $only_od" "$same" \
        "$bad / $obad" "$first / $med ($cpu)" "$omed ($ocpu)"
    fns=$(gawk -F'\t' '$2 == "(bad)" { n[$3]++ } END { for (f in n) printf "%d %s\n", n[f], f }' "$W/cs" |
        sort -rn | gawk '{ printf "%s%s (%d)", (NR > 1 ? ", " : ""), $2, $1 }')
    [ -z "$fns" ] || echo "capstone's (bad) bytes in $label, by function: $fns" >>"$W/notes"
}

read -r lo hi <<<"$(text "$PROGS/sieve")"
measure sieve 50 "$PROGS/sieve" "$lo" "$hi"
measure libc 50 "$libc" biggest
read -r lo hi <<<"$(text "$libc")"
measure libc 5 "$libc" "$lo" "$hi"
[ -f "$W/notes" ] && cat "$W/notes"
if [ -n "${BENCH_TABLE:-}" ]; then
    cat "$W/table" >>"$BENCH_TABLE"
    [ -f "$W/notes" ] && cat "$W/notes" >>"$BENCH_TABLE"
fi
exit 0
