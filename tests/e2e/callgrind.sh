#!/bin/sh
# callgrind.sh - profil --export=callgrind read back by callgrind_annotate,
# valgrind's own reader: on a program whose call structure is known
# (tests/progs/chain: main -> middle -> leaf, built -O2 -g), on a recursion
# (recurse, 40 frames deep), on one cut under [truncated] (mkbomb deep), and
# on a session without stacks, every function's Self (callgrind_annotate)
# and Total (its --inclusive=yes) are the report's, the totals are the
# samples, the self samples sit on the program's source lines, and the call
# counts are the samples each call is in (docs/exports.md).  Then the errors.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 60

if ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "Bail out! callgrind_annotate is not installed (apt-get install valgrind; ./setup does)"
    exit 1
fi
: "${MKBOMB:=$PROGS/../prf/mkbomb}"

# annotate FILE [OPTION...]: callgrind_annotate's function table for FILE,
# "SAMPLES<TAB>FILE:FUNCTION" a line ('.' is 0, the thousands' commas go),
# and what it says on stderr in $T/annotate.err.  Run from /: it shortens a
# fl= path under its working directory but not the same path in cfl=, and
# would then count a function of the sources here twice, once by each name.
annotate() {
    _af=$1
    shift
    (cd / && callgrind_annotate --threshold=100 --auto=no "$@" "$_af") 2>"$T/annotate.err" | awk '
        /^Samples +file:function$/ { table = 1; next }
        !table || /^-+$/ || /^$/ { next }
        /^-- / { exit }
        {
            n = $1; gsub(/,/, "", n); if (n == ".") n = 0
            rest = $0; sub(/^ *[0-9,.]+ +(\( *[0-9.]+%\))? +/, "", rest)
            sub(/ \[.*\]$/, "", rest)          # its object, [PATH]
            print n "\t" rest
        }'
}

# wanted PRF [MIN_SELF]: the report's functions over 0.1 % of the samples
# (and with at least MIN_SELF of their own) as "FILE:NAME<TAB>SELF<TAB>TOTAL",
# FILE "???" where it has none.
wanted() {
    "$PROFIL" --report --json "$1" | jq -r --argjson min "${2:-0}" '.counters.total as $t
        | .functions[] | select(.total * 1000 > $t and .self >= $min)
        | "\(.file // "???"):\(.name)\t\(.self)\t\(.total)"'
}

# differ WANTED ANNOTATED COLUMN: the functions of WANTED whose COLUMN (2
# self, 3 total) is not what ANNOTATED gives them, one a line.
differ() {
    awk -F '\t' -v col="$3" 'NR == FNR { got[$2] = $1; next }
        { g = ($1 in got) ? got[$1] : "missing"; if (g != $col) print $1 ": report " $col ", callgrind_annotate " g }' \
        "$2" "$1"
}

# same_as_report DESC PRF CG [MIN_SELF]: Self and Total of every function
# over 0.1 % (with at least MIN_SELF samples of its own).
same_as_report() {
    wanted "$2" "${4:-0}" >want.tsv
    annotate "$3" >self.tsv
    annotate "$3" --inclusive=yes >incl.tsv
    cmp_ok "$(wc -l <want.tsv)" ">=" 1 "$1: the report has functions to compare"
    is "$(differ want.tsv self.tsv 2)" "" "$1: callgrind_annotate's Self of each function is the report's"
    is "$(differ want.tsv incl.tsv 3)" "" "$1: callgrind_annotate --inclusive=yes: each function's Total is the report's"
    is "$(cat "$T/annotate.err")" "" "$1: callgrind_annotate reads it without a warning"
}

# cg_costs CG FN: FN's lines in the callgrind file CG, names looked up
# through the file's "(id) name" compression: "LINE COST" for each self
# cost line, "CALLEE CALLS TARGET SITE COST" for each call.
cg_costs() {
    awk -v fn="$2" '
        function name(spec, v,   id) {
            if (match(v, /^\([0-9]+\)/)) {
                id = substr(v, 2, RLENGTH - 2); v = substr(v, RLENGTH + 2)
                if (v != "") names[spec, id] = v; else v = names[spec, id]
            }
            return v
        }
        /^fn=/ { cur = name("fn", substr($0, 4)); next }
        /^cfn=/ { callee = name("fn", substr($0, 5)); next }
        /^calls=/ { split(substr($0, 7), a, " "); incall = 1; next }
        /^[0-9]/ {
            if (cur == fn && incall) print callee, a[1], a[2], $1, $2
            else if (cur == fn) print $1, $2
            incall = 0
        }' "$1"
}

# cg_call CG FN CALLEE: "CALLS TARGET SITE COST" of FN's call to CALLEE.
cg_call() {
    cg_costs "$1" "$2" | awk -v c="$3" 'NF == 5 && $1 == c { print $2, $3, $4, $5 }'
}

