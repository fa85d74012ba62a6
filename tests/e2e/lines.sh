#!/bin/sh
# lines.sh - source lines and inlined functions (issue 13), on programs whose
# lines are known:
#   lines  one function, two loops on the lines marked LOOP75 and LOOP25
#          doing 75 % and 25 % of the work;
#   inl    mix(), inlined (-O2, always_inline) into caller_a for 75 % of the
#          work and into caller_b for 25 %.
# Read back through --report --lines (text and JSON), --report --tree and the
# folded export, and compared with perf annotate on the same program.  The
# lines must survive the binary: a replay reads them from the .PRF.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 81

# line_of PROG MARK: the line of tests/progs/PROG.c that carries MARK.
line_of() {
    grep -n "$2" "$PROGS/$1.c" 2>/dev/null | head -n 1 | cut -d: -f1
}
L75=$(line_of lines LOOP75) L25=$(line_of lines LOOP25)
MIX=$(line_of inl MIXLINE) CALLA=$(line_of inl CALLA) CALLB=$(line_of inl CALLB)

# profile NAME DRIVER PROG [PROFIL-OPTION...]: run PROG (with 20 rounds)
# into $T/NAME.PRF; its JSON report with --lines in $J.
profile() {
    _name=$1 _drv=$2 _prog=$3
    shift 3
    run "$PROFIL" --no-tui --driver="$_drv" -b 1 -t 250 "$@" -o "$T/$_name.PRF" "$_prog" 20 </dev/null
    J=$T/$_name.json
    "$PROFIL" --report --json --lines "$T/$_name.PRF" >"$J" 2>"$T/$_name.json.err" || : >"$J"
}
# line_self FILE LINE: the samples on FILE (a path suffix):LINE in $J.
line_self() {
    jq -r --arg f "$1" --argjson l "$2" \
        '[.lines[] | select((.file | endswith("/" + $f)) and .line == $l) | .samples] | add // 0' "$J" 2>/dev/null || echo x
}
# fn NAME FIELD: FIELD of the function NAME in $J ("x" when absent or null).
fn() {
    jq -r --arg f "$1" "[.functions[] | select(.name == \$f)][0].$2 | if . == null then \"x\" else tostring end" \
        "$J" 2>/dev/null || echo x
}
pct() {
    if _num "$1" && _num "$2" && [ "$2" != 0 ]; then calc "100 * $1 / $2"; else echo x; fi
}

# perf annotate's share of each line of FUNC, within FUNC: "lines.c:13 74.88".
PERF_WHY=$(perf_refused)
if [ -z "$PERF_WHY" ] && ! command -v perf >/dev/null 2>&1; then
    PERF_WHY="needs perf (linux-perf) to compare with"
fi
perf_lines() {
    : >"$T/perf.lines"
    [ -z "$PERF_WHY" ] || return 1
    if ! perf record -q -F 4000 -o "$T/perf.data" -- "$@" >/dev/null 2>"$T/perf.err"; then
        PERF_WHY="perf record failed: $(head -n 1 "$T/perf.err")"
        return 1
    fi
    _sym=$(perf report -i "$T/perf.data" --stdio --sort sym 2>/dev/null |
        awk '$1 ~ /%$/ && $NF ~ /^work/ { print $NF; exit }')
    perf annotate -i "$T/perf.data" --stdio -l "$_sym" 2>/dev/null |
        awk '/^Sorted summary/ { on = 1; next } on && NF == 2 && $1 ~ /^[0-9.]+$/ { print $2, $1 }
             on && /Percent/ { exit }' >"$T/perf.lines"
}

