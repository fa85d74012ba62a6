#!/bin/sh
# stacks.sh - call stacks (issue 12), checked against programs whose call
# structure is known and against perf on the same programs:
#   callpaths, callpaths-fp  leaf() under path_a() for 70 % of the work and
#                            under path_b() for 30 % (without and with frame
#                            pointers);
#   qsortcb                  cmp_slow() called back from inside libc's qsort,
#                            under sorter() and main();
#   recurse                  bottom() under 300 frames of recurse();
#   blockcall                waiter() blocked in nanosleep half of the time.
# Each runs under both drivers at -b 1 -t 250 (~6000 samples in ~1.5 s), and
# is read back through --report --json (.functions[].self/.total, .stacks),
# --export=folded and --report --tree.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 331

# profile NAME DRIVER [PROFIL-OPTION...] PROG [--|ARG...]: run PROG under
# profil with DRIVER into $T/NAME.PRF; its JSON report in $J=$T/NAME.json,
# its folded stacks in $F=$T/NAME.folded, the program's output in $out.
profile() {
    _name=$1 _drv=$2
    shift 2
    run "$PROFIL" --no-tui --driver="$_drv" -b 1 -t 250 -o "$T/$_name.PRF" "$@" </dev/null
    _prc=$rc _pout=$out _perr=$err
    J=$T/$_name.json F=$T/$_name.folded
    "$PROFIL" --report --json "$T/$_name.PRF" >"$J" 2>"$T/$_name.json.err" || : >"$J"
    "$PROFIL" --export=folded "$T/$_name.PRF" -o "$F" >"$T/$_name.folded.out" 2>"$T/$_name.folded.err" ||
        : >"$F"
    [ -f "$F" ] || : >"$F"
    rc=$_prc out=$_pout err=$_perr
}

# jn EXPR: EXPR of the JSON report $J, "x" (not a number) when absent.
jn() {
    jq -r "($1) // \"x\"" "$J" 2>/dev/null || echo x
}
# fn NAME FIELD: FIELD of the function NAME in $J (the first, if several).
fn() {
    jq -r --arg f "$1" "[.functions[] | select(.name == \$f)][0].$2 // \"x\"" "$J" 2>/dev/null ||
        echo x
}
# pct A B: 100 * A / B, "x" when either is not a number or B is 0.
pct() {
    if _num "$1" && _num "$2" && [ "$2" != 0 ]; then
        calc "100 * $1 / $2"
    else
        echo x
    fi
}
# share NAME: NAME's Total in percent of all samples.
share() {
    pct "$(fn "$1" total)" "$(jn .counters.total)"
}

# The folded stacks: one line per distinct stack, frames root first,
# separated by ";", then a space and the count.  The awk helpers read $F.
FOLDED_AWK='
function parse(   s) {
    c = $NF
    s = substr($0, 1, length($0) - length($NF) - 1)
    n = split(s, a, ";")
}'
# ftotal NAME: the samples whose stack holds NAME (each counted once).
ftotal() {
    awk -v f="$1" "$FOLDED_AWK"'
        { parse(); for (i = 1; i <= n; i++) if (a[i] == f) { t += c; break } }
        END { print t + 0 }' "$F"
}
# fends CALLER CALLEE: the samples whose stack ends in CALLER;CALLEE.
fends() {
    awk -v p="$1" -v l="$2" "$FOLDED_AWK"'
        { parse(); if (n >= 2 && a[n] == l && a[n - 1] == p) t += c }
        END { print t + 0 }' "$F"
}
# fleaf NAME: the samples whose stack ends in NAME (its self samples).
fleaf() {
    awk -v l="$1" "$FOLDED_AWK"'
        { parse(); if (a[n] == l) t += c }
        END { print t + 0 }' "$F"
}
# fsum: all the samples in $F.
fsum() {
    awk '{ t += $NF } END { print t + 0 }' "$F"
}
# forder A B C: the samples whose stack holds C with B above it and A above
# B (in that order, not necessarily adjacent).
forder() {
    awk -v x="$1" -v y="$2" -v z="$3" "$FOLDED_AWK"'
        { parse(); k = 1
          for (i = 1; i <= n; i++) {
              if (k == 1 && a[i] == x) k = 2
              else if (k == 2 && a[i] == y) k = 3
              else if (k == 3 && a[i] == z) { t += c; break }
          } }
        END { print t + 0 }' "$F"
}