# main -> middle -> leaf, built -O2 -g by make (tests/progs/chain.c).
if [ ! -x "$PROGS/chain" ]; then
    echo "Bail out! $PROGS/chain is not built (make tests/progs/chain)"
    exit 1
fi

# ---------------------------------------------------------------------------
# main -> middle -> leaf
# The CPU clock: a wall clock's blocked samples (a tick in _exit, say)
# have a stack, whose leaf the exports give the sample to, but no hit, so
# the report counts them as I/O and in no function's Self.
run "$PROFIL" --no-tui --driver=ptrace --clock=cpu -b 1 -t 1000 -a 300 -o "$T/c.PRF" "$PROGS/chain" </dev/null
is "$rc" 0 "chain runs under the ptrace driver, with stacks"
TOTAL=$(json c.PRF .counters.total)
cmp_ok "$TOTAL" ">" 100 "chain: over 100 samples"
run "$PROFIL" --export=callgrind "$T/c.PRF" -o "$T/c.cg" </dev/null
is "$rc" 0 "--export=callgrind exits 0"
is "$err" "" "--export=callgrind: nothing on stderr"
CG=$T/c.cg
is "$(head -n 3 "$CG")" "# callgrind format
version: 1
creator: profil $("$PROFIL" --version | sed 's/^profil //')" \
    "callgrind: the format line, version 1, creator profil VERSION"
is "$(grep '^cmd: ' "$CG")" "cmd: $PROGS/chain 300" "callgrind: cmd: the program and its arguments"
is "$(grep -c '^positions: line$' "$CG")" 1 "callgrind: positions: line"
is "$(grep '^events: ' "$CG")" "events: Samples" "callgrind: one event, Samples"
like "$(cat "$CG")" '^event: Samples : samples of the cpu clock$' "callgrind: the event's long name names the clock"
is "$(sed -n 's/^totals: //p' "$CG")" "$TOTAL" "callgrind: totals: is counters.total"
is "$(sed -n 's/^summary: //p' "$CG")" "$TOTAL" "callgrind: summary: is counters.total"
is "$(awk '/^calls=/ { skip = 1; next } /^[0-9]/ { if (!skip) s += $2; skip = 0 } END { print s + 0 }' "$CG")" \
    "$TOTAL" "callgrind: the self cost lines add up to counters.total"
same_as_report "chain" c.PRF "$CG"
run sh -c "cd / && callgrind_annotate --threshold=100 --auto=no '$CG'"
like "$out" "^ *$TOTAL \\(100\\.0%\\)  PROGRAM TOTALS$" "callgrind_annotate: PROGRAM TOTALS is counters.total"
for f in main middle leaf; do
    like "$out" "^ *[0-9,.]+ .* $PROGS/chain\\.c:$f \\[$PROGS/chain\\]$" \
        "callgrind_annotate names $f by its source file and the program"
done

# leaf's samples on leaf's own lines of chain.c (-g), which the annotated
# source shows.
LEAF_LINE=$(json c.PRF '.functions[] | select(.name == "leaf") | .line')
MIDDLE_LINE=$(json c.PRF '.functions[] | select(.name == "middle") | .line')
LEAF_SELF=$(json c.PRF '.functions[] | select(.name == "leaf") | .self')
is "$LEAF_LINE" "$(grep -n 'static void leaf' "$PROGS/chain.c" | cut -d: -f1)" "the report puts leaf at its line of chain.c"
is "$(cg_costs "$CG" leaf | awk -v lo="$LEAF_LINE" -v hi="$((LEAF_LINE + 9))" \
    'NF == 2 && $1 >= lo && $1 <= hi { s += $2 } END { print s + 0 }')" "$LEAF_SELF" \
    "callgrind: all of leaf's self samples are on leaf's lines of chain.c"
run sh -c "cd / && callgrind_annotate --threshold=100 --auto=yes '$CG'"
has "$out" "-- Auto-annotated source: $PROGS/chain.c" "callgrind_annotate annotates chain.c"
like "$out" '^ *[0-9,]+ \( *[0-9.]+%\) +x \^= x (<<|>>) [0-9]+;$' \
    "callgrind_annotate: samples beside leaf's source lines"

# The calls: main -> middle from the line of the call, to middle's line;
# the count the samples the call is in, from the folded export.
"$PROFIL" --export=folded "$T/c.PRF" -o folded.txt </dev/null
edge() { awk -v e=";$1;$2( |;)" '(";" $0) ~ e { n += $NF } END { print n + 0 }' folded.txt; }
set -- $(cg_call "$CG" main middle)
is "$1 $2" "$(edge main middle) $MIDDLE_LINE" \
    "callgrind: main's calls= to middle: the samples the call is in, and middle's line"
