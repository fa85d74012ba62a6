#!/usr/bin/env bash
# names.sh - how profil names what it samples, beside perf report: for the
# test programs and three stripped Debian programs, the number of distinct
# names each ranks, how many functions the program has, and whether their
# top 10 agree.  `make bench` runs it after run.sh; it prints a table and
# never fails because of what it measured.
#
# Environment: PROFIL, PROGS (make bench sets them), BENCH_TABLE=FILE (also
# write the table there).  perf must be allowed to record (root, or
# perf_event_paranoid <= 2).
set -u
export LC_ALL=C
SRC=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SRC/../.." && pwd)
: "${PROFIL:=$TOP/profil}" "${PROGS:=$TOP/tests/progs}"
for t in jq perf readelf gawk; do
    command -v "$t" >/dev/null 2>&1 || { echo "names: $t is needed" >&2; exit 1; }
done
if ! perf record -q -o /dev/null true >/dev/null 2>&1; then
    echo "names: perf record is not allowed here: no comparison" >&2
    exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/profil-names.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
head -c 40000000 /dev/urandom >"$W/rnd"
head -c 8000000 /dev/urandom >"$W/rnd8"

# functions FILE: how many functions FILE has: its FDEs when stripped (each
# one function, as profil names them), else its function symbols.
functions() {
    if readelf -SW "$1" | grep -q ' \.symtab '; then
        readelf -sW "$1" | awk '$4 == "FUNC" && $7 != "UND"' | awk '{ print $2 }' | sort -u | wc -l
    else
        readelf -wf "$1" 2>/dev/null | grep -c ' FDE '
    fi
}

# The library a workload's time is in, when not the program itself.
row() { printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@" | tee -a "$W/table"; }
{
    echo "| program (module) | distinct names: profil / perf (perf's addresses of unnamed code folded by FDE) | functions in the module | module's names: profil / perf | top 10: named in both, same order | largest share gap, top 10 (points) | top 3: profil / perf |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
} | tee "$W/table"

# compare LABEL MODULE-FILE CMD...: CMD once under profil and once under
# perf record, both at 1 kHz on the cpu clock.
compare() {
    local label=$1 modfile=$2
    shift 2
    local mod
    mod=$(basename "$modfile")
    "$PROFIL" --no-tui --clock cpu -b 1 -t 1000 -o "$W/p.PRF" "$@" </dev/null >/dev/null 2>&1
    "$PROFIL" --report --json "$W/p.PRF" >"$W/p.json" 2>/dev/null || return
    perf record -q -e cpu-clock -c 1000000 -o "$W/p.data" -- "$@" </dev/null >/dev/null 2>&1
    # perf: "pct dso [.] sym" lines, most first.
    perf report -i "$W/p.data" --stdio -q --sort dso,sym 2>/dev/null |
        gawk 'NF >= 4 { pct = $1; sub(/%$/, "", pct); dso = $2; $1 = ""; $2 = ""; $3 = "";
             sub(/^ +/, ""); printf "%s\t%s\t%s\n", pct, dso, $0 }' >"$W/perf.tsv"
    jq -r '.functions[] | "\(.pct_total)\t\(.module)\t\(.name)"' "$W/p.json" >"$W/profil.tsv"
    local nraw
    nraw=$(wc -l <"$W/perf.tsv")
    # perf names each address of unnamed code apart: fold those of the
    # module into its functions, the FDEs (as profil names them, file
    # offset = address here), so that the top 10 compare.
    readelf -wf "$modfile" 2>/dev/null |
        sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p' | tr ' ' '\t' >"$W/fdes"
    gawk -F'\t' -v m="$mod" 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
        $2 == m && $3 ~ /^0x[0-9a-f]+$/ {
            a = strtonum($3); name = $3
            for (i = 1; i <= n; i++) if (a >= strtonum("0x" s[i]) && a < strtonum("0x" e[i])) {
                name = sprintf("%s+0x%x", m, strtonum("0x" s[i])); break }
            sum[$2 "\t" name] += $1; next }
        { sum[$2 "\t" $3] += $1 }
        END { for (k in sum) printf "%.2f\t%s\n", sum[k], k }' "$W/fdes" "$W/perf.tsv" |
        sort -t$'\t' -k1,1 -gr >"$W/perf-folded.tsv"
    mv "$W/perf-folded.tsv" "$W/perf.tsv"
    local np nq mp mq fn both gap top
    np=$(wc -l <"$W/profil.tsv")
    nq="$nraw ($(wc -l <"$W/perf.tsv") by function)"
    mp=$(awk -F'\t' -v m="$mod" '$2 == m' "$W/profil.tsv" | wc -l)
    mq=$(awk -F'\t' -v m="$mod" '$2 == m' "$W/perf.tsv" | wc -l)
    fn=$(functions "$modfile")
    # The top 10 of each, by name; the names both know, in profil's order and
    # in perf's; and the largest gap between their shares.
    head -n 10 "$W/profil.tsv" | cut -f3 >"$W/p10"
    head -n 10 "$W/perf.tsv" | cut -f3 >"$W/q10"
    grep -Fxf "$W/q10" "$W/p10" >"$W/both-p" || :
    grep -Fxf "$W/p10" "$W/q10" >"$W/both-q" || :
    both="$(wc -l <"$W/both-p")"
    if cmp -s "$W/both-p" "$W/both-q"; then both="$both, same order"; else both="$both, order differs"; fi
    gap=$(awk -F'\t' 'NR == FNR { p[$3] = $1; next } ($3 in p) { d = p[$3] - $1; if (d < 0) d = -d; if (d > g) g = d }
                      END { printf "%.1f", g }' "$W/profil.tsv" <(head -n 10 "$W/perf.tsv"))
    top="$(head -n 3 "$W/profil.tsv" | cut -f3 | paste -sd';' -) / $(head -n 3 "$W/perf.tsv" | cut -f3 | paste -sd';' -)"
    row "$label ($mod)" "$np / $nq" "$fn" "$mp / $mq" "$both" "$gap" "$top"
}

lib() { readlink -f "$(ldd "$1" 2>/dev/null | awk -v l="$2" '$1 ~ l { print $3 }')"; }

compare sieve-stripped "$PROGS/sieve-stripped" "$PROGS/sieve-stripped" 3000
compare framed-stripped "$PROGS/framed-stripped" "$PROGS/framed-stripped" 40
compare cxx "$PROGS/cxx" "$PROGS/cxx" 150
compare syscalls "$PROGS/syscalls" "$PROGS/syscalls" 2000000
compare libcbound "$(lib "$PROGS/libcbound" libc.so)" "$PROGS/libcbound" 4300
for p in gzip bzip2 xz; do
    exe=$(command -v $p) || { echo "names: $p is not installed: skipped" >&2; continue; }
    case $p in
    gzip) compare "gzip -9" "$exe" "$exe" -9 -c "$W/rnd" ;;
    bzip2) compare "bzip2 -9" "$(lib "$exe" libbz2)" "$exe" -9 -c "$W/rnd8" ;;
    xz) compare "xz -1" "$(lib "$exe" liblzma)" "$exe" -1 -T1 -c "$W/rnd8" ;;
    esac
done
[ -n "${BENCH_TABLE:-}" ] && cat "$W/table" >>"$BENCH_TABLE"
exit 0