# folded_ok DESC: $F is well formed: each line "FRAME[;FRAME...] COUNT" with
# a count of 1 or more, and no stack listed twice.
folded_ok() {
    _bad=$(grep -Evn '^[^ ;][^;]*(;[^;]+)* [1-9][0-9]*$' "$F" | head -n 3)
    _dup=$(sed 's/ [0-9]*$//' "$F" | sort | uniq -d | head -n 3)
    if [ -s "$F" ] && [ -z "$_bad" ] && [ -z "$_dup" ]; then
        _tap 0 "$1"
    else
        _tap 1 "$1"
        diag "malformed: $_bad" "listed twice: $_dup" "first lines:" "$(head -n 5 "$F")"
    fi
}

# common NAME: the checks every profile with stacks passes: profil exits 0,
# the report and the folded export exist and agree, unwinding rarely fails.
common() {
    is "$rc" 0 "$1: profil exits 0"
    is "$(jq -r '.stacks | type' "$J" 2>/dev/null)" object "$1: the JSON report has .stacks"
    diag "$1: counters $(jq -c .counters "$J" 2>/dev/null), stacks $(jq -c .stacks "$J" 2>/dev/null)"
    is "$(jn '[.functions[] | select(.self != .samples)] | length')" 0 \
        "$1: every function's self is its samples"
    is "$(jq -r '.counters.total as $t | [.functions[] | select((.total | type) != "number" or .total < .self or .total > $t)] | length' "$J" 2>/dev/null)" \
        0 "$1: every function's total lies between its self and the sample total"
    cmp_ok "$(jn .stacks.samples)" ">=" "$(calc "0.95 * $(jn .counters.total)")" \
        "$1: 95 % of the samples or more carry a stack"
    cmp_ok "$(pct "$(jn .stacks.unknown)" "$(jn .stacks.samples)")" "<" 5 \
        "$1: under 5 % of the stacks end in [unknown]" ||
        diag "the heaviest of them: $(grep '^\[unknown\]' "$F" | awk '{ print $NF, $0 }' | sort -rn | head -n 3 | cut -c1-300)"
    is "$(jn .stacks.truncated)" 0 "$1: no stack is truncated"
    folded_ok "$1: --export=folded writes one line per distinct stack"
    cmp_ok "$(fsum)" ">=" "$(jn .stacks.samples)" "$1: the folded stacks hold every stack"
    cmp_ok "$(fsum)" "<=" "$(jn .counters.total)" "$1: the folded stacks hold no more than the samples"
}

# agree NAME FUNC...: each FUNC's Total in the folded stacks is its total
# in the JSON report, and its self samples (stacks ending in it) its self.
agree() {
    _n=$1
    shift
    for _f in "$@"; do
        is "$(ftotal "$_f")" "$(fn "$_f" total)" "$_n: $_f's Total is the same in the folded stacks and the report"
        is "$(fleaf "$_f")" "$(fn "$_f" self)" "$_n: $_f's self is the same in the folded stacks and the report"
    done
}

# ---------------------------------------------------------------------------
# perf, the reference: perf record --call-graph dwarf on the same program in
# the same run, perf report --children for the Total shares (its Children
# column), perf script for the stacks.  -F 4000, not perf's usual 1000: at
# 1000 Hz callpaths gives perf 1500 samples and path_a's share spreads by 1.1
# points (sd; 68.98-71.89 % in 8 runs), too wide to hold profil within 3
# points of it; at 4000 Hz it spreads by 0.6 (68.6-70.8 %).  perf report
# stops at perf_event_max_stack (127) frames unless told: recurse has 300.
# PERF_BASE: why perf cannot be used at all (the kernel refuses it, or ./setup's
# perf is missing or lacks DWARF: perf_missing makes the last two failures);
# PERF_WHY: why the last perf_profile has nothing, for that program only.
PERF_BASE=$(perf_refused)
if [ -z "$PERF_BASE" ] && ! command -v perf >/dev/null 2>&1; then
    PERF_BASE="needs perf (linux-perf, which ./setup installs) to compare with"
fi
if [ -z "$PERF_BASE" ] && perf version --build-options 2>/dev/null | grep -Eq 'dwarf: *\[ OFF'; then
    PERF_BASE="needs a perf built with DWARF support for --call-graph dwarf"