for drv in perf ptrace; do
    if [ "$drv" = perf ] && [ -n "$(perf_refused)" ]; then
        skip -n 9 "lines/perf" perf-refused "$(perf_refused)"
        continue
    fi
    profile lines-$drv $drv "$PROGS/lines"
    is "$rc" 0 "lines/$drv: profil exits 0"
    work=$(jq -r '[.functions[] | select(.name | startswith("work"))][0].name // "x"' "$J")
    wself=$(fn "$work" self)
    s75=$(line_self lines.c "$L75") s25=$(line_self lines.c "$L25")
    diag "lines/$drv: $work self $wself, line $L75: $s75, line $L25: $s25"
    near "$(pct "$s75" "$wself")" 75 3 "lines/$drv: line $L75 (LOOP75) has 75 % of work (+/- 3)"
    near "$(pct "$s25" "$wself")" 25 3 "lines/$drv: line $L25 (LOOP25) has 25 % of work (+/- 3)"
    like "$(fn "$work" file)" '/tests/progs/lines\.c$' "lines/$drv: work's file is lines.c, an absolute path"
    is "$(fn "$work" line)" "$(grep -n 'static void work' "$PROGS/lines.c" | cut -d: -f1)" \
        "lines/$drv: work's line is where it is declared"
    is "$(fn "$work" inlined)" false "lines/$drv: work is not an inlined function"
    is "$(jq -r --arg f "$work" '[.functions[] | select(.name == $f)][0].lines[0:2] | map(.line) | join(" ")' "$J")" \
        "$L75 $L25" "lines/$drv: work's own lines in the JSON, hottest first: $L75, $L25"
    text=$("$PROFIL" --report --lines "$T/lines-$drv.PRF" 2>&1)
    like "$text" "^Hottest lines" "lines/$drv: --report --lines has a Hottest lines section"
    like "$text" "^[0-9:.]+ +lines\\.c:$L75 +work" "lines/$drv: its first line is lines.c:$L75 in work"
done

# The same lines as perf annotate gives, on the same program.
if perf_lines "$PROGS/lines" 20; then
    p75=$(awk -v l="lines.c:$L75" '$1 == l { print $2 }' "$T/perf.lines")
    p25=$(awk -v l="lines.c:$L25" '$1 == l { print $2 }' "$T/perf.lines")
    diag "perf annotate: line $L75 $p75 %, line $L25 $p25 %"
    J=$T/lines-perf.json
    [ -s "$J" ] || J=$T/lines-ptrace.json
    work=$(jq -r '[.functions[] | select(.name | startswith("work"))][0].name // "x"' "$J")
    near "$(pct "$(line_self lines.c "$L75")" "$(fn "$work" self)")" "${p75:-x}" 3 \
        "line $L75's share of work is perf annotate's (+/- 3)"
    near "$(pct "$(line_self lines.c "$L25")" "$(fn "$work" self)")" "${p25:-x}" 3 \
        "line $L25's share of work is perf annotate's (+/- 3)"
else
    perf_missing "line $L75's share of work is perf annotate's" "$PERF_WHY"
    perf_missing "line $L25's share of work is perf annotate's" "$PERF_WHY"
fi

# Inlined: mix has no code of its own, yet it is a function with all the
# time, and a frame under each caller.  Shares are of main's Total, the
# program's work: the kernel's samples of a loaded machine are not in it.
drv=ptrace
[ -z "$(perf_refused)" ] && drv=perf
profile inl $drv "$PROGS/inl"
is "$rc" 0 "inl: profil exits 0"
total=$(fn main total)
is "$(fn mix inlined)" true "inl: mix is an inlined function"
cmp_ok "$(pct "$(fn mix total)" "$total")" ">=" 95 "inl: mix has the time (Total >= 95 % of main's)"
cmp_ok "$(fn mix self)" ">" "$(calc "20 * ($(fn caller_a self) + $(fn caller_b self))")" \
    "inl: the time in user code is mix's own, not its callers'"