is "$3" "$(grep -n 'middle(1000000);' "$PROGS/chain.c" | cut -d: -f1)" "callgrind: main calls middle from the line of the call"
is "$4" "$(edge main middle)" "callgrind: ... its inclusive cost"
set -- $(cg_call "$CG" middle leaf)
is "$1 $2 $4" "$(edge middle leaf) $LEAF_LINE $(edge middle leaf)" "callgrind: middle's call to leaf"
run sh -c "cd / && callgrind_annotate --threshold=100 --auto=no --tree=calling '$CG'"
like "$out" "^ *[0-9,]+ \\( *[0-9.]+%\\)  >   $PROGS/chain\\.c:leaf \\($(edge middle leaf)x\\)" \
    "callgrind_annotate --tree=calling: middle calls leaf in as many samples as the folded stacks say"

"$PROFIL" --export=callgrind "$T/c.PRF" -o - </dev/null >stdout.cg
ok "--export=callgrind -o -: the same file on standard output" cmp -s "$CG" stdout.cg

# ---------------------------------------------------------------------------
# A recursion 40 frames deep: recurse counted once a sample.
run "$PROFIL" --no-tui --driver=ptrace --clock=cpu -b 1 -t 1000 -o "$T/r.PRF" "$PROGS/recurse" 40 1000 </dev/null
is "$rc" 0 "recurse 40 runs with stacks"
RTOTAL=$(json r.PRF .counters.total)
run "$PROFIL" --export=callgrind "$T/r.PRF" -o "$T/r.cg" </dev/null
is "$rc" 0 "recurse: --export=callgrind exits 0"
is "$(sed -n 's/^totals: //p' r.cg)" "$RTOTAL" "recurse: totals: is counters.total"
same_as_report "recurse" r.PRF "$T/r.cg"
"$PROFIL" --export=folded "$T/r.PRF" -o folded.txt </dev/null
set -- $(cg_call r.cg recurse recurse)
is "$1" "$(edge recurse recurse)" "recurse: recurse's call to itself counts each sample once"
is "$4" 0 "recurse: ... and adds nothing to recurse's inclusive cost, already counted from main"

# ---------------------------------------------------------------------------
# One function 4,096 calls deep, a sample at every depth: the stacks cut
# under [truncated] as every export cuts them, f counted once a sample, the
# shallow stacks' f reached from [root]; in bounded time and size.
if "$MKBOMB" deep deep.PRF 4096 >/dev/null; then
    "$MKBOMB" measure "$T/m" "$PROFIL" --export=callgrind deep.PRF -o deep.cg >/dev/null 2>"$T/deep.err"
    read -r rss secs _how rc _cpu <"$T/m"
    is "$rc" 0 "4096 deep: --export=callgrind exits 0"
    like "$(cat "$T/deep.err")" '^profil: deep\.PRF: stacks deeper than [0-9]+ frames are cut' \
        "4096 deep: says the stacks are cut, in one line"
    cmp_ok "$(wc -c <deep.cg)" "<" 1000000 "4096 deep: under 1 MB written ($(wc -c <deep.cg) bytes, $secs s, $rss kB)"
    is "$(sed -n 's/^totals: //p' deep.cg)" 4096 "4096 deep: totals: every sample"
    same_as_report "4096 deep" deep.PRF "$T/deep.cg"
else
    for i in 1 2 3 4 5 6 7 8; do fail "4096 deep ($i of 8)" "$MKBOMB deep failed"; done
fi

# ---------------------------------------------------------------------------
# A session without stacks: each function its own self, and no calls.
run "$PROFIL" --no-tui --no-stacks --driver=ptrace -b 1 -t 1000 -a 100 -o "$T/flat.PRF" "$PROGS/chain" </dev/null
is "$rc" 0 "chain runs with --no-stacks"
run "$PROFIL" --export=callgrind "$T/flat.PRF" -o "$T/flat.cg" </dev/null
is "$rc" 0 "--no-stacks: --export=callgrind exits 0"
is "$(grep -c '^calls=' flat.cg)" 0 "--no-stacks: no calls"
like "$(cat flat.cg)" '^event: Samples : samples of the wall clock$' "--no-stacks, the wall clock: the event's long name names it"
# Without stacks each sample is exported as its function alone (export_walk,
# as pprof and speedscope write it): a function whose samples all fall in
# code inlined into it (libc's __x86_cacheinfo_ifunc, now and then) is in no
# exported sample, though the report's Total counts its inlined code.  So
# the functions with samples of their own.
same_as_report "--no-stacks" flat.PRF "$T/flat.cg" 1

# ---------------------------------------------------------------------------
# Errors
run "$PROFIL" --export=callgrind "$T/c.PRF" -o "$T/no/such/dir/out" </dev/null
is "$rc" 1 "--export=callgrind to an unwritable -o: exit 1"
is "$(lines "$err")" 1 "--export=callgrind to an unwritable -o: one line"
has "$err" "Cannot open output file" "--export=callgrind to an unwritable -o: says so"
run "$PROFIL" --export=svg "$T/c.PRF" -o x </dev/null
has "$err" "speedscope, callgrind, html)" "--export=svg: the message names callgrind"
run "$PROFIL" --help </dev/null
has "$out" "callgrind (for callgrind_annotate" "--help names callgrind"

done_testing