fi
PERF_WHY=$PERF_BASE
# perf_profile NAME PROG [ARG...]: perf's Children column for PROG in
# $T/NAME.perf; empty, with PERF_WHY set, when perf record fails.
perf_profile() {
    _pn=$1
    shift
    : >"$T/$_pn.perf"
    PERF_WHY=$PERF_BASE
    [ -z "$PERF_WHY" ] || return 1
    if ! perf record -q --call-graph dwarf -F 4000 -o "$T/$_pn.data" -- "$@" >/dev/null 2>"$T/$_pn.perf.err"; then
        PERF_WHY="perf record --call-graph dwarf failed: $(head -n 1 "$T/$_pn.perf.err")"
        return 1
    fi
    perf report -i "$T/$_pn.data" --max-stack 1024 --children --stdio --no-demangle -g none \
        --percent-limit 0 --sort dso,sym >"$T/$_pn.perf" 2>/dev/null
    perf script -i "$T/$_pn.data" --max-stack 1024 -F ip,sym --no-demangle 2>/dev/null |
        awk '
            function flush(   s, i) {
                if (n == 0) return
                s = f[n]
                for (i = n - 1; i >= 1; i--) s = s ";" f[i]
                cnt[s]++
                n = 0
            }
            /^[[:space:]]*$/ { flush(); next }
            { s = $2; for (i = 3; i <= NF; i++) s = s " " $i
              sub(/ \(inlined\)$/, "", s); sub(/\+0x[0-9a-f]+$/, "", s); f[++n] = s }
            END { flush(); for (s in cnt) print s, cnt[s] }' >"$T/$_pn.perf.folded"
    rm -f "$T/$_pn.data"
}
# perf_pct NAME FUNC: FUNC's Children % in perf's report $T/NAME.perf.
perf_pct() {
    awk -v f="$2" '$1 ~ /%$/ && $NF == f { sub(/%$/, "", $1); print $1; exit }' "$T/$1.perf"
}
# versus_perf NAME PERFNAME FUNC...: profil's Total share of each FUNC is
# perf's Children % within 3 points.
versus_perf() {
    _n=$1 _pn=$2
    shift 2
    for _f in "$@"; do
        if [ -n "$PERF_WHY" ]; then
            perf_missing "$_n: $_f's Total share is perf's Children % (+/- 3)" "$PERF_WHY"
        else
            near "$(share "$_f")" "$(perf_pct "$_pn" "$_f")" 3 \
                "$_n: $_f's Total share is perf's Children % (+/- 3)"
        fi
    done
}

# drivers: perf where this user may use it, and ptrace.
DRIVERS="perf ptrace"