near "$(pct "$(fn caller_a total)" "$total")" 75 3 "inl: caller_a's Total is 75 % (+/- 3)"
near "$(pct "$(fn caller_b total)" "$total")" 25 3 "inl: caller_b's Total is 25 % (+/- 3)"
cmp_ok "$(fn caller_a self)" "<=" "$(calc "$total / 100")" "inl: caller_a's Self is under 1 %: its work is mix's"
is "$(fn mix line)" "$(grep -n 'unsigned long mix' "$PROGS/inl.c" | cut -d: -f1)" "inl: mix's line is its declaration"
cmp_ok "$(pct "$(line_self inl.c "$MIX")" "$(fn mix self)")" ">=" 98 "inl: the MIXLINE line has mix's samples"
"$PROFIL" --export=folded "$T/inl.PRF" -o "$T/inl.folded" 2>/dev/null
a=$(awk '/;caller_a;mix[; ]/ { s += $NF } END { print s + 0 }' "$T/inl.folded")
b=$(awk '/;caller_b;mix[; ]/ { s += $NF } END { print s + 0 }' "$T/inl.folded")
near "$(pct "$a" "$total")" 75 3 "inl: folded stacks put mix under caller_a for 75 % (+/- 3)"
near "$(pct "$b" "$total")" 25 3 "inl: folded stacks put mix under caller_b for 25 % (+/- 3)"
# pprof: a PC of inlined code is one location whose lines are mix, then
# caller_a (innermost first), each with its line, as pprof's list reads them.
PROTO=${PROFILE_PROTO:-$(cd "$(dirname "$0")/../.." && pwd)/export/profile.proto}
"$PROFIL" --export=pprof "$T/inl.PRF" -o "$T/inl.pb.gz" 2>/dev/null
locs=$(gunzip -c "$T/inl.pb.gz" | protoc --decode=perftools.profiles.Profile -I"$(dirname "$PROTO")" \
    "$(basename "$PROTO")" 2>/dev/null | awk '
    /^string_table: / { s = $0; sub(/^string_table: "/, "", s); sub(/"$/, "", s); str[ns++] = s; next }
    /^location \{/ { inloc = 1; l = ""; next }
    /^function \{/ { infn = 1; next }
    inloc && /function_id:/ { l = l " " $2 }
    inloc && / line: / { l = l ":" $2 }
    infn && /^  id:/ { id = $2 }
    infn && /^  name:/ { name[id] = $2 }
    /^\}/ { if (inloc) locs[nl++] = l; inloc = infn = 0 }
    END { for (i = 0; i < nl; i++) { n = split(locs[i], a, " "); out = ""
            for (k = 1; k <= n; k++) { split(a[k], p, ":"); out = out " " str[name[p[1]]] ":" p[2] }
            print out } }')
like "$locs" "^ mix:$MIX caller_a:$CALLA\$" "pprof: a location of inlined code has the lines mix:$MIX, caller_a:$CALLA"
like "$locs" "^ mix:$MIX caller_b:$CALLB\$" "pprof: and another mix:$MIX, caller_b:$CALLB"

tree=$("$PROFIL" --report --tree "$T/inl.PRF" 2>&1)
like "$tree" "^ +[0-9.]+% +[0-9.]+% +mix +\\[inl\\] \\(inlined\\)" "inl: the call tree marks mix (inlined)"

# A file keeps the line of every instruction of its hottest functions: the
# disassembly read from it groups them as DWARF does.  What DWARF says is
# read from the binary with objdump -l (which line caller_a's first
# instruction has, and the first instruction of mix's line in caller_a
# depend on the compiler), not assumed.
# objdump_lines: caller_a's instructions, "LINE ADDR MNEMONIC" a line.
objdump_lines() {
    objdump -d -l --no-show-raw-insn "$PROGS/inl" 2>/dev/null | awk '
        /^[0-9a-f]+ <caller_a>:$/ { on = 1; next }
        on && /^$/ { exit }
        on && /inl\.c:[0-9]+/ { l = $0; sub(/.*inl\.c:/, "", l); sub(/[^0-9].*/, "", l); next }
        on && /^ +[0-9a-f]+:/ { a = $1; sub(/:$/, "", a); print l, a, $2 }'
}
first=$(objdump_lines | head -n 1)
hot=$(objdump_lines | awk -v m="$MIX" '$1 == m { print $2, $3; exit }')
diag "objdump -l: caller_a's first instruction is ${first:-?} (line address mnemonic); line $MIX's first ${hot:-?}"
dis=$("$PROFIL" --annotate caller_a --disasm "$T/inl.PRF" 2>&1)
like "$(printf '%s\n' "$dis" | sed -n 3p)" "^ +${first%% *} +[^ ]" \
    "--annotate --disasm of the file: caller_a's first instruction is under the line DWARF gives it (${first%% *})"
like "$dis" "^ +[0-9]+ +[0-9.]+% +[0-9.]+% +\*+ +$MIX +for " "--annotate --disasm: mix's line with its samples"
like "$dis" "^ +${hot%% *}:  ${hot#* } " "--annotate --disasm: mix's line's first instruction in caller_a (${hot:-none in objdump})"

# The call sites are lines too: with stacks, a caller's call line has the
# callee's time as its Total.
ca=$(jq -r --argjson l "$CALLA" '[.lines[] | select(.line == $l and (.file | endswith("/inl.c")))] | length' "$J")
is "$ca" 0 "inl: the CALLA line has no samples of its own"
"$PROFIL" --report --json --lines "$T/inl.PRF" >/dev/null 2>&1
is "$?" 0 "inl: --report --json --lines exits 0"

# --no-inline: mix is caller_a's and caller_b's own time again, as perf
# report without --inline counts it.
profile inl-no $drv "$PROGS/inl" --no-inline
hasnt "$(jq -r '.functions[].name' "$J")" "mix" "inl --no-inline: no function mix"
near "$(pct "$(fn caller_a self)" "$(calc "$(fn caller_a self) + $(fn caller_b self)")")" 75 3 \
    "inl --no-inline: caller_a's Self is 75 % of the callers' (+/- 3)"
J=$T/inl-no-read.json
"$PROFIL" --report --json --no-inline "$T/inl.PRF" >"$J" 2>/dev/null
hasnt "$(jq -r '.functions[].name' "$J")" "mix" "inl read with --no-inline: no function mix"
near "$(pct "$(fn caller_b self)" "$(calc "$(fn caller_a self) + $(fn caller_b self)")")" 25 3 \
    "inl read with --no-inline: caller_b's Self is 25 % of the callers' (+/- 3)"

# Without stacks, inlined code still counts in its callers' Total.
profile inl-ns $drv "$PROGS/inl" --no-stacks
near "$(pct "$(fn caller_a total)" "$(calc "$(fn caller_a total) + $(fn caller_b total)")")" 75 3 \
    "inl --no-stacks: caller_a's Total is 75 % of the callers' (+/- 3)"

# The .PRF carries the lines: the binary may go.
cp "$PROGS/lines" "$T/gone"
run "$PROFIL" --no-tui -b 1 -t 500 -o "$T/gone.PRF" "$T/gone" 10 </dev/null
rm -f "$T/gone"
J=$T/gone.json
"$PROFIL" --report --json --lines "$T/gone.PRF" >"$J" 2>"$T/gone.err"
is "$?" 0 "without its binary: --report --json --lines exits 0"
cmp_ok "$(line_self lines.c "$L75")" ">" 0 "without its binary: line $L75 still has samples"
like "$(fn "$(jq -r '[.functions[] | select(.name | startswith("work"))][0].name' "$J")" file)" \
    'lines\.c$' "without its binary: work's file is still known"

# A stripped program whose debug file is where distributions put it.
bid=$(readelf -n "$PROGS/lines" 2>/dev/null | sed -n 's/^[[:space:]]*Build ID: //p' | head -n 1)
dbg=/usr/lib/debug/.build-id/$(printf %s "$bid" | cut -c1-2)/$(printf %s "$bid" | cut -c3-).debug
if [ -z "$bid" ]; then
    fail "stripped: the program has no line table" "needs a build id in tests/progs/lines"
    fail "stripped: lines from /usr/lib/debug/.build-id" "needs a build id in tests/progs/lines"
elif [ -e "$dbg" ] || ! mkdir -p "$(dirname "$dbg")" 2>/dev/null || ! touch "$dbg" 2>/dev/null; then
    skip -n 2 "stripped: lines from /usr/lib/debug/.build-id" needs-root "needs to write $dbg (root), and none there"
else
    trap 'rm -f "$dbg"; cd /; rm -rf "$T"' EXIT
    objcopy --only-keep-debug "$PROGS/lines" "$dbg"
    strip -o "$T/lines-stripped" "$PROGS/lines"
    profile stripped ptrace "$T/lines-stripped"
    rm -f "$dbg"
    is "$(readelf -S "$T/lines-stripped" | grep -c debug_line)" 0 "stripped: the program has no line table"
    cmp_ok "$(line_self lines.c "$L75")" ">" 0 "stripped: line $L75 found through the build-id debug file"
fi

# The Multics listing: every line of the file, its samples, time, share
# and stars.
LP=$T/lines-ptrace.PRF
run "$PROFIL" --list lines.c "$LP" -o - -ll 200
is "$rc" 0 "--list: exits 0"
is "$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+( |$)')" "$(wc -l <"$PROGS/lines.c" | tr -d ' ')" \
    "--list: one listing line for every line of lines.c"
is "$(printf '%s\n' "$out" | grep -c 'stars:')" 1 "--list: the stars' legend once"
like "$out" '^ +LINE +SAMPLES +TIME +% +CALLS% +SOURCE$' "--list: the column heads a line of their own"
like "$out" "^ +$L75 +[0-9]+ +[0-9:.]+ +7[2-8]\.[0-9]+ +[0-9.]+ \*\*\*\* +for .*LOOP75" \
    "--list: line $L75 has its samples, time, ~75 % and four stars beside its source"
like "$out" "^ +$L25 +[0-9]+ +[0-9:.]+ +2[2-8]\.[0-9]+ +[0-9.]+ \*\*\*\* +for .*LOOP25" \
    "--list: line $L25 has ~25 % and four stars (20-100 %)"
like "$out" "^ +$(line_of lines 'work(5000000') .* (9[5-9]\.[0-9]+|100\.00) +work" \
    "--list: the call line in main has 95 % or more of the samples under it (CALLS%)"
near "$(printf '%s\n' "$out" | awk -v l="$L75" '$1 == l { print $2 }')" \
    "$(J=$T/lines-ptrace.json line_self lines.c "$L75")" 0 "--list: line $L75's count is --report --lines' count"
run "$PROFIL" --list lines.c "$LP" -o - --exclude stars --exclude time -ll 60 --from "$L75" --to "$L25"
is "$(printf '%s\n' "$out" | grep -cE '^ *[0-9]+( |$)')" 2 "--list --from --to: only those lines"
hasnt "$out" "****" "--list --exclude stars: no stars"
unlike "$out" "[0-9][0-9]:[0-9][0-9]\.[0-9]" "--list --exclude time: no time"
is "$(printf '%s\n' "$out" | awk 'length > 60' | wc -l | tr -d ' ')" 0 "--list -ll 60: no line is longer than 60"
(cd "$T" && "$PROFIL" --list progs/lines.c "$LP" >"$T/list.out" 2>&1)
is "$?" 0 "--list without -o: exits 0"
ok "--list without -o: writes lines.list in the current directory, as Multics wrote NAME.list" \
    grep -q "for (long i = 0; i < 3 \* n" "$T/lines.list"
has "$(cat "$T/list.out")" "written to lines.list" "--list: says where it wrote"
# Without a session: the newest .PRF here with lines.c.  old.PRF and mid.PRF
# both have it (different runs: different counts), new.PRF (inl) does not.
mkdir "$T/pick"
cp "$T/lines-ptrace.PRF" "$T/pick/old.PRF"
cp "$T/gone.PRF" "$T/pick/mid.PRF"
cp "$T/inl.PRF" "$T/pick/new.PRF"
touch -d '-2 hours' "$T/pick/old.PRF"
touch -d '-1 hour' "$T/pick/mid.PRF"
(cd "$T/pick" && "$PROFIL" --list lines.c -o - >"$T/list2.out" 2>"$T/list2.err")
is "$?" 0 "--list without a session: exits 0"
like "$(cat "$T/list2.out")" '^ +from mid\.PRF ' \
    "--list without a session: the newest .PRF here with lines.c is taken (mid.PRF, not new.PRF or old.PRF)"
is "$(awk -v l="$L75" '$1 == l { print $2 }' "$T/list2.out")" "$(J=$T/gone.json line_self lines.c "$L75")" \
    "--list without a session: line $L75's count is mid.PRF's"
run "$PROFIL" --list nosuch.c "$LP" -o -
is "$rc" 1 "--list of a file without samples: exits 1"
like "$err" "^profil: .*no sample fell in nosuch\.c \(the files with samples, most first: ([^,]*/)?lines\.c, " \
    "--list of a file without samples: one line naming the files that have some, the hottest (lines.c) first"
run "$PROFIL" --list lines.c "$LP" --from 9 --to 3 -o -
is "$rc" 2 "--list --from after --to: exits 2"
run "$PROFIL" --list lines.c "$LP" --exclude nothing -o -
like "$err" "^profil: --exclude: 'nothing' is not a column" "--list --exclude of no column: one line"
run "$PROFIL" --export folded --from 3 "$LP" -o -
is "$rc" 2 "--from without --list, --report or a replay: exits 2"

# A source moved after the build: the listing says where it looked, and
# --source-dir or --prefix-map finds it; --embed-source keeps the text in the
# .PRF.
mkdir -p "$T/build/src" "$T/moved/src"
cp "$PROGS/lines.c" "$T/build/src/lines.c"
(cd "$T/build" && cc -O2 -g -o "$T/moved-lines" src/lines.c)
run "$PROFIL" --no-tui --driver=ptrace -b 1 -t 500 -o "$T/moved.PRF" "$T/moved-lines" 10 </dev/null
run "$PROFIL" --no-tui --driver=ptrace --embed-source -b 1 -t 500 -o "$T/embedded.PRF" "$T/moved-lines" 10 </dev/null
mv "$T/build/src/lines.c" "$T/moved/src/lines.c"
run "$PROFIL" --list lines.c "$T/moved.PRF" -o -
is "$rc" 0 "moved source: --list still exits 0"
like "$err" "^profil: source not found: $T/build/src/lines\.c" "moved source: says where it looked, in one line"
like "$out" "^ +$L75 +[0-9]+ .*\*\*\*\*\$" "moved source: the counts are listed without the text"
run "$PROFIL" --list lines.c "$T/moved.PRF" -o - -ll 200 --source-dir "$T/moved"
like "$out" "LOOP75" "moved source: --source-dir finds it"
run "$PROFIL" --list lines.c "$T/moved.PRF" -o - --source-dir "$T/nowhere"
like "$err" "--source-dir $T/nowhere" "moved source: the places looked in name the --source-dir"
run "$PROFIL" --list lines.c "$T/moved.PRF" -o - -ll 200 --prefix-map "$T/build=$T/moved"
like "$out" "LOOP75" "moved source: --prefix-map OLD=NEW finds it"
run "$PROFIL" --list lines.c "$T/embedded.PRF" -o - -ll 200
like "$out" "LOOP75" "--embed-source: the session shows the text of a source that has moved"
has "$out" "source embedded in the session" "--embed-source: and says it is the embedded text"
run "$PROFIL" --list lines.c "$T/moved.PRF" -o - --prefix-map nomap
is "$rc" 2 "--prefix-map without '=': exits 2"

done_testing