# ---------------------------------------------------------------------------
# callpaths and callpaths-fp: leaf's time split 70:30 between its callers.
for prog in callpaths callpaths-fp; do
    perf_profile "$prog" "$PROGS/$prog"
    if [ -z "$PERF_WHY" ]; then
        diag "perf $prog: $(grep -E ' (main|path_a|path_b|leaf)$' "$T/$prog.perf" | awk '{ print $1, $NF }' | tr '\n' ' ')"
        # perf itself sees the structure the program has.
        near "$(perf_pct "$prog" path_a)" 70 3 "perf $prog: path_a has 70 % (+/- 3), the program's split"
        near "$(perf_pct "$prog" path_b)" 30 3 "perf $prog: path_b has 30 % (+/- 3), the program's split"
    else
        perf_missing -n 2 "perf $prog: path_a and path_b have 70 and 30 %, the program's split" "$PERF_WHY"
    fi
    for drv in $DRIVERS; do
        n="$prog $drv"
        if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
            skip -n 31 "$n: the stacks of the perf driver" perf-refused "$(perf_refused)"
            continue
        fi
        profile "$prog-$drv" "$drv" "$PROGS/$prog" --
        common "$n"
        leaf=$(fn leaf total)
        diag "$n: total $(jn .counters.total), Total of main $(fn main total), path_a $(fn path_a total), path_b $(fn path_b total), leaf $leaf (self $(fn leaf self))"
        is "$(jn '[.functions[] | select(.name == "main")] | length')" 1 "$n: main is listed"
        # (main shuffles the order of each slice: a sample or two of its own.)
        cmp_ok "$(pct "$(fn main self)" "$(jn .counters.total)")" "<" 0.5 \
            "$n: main's self is under 0.5 % (its callees' samples are not its own)"
        near "$(pct "$(fn path_a total)" "$leaf")" 70 3 "$n: path_a's Total is 70 % of leaf's (+/- 3)"
        near "$(pct "$(fn path_b total)" "$leaf")" 30 3 "$n: path_b's Total is 30 % of leaf's (+/- 3)"
        # Of all samples, not only the user-mode ones: a kernel-mode tick
        # (an interrupt taken in leaf, 2.4 % of one run) has leaf's stack.
        near "$(share main)" 100 2 "$n: main's Total is 100 % of the samples (+/- 2)"
        # (Its Total, not its self: as root the perf driver counts the
        # kernel's ticks, interrupts in leaf, 2-8 % of the samples when the
        # machine is busy.)
        cmp_ok "$(share leaf)" ">=" 97 "$n: leaf's Total is 97 % of the samples or more"
        agree "$n" main path_a path_b leaf
        a=$(fends path_a leaf) b=$(fends path_b leaf)
        diag "$n: folded path_a;leaf $a, path_b;leaf $b"
        near "$(pct "$a" "$((a + b))")" 70 3 "$n: the folded stacks put 70 % of leaf under path_a (+/- 3)"
        cmp_ok "$(pct "$((a + b))" "$(fleaf leaf)")" ">=" 95 \
            "$n: 95 % of leaf's samples or more have path_a or path_b as caller"
        cmp_ok "$(pct "$(($(forder main path_a leaf) + $(forder main path_b leaf)))" "$(fleaf leaf)")" ">=" 95 \
            "$n: 95 % of leaf's stacks or more climb to main"
        versus_perf "$n" "$prog" main path_a path_b leaf
    done
done

# The trees, loosely: the frames, each under its caller.
# tree_order TEXT A B C: some line names A, a later line names B further
# right, and a later one C no further left than B (perf's trees do not
# indent a chain with one child: path_a and its leaf share a column);
# names as whole words.
tree_order() {
    printf '%s\n' "$1" | awk -v x="$2" -v y="$3" -v z="$4" '
        function col(name,   re) {
            re = "(^|[^A-Za-z0-9_])" name "([^A-Za-z0-9_]|$)"
            if (!match($0, re)) return 0
            return RSTART + (substr($0, RSTART, 1) ~ /[A-Za-z0-9_]/ ? 0 : 1)
        }
        k < 3 && (c = col(z)) && k == 2 && c >= cy { k = 3; next }
        k < 3 && (c = col(y)) && k >= 1 && c > cx { k = 2; cy = c; next }
        k < 2 && (c = col(x)) { k = 1; cx = c }
        END { exit k != 3 }'
}
tree_ok() {
    if tree_order "$1" "$2" "$3" "$4"; then
        _tap 0 "$5"
    else
        _tap 1 "$5"
        diag "no $2, then $3 further right, then $4 further right in:" "$(printf '%s\n' "$1" | head -n 30)"
    fi
}
TREE_PRF=$T/callpaths-ptrace.PRF
run "$PROFIL" --report --tree "$TREE_PRF" </dev/null
is "$rc" 0 "--report --tree exits 0"
tree_ok "$out" main path_a leaf "--report --tree: leaf under path_a under main"
tree_ok "$out" main path_b leaf "--report --tree: leaf under path_b under main"
run "$PROFIL" --report --tree --inverted "$TREE_PRF" </dev/null
is "$rc" 0 "--report --tree --inverted exits 0"
tree_ok "$out" leaf path_a main "--report --tree --inverted: main above path_a above leaf"
tree_ok "$out" leaf path_b main "--report --tree --inverted: main above path_b above leaf"
run "$PROFIL" --report --tree --percent-limit=50 "$TREE_PRF" </dev/null
is "$rc" 0 "--report --tree --percent-limit=50 exits 0"
tree_ok "$out" main path_a leaf "--percent-limit=50: path_a (70 %) and its leaf stay"
unlike "$out" '(^|[^A-Za-z0-9_])path_b([^A-Za-z0-9_]|$)' "--percent-limit=50: path_b (30 %) is left out"

# ---------------------------------------------------------------------------
# qsortcb: the comparator's stacks climb through libc's qsort to sorter and
# main.
perf_profile qsortcb "$PROGS/qsortcb"
if [ -z "$PERF_WHY" ]; then
    F=$T/qsortcb.perf.folded
    diag "perf qsortcb: $(grep -E ' (main|sorter|cmp_slow)$' "$T/qsortcb.perf" | awk '{ print $1, $NF }' | tr '\n' ' ')"
    cmp_ok "$(pct "$(forder main sorter cmp_slow)" "$(ftotal cmp_slow)")" ">=" 95 \
        "perf qsortcb: 95 % of cmp_slow's stacks or more hold sorter and main"
else
    perf_missing "perf qsortcb: 95 % of cmp_slow's stacks or more hold sorter and main" "$PERF_WHY"
fi
for drv in $DRIVERS; do
    n="qsortcb $drv"
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 22 "$n: the stacks of the perf driver" perf-refused "$(perf_refused)"
        continue
    fi
    profile "qsortcb-$drv" "$drv" "$PROGS/qsortcb" --
    common "$n"
    cmp=$(ftotal cmp_slow)
    diag "$n: Total of main $(fn main total), sorter $(fn sorter total), cmp_slow $(fn cmp_slow total) (self $(fn cmp_slow self)); folded: cmp_slow $cmp, under sorter and main $(forder main sorter cmp_slow)"
    cmp_ok "$(pct "$cmp" "$(jn .counters.total)")" ">=" 90 "$n: cmp_slow is in 90 % of the stacks or more"
    cmp_ok "$(pct "$(forder main sorter cmp_slow)" "$cmp")" ">=" 95 \
        "$n: 95 % of cmp_slow's stacks or more hold sorter and main above it"
    # Through libc: sorter never calls cmp_slow itself, so a stack where
    # sorter is cmp_slow's caller skipped qsort's frames.
    cmp_ok "$(pct "$(fends sorter cmp_slow)" "$cmp")" "<" 5 \
        "$n: qsort's own frames lie between sorter and cmp_slow"
    agree "$n" main sorter cmp_slow
    versus_perf "$n" qsortcb main sorter cmp_slow
done

# ---------------------------------------------------------------------------
# recurse: 300 frames deep, recurse counted once per sample.
# frecurse: "A B C": A the samples in bottom, B those with exactly 300
# recurse frames and main above them, C the most recurse frames in a stack.
frecurse() {
    awk "$FOLDED_AWK"'
        { parse(); r = 0; m = 0
          for (i = 1; i <= n; i++) { if (a[i] == "recurse") r++; if (a[i] == "main") m = 1 }
          if (r > max) max = r
          if (a[n] == "bottom") { b += c; if (r == 300 && m) good += c } }
        END { print b + 0, good + 0, max + 0 }' "$F"
}
perf_profile recurse "$PROGS/recurse" 300
if [ -z "$PERF_WHY" ]; then
    F=$T/recurse.perf.folded
    set -- $(frecurse)
    diag "perf recurse: bottom $1, with 300 recurse frames and main $2, deepest $3"
    cmp_ok "$(pct "${2:-x}" "${1:-0}")" ">=" 95 "perf recurse: 95 % of bottom's stacks or more are 300 recurse frames under main"
else
    perf_missing "perf recurse: 95 % of bottom's stacks or more are 300 recurse frames under main" "$PERF_WHY"
fi
for drv in $DRIVERS; do
    n="recurse $drv"
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 23 "$n: the stacks of the perf driver" perf-refused "$(perf_refused)"
        continue
    fi
    profile "recurse-$drv" "$drv" "$PROGS/recurse" 300
    common "$n"
    set -- $(frecurse)
    diag "$n: Total of recurse $(fn recurse total) of $(jn .counters.total), bottom $(fn bottom total); folded: bottom $1, with 300 recurse frames and main $2, deepest $3"
    cmp_ok "$(fn recurse total)" "<=" "$(jn .counters.total)" "$n: recurse's Total is no more than the samples (once per sample)"
    near "$(share recurse)" 100 2 "$n: recurse's Total is 100 % of the samples (+/- 2)"
    cmp_ok "$(pct "${2:-x}" "${1:-0}")" ">=" 95 "$n: 95 % of bottom's stacks or more are 300 recurse frames under main"
    is "${3:-x}" 300 "$n: no stack holds more than 300 recurse frames"
    agree "$n" main recurse bottom
    versus_perf "$n" recurse main recurse bottom
done

# ---------------------------------------------------------------------------
# blockcall, wall clock: the blocked half is charged to waiter.  The program
# measures waiter's wall time and worker's CPU time itself: a wall-clock tick
# samples either (a tick while it waits for a CPU is neither).  The I/O
# counter is no measure of the blocked ticks: as root the perf driver counts
# the kernel's ticks in worker there too, 6 % of them in a busy make check.
# perf's cpu-clock does not see blocked time: nothing to compare with here.
for drv in $DRIVERS; do
    n="blockcall $drv"
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 19 "$n: the stacks of the perf driver" perf-refused "$(perf_refused)"
        continue
    fi
    profile "blockcall-$drv" "$drv" "$PROGS/blockcall" --
    common "$n"
    set -- $(printf '%s\n' "$out" | sed -n 's/^blockcall: waiter \([0-9.]*\) ms wall, worker \([0-9.]*\) ms cpu.*/\1 \2/p')
    wait_pct=$(calc "100 * ${1:-0} / (${1:-0} + ${2:-0} + 1e-9)")
    diag "$n: the program says waiter ${1:-?} ms blocked, worker ${2:-?} ms on a CPU: $wait_pct % blocked; profil: io $(jn .counters.io) of $(jn .counters.total), Total of waiter $(fn waiter total), worker $(fn worker total), main $(fn main total)"
    near "$(share waiter)" "$wait_pct" 5 "$n: waiter's Total share is its blocked share (+/- 5)"
    near "$(share worker)" "$(calc "100 - $wait_pct")" 5 "$n: worker's Total share is its running share (+/- 5)"
    near "$(share main)" 100 2 "$n: main's Total is 100 % of the samples, blocked ones included (+/- 2)"
    agree "$n" main waiter worker
done

# Two waits at the same depth, in waiter and in waiter2 (a copy), every
# other round: each keeps its own caller.  Without switch events (an
# ordinary user's perf) the waits' stacks come from scans of the syscall
# files, and a scan once took a wait at the same stack pointer and PC for
# the one it had seen before: waiter2 had none of the time.
for drv in $DRIVERS; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip "blockcall two $drv: each wait keeps its caller" perf-refused "$(perf_refused)"
        continue
    fi
    profile "blockcall2-$drv" "$drv" "$PROGS/blockcall" 40 two
    diag "blockcall two $drv: Total of waiter $(fn waiter total), waiter2 $(fn waiter2 total), worker $(fn worker total)"
    near "$(share waiter2)" "$(share waiter)" 6 "blockcall two $drv: waiter2's Total is waiter's (+/- 6): each wait keeps its caller"
done

# ---------------------------------------------------------------------------
# --no-stacks: no stack is taken; Total is self.
drv=perf
[ -z "$(perf_refused)" ] || drv=ptrace
profile nostacks "$drv" --no-stacks "$PROGS/callpaths" 10
is "$rc" 0 "--no-stacks: profil exits 0"
is "$(jq -r '.stacks | type' "$J")" null "--no-stacks: the session has no stacks (.stacks is null)"
run "$PROFIL" --report --tree "$T/nostacks.PRF" </dev/null
like "$out" 'has no stacks' "--no-stacks: --tree says the session has no stacks"
# Without stacks, a function's Total still holds the samples of the code
# inlined into it (lines.sh tests that): read as frames only, it is its Self.
"$PROFIL" --report --json --no-inline "$T/nostacks.PRF" >"$T/nostacks-noinl.json" 2>/dev/null
is "$(jq -r '[.functions[] | select(.total != .self)] | length' "$T/nostacks-noinl.json" 2>/dev/null || echo x)" 0 \
    "--no-stacks: every function's Total is its self (read with --no-inline)"
cmp_ok "$(fn leaf total)" ">" 0 "--no-stacks: leaf has samples"

# --stack-size: 8192 by default, at most 65536.
mkdir "$T/bad"
for v in 0 -8 abc 8k 65537 1000000 ''; do
    run "$PROFIL" --no-tui -b 1 -t 250 --stack-size="$v" -o "$T/bad/bad.PRF" "$PROGS/callpaths" 1 </dev/null
    is "$rc" 2 "--stack-size='$v' is a usage error (exit 2)"
    is "$(lines "$err")" 1 "--stack-size='$v': one line of error"
    like "$err" 'stack-size' "--stack-size='$v': the message names the option"
    unlike "$err" 'unrecognized|unknown option' "--stack-size='$v': the option is known, its value is wrong"
    hasnt "$out" "callpaths:" "--stack-size='$v': the program is not run"
    no_prf "$T/bad" "--stack-size='$v': no session file is written"
done
# A copy too small for 300 frames (4.8 KB) cannot reach main; 65536 can.
profile small "$drv" --stack-size=2048 "$PROGS/recurse" 300 1500
is "$rc" 0 "--stack-size=2048: profil exits 0"
set -- $(frecurse)
diag "--stack-size=2048: bottom $1, with 300 recurse frames and main $2, deepest $3; stacks $(jq -c .stacks "$J")"
cmp_ok "$(pct "${2:-x}" "${1:-0}")" "<" 5 "--stack-size=2048: the stacks of bottom stop short of main"
cmp_ok "${3:-x}" "<" 200 "--stack-size=2048: no stack holds 200 recurse frames"
# The JSON says which entries of its functions are no functions.
is "$(jq -r '[.functions[] | select(.name == "[truncated]")][0] | "\(.kind) \(.self)"' "$J")" "truncated 0" \
    "--stack-size=2048: [truncated] is of kind truncated in the JSON, with no Self"
is "$(jq -r '[.functions[] | select(.name == "bottom" or .name == "recurse") | .kind] | unique | join(" ")' "$J")" \
    "function" "--stack-size=2048: bottom and recurse are of kind function"
profile big "$drv" --stack-size=65536 "$PROGS/recurse" 300 1500
is "$rc" 0 "--stack-size=65536: profil exits 0"
set -- $(frecurse)
cmp_ok "$(pct "${2:-x}" "${1:-0}")" ">=" 95 "--stack-size=65536: 95 % of bottom's stacks or more reach main"

# ---------------------------------------------------------------------------
# Python (issue 26): a walk cut at the end of its copy was kept as the
# thread's last, and every later walk that met its frames took its callers
# and its cut from it.  A sample whose copy ended among the frames every
# sample has (Py_BytesMain ... PyEval_EvalCode) then left every later stack
# [truncated] there: 4 runs of 12 of a Python workload, 26 of 100 here.  The
# script dives, through C (map calls back into the interpreter), from 24
# levels (~15 KiB) down to 0, one depth at a time, spinning 2 ms at the
# bottom, and between dives computes zlib.crc32s, ~1.2 KiB deep.  A dive one
# level past the copy is cut among those frames; crc32's stacks must all
# reach _start all the same.
PY=/usr/bin/python3
cat >"$T/dives.py" <<'PYEOF'
import time, zlib
buf = bytes(range(256)) * 16
def dive(n):
    if n:
        return list(map(dive, [n - 1]))
    t = time.perf_counter() + 0.002
    while time.perf_counter() < t:
        pass
end = time.perf_counter() + 0.5
while time.perf_counter() < end:
    for depth in range(24, -1, -1):
        dive(depth)
        t = time.perf_counter() + 0.015
        while time.perf_counter() < t:
            zlib.crc32(buf)
PYEOF
for drv in $DRIVERS; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 4 "python $drv: the stacks of the perf driver" perf-refused "$(perf_refused)"
        continue
    fi
    profile "python-$drv" "$drv" "$PY" "$T/dives.py"
    crc=$(ftotal crc32_z)
    crccut=$(awk "$FOLDED_AWK"'
        { parse(); for (i = 1; i <= n; i++) if (a[i] == "crc32_z") { if (a[1] != "_start") t += c; break } }
        END { print t + 0 }' "$F")
    diag "python $drv: stacks $(jq -c .stacks "$J"); crc32_z $crc, of which $crccut not from _start"
    is "$rc" 0 "python $drv: profil exits 0"
    cmp_ok "$crc" ">=" 100 "python $drv: crc32_z has 100 samples or more"
    cmp_ok "$(jn .stacks.truncated)" ">" 0 "python $drv: the deepest dives are cut (what the test needs)"
    is "$crccut" 0 "python $drv: every stack of crc32_z reaches _start, after dives cut at the copy's end"
done
rm -f "$T"/*.PRF

done_testing
