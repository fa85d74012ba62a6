#!/bin/sh
# exports.sh - profil --export=pprof, speedscope and folded on a program
# whose call structure is known (main -> middle -> leaf): each file read back
# by the format's own tools (protoc --decode, jq) and checked against the
# session's report; each stack export also read by its own consumer (go tool
# pprof) or an independent reader (awk for folded, jq for speedscope's
# documented structure), and their Self and Total the report's; a session
# without stacks exports flat; the errors.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 89

PROTO=${PROFILE_PROTO:-$(cd "$(dirname "$0")/../.." && pwd)/export/profile.proto}
if ! command -v protoc >/dev/null 2>&1; then
    echo "Bail out! protoc is not installed (apt-get install protobuf-compiler; ./setup does)"
    exit 1
fi
if ! command -v go >/dev/null 2>&1; then
    echo "Bail out! go is not installed (apt-get install golang-go; ./setup does): go tool pprof reads the pprof export"
    exit 1
fi
# go tool pprof as an ordinary user, offline: its cache and home here.
HOME=$T/home GOCACHE=$T/home/gocache GOPROXY=off GOTOOLCHAIN=local GOTELEMETRY=off
export HOME GOCACHE GOPROXY GOTOOLCHAIN GOTELEMETRY
mkdir -p "$HOME"

# st_differ GOT: the functions of want.tsv (the report's over 0.1 % of the
# samples, "NAME<TAB>SELF<TAB>TOTAL") whose Self or Total in GOT, a table
# read back from an export, differs; one a line.
st_differ() {
    awk -F '\t' 'NR == FNR { s[$1] = $2; t[$1] = $3; next }
        !($1 in s) { print $1 ": not read back"; next }
        s[$1] != $2 || t[$1] != $3 { print $1 ": report " $2 "/" $3 ", read back " s[$1] "/" t[$1] }' \
        "$1" want.tsv
}

# tests/progs/chain: main -> middle -> leaf, nearly all the time in leaf;
# built by make as a user's program would be (-O2 -g, its own build id).
if [ ! -x "$PROGS/chain" ]; then
    echo "Bail out! $PROGS/chain is not built (make tests/progs/chain)"
    exit 1
fi
BUILD_ID=$(readelf -n "$PROGS/chain" | sed -n 's/^[[:space:]]*Build ID: //p' | head -n 1)
if [ -z "$BUILD_ID" ]; then
    echo "Bail out! $PROGS/chain has no build id (readelf -n)"
    exit 1
fi

# The CPU clock: a wall clock's blocked samples (a tick in _exit, say)
# have a stack, whose leaf the exports give the sample to, but no hit, so
# the report counts them as I/O and in no function's Self.
run "$PROFIL" --no-tui --driver=ptrace --clock=cpu -b 1 -t 1000 -a 300 -o "$T/c.PRF" "$PROGS/chain" </dev/null
is "$rc" 0 "chain runs under the ptrace driver, with stacks"
"$PROFIL" --report --json "$T/c.PRF" >c.json
TOTAL=$(jq -r .counters.total c.json)
INTERVAL=$(jq -r .interval_us c.json)
cmp_ok "$TOTAL" ">" 100 "chain: over 100 samples"
jq -r '.counters.total as $t | .functions[] | select(.total * 1000 > $t)
    | "\(.name)\t\(.self)\t\(.total)"' c.json >want.tsv
cmp_ok "$(wc -l <want.tsv)" ">=" 3 "chain: main, middle and leaf at least, over 0.1 %"

# ---------------------------------------------------------------------------
# pprof: read back with protoc, flattened to one line per message:
#   S count nanos loc...     L id function mapping address
#   F id name system file    M id file build_id start limit
#   T index string           P field value      V sample_type|period_type type unit
pprof_flat() {
    gunzip -c "$1" | protoc --decode=perftools.profiles.Profile -I"$(dirname "$PROTO")" \
        "$(basename "$PROTO")" | awk '
    function reset() { split("", v); n = 0; ids = "" }
    depth == 0 && /^string_table: / {
        s = $0; sub(/^string_table: "/, "", s); sub(/"$/, "", s); print "T", t++, s; next }
    depth == 0 && /^[a-z_]+: / { sub(/:/, "", $1); print "P", $1, $2; next }
    /\{$/ { depth++; if (depth == 1) { kind = $1; reset() } next }
    /^ *\}$/ {
        if (depth == 1) {
            if (kind == "sample") print "S", v["value1"], v["value2"] ids
            else if (kind == "location") print "L", v["id"], v["function_id"] + 0, v["mapping_id"] + 0, v["address"] + 0
            else if (kind == "function") print "F", v["id"], v["name"] + 0, v["system_name"] + 0, v["filename"] + 0
            else if (kind == "mapping") print "M", v["id"], v["filename"] + 0, v["build_id"] + 0, v["memory_start"] + 0, v["memory_limit"] + 0
            else print "V", kind, v["type"] + 0, v["unit"] + 0
        }
        depth--; next }
    {
        key = $1; sub(/:$/, "", key)
        if (key == "location_id") ids = ids " " $2
        else if (key == "value") v["value" (++n)] = $2
        else v[key] = $2
    }'
}

run "$PROFIL" --export=pprof "$T/c.PRF" -o "$T/c.pb.gz" </dev/null
is "$rc" 0 "--export=pprof exits 0"
is "$err" "" "--export=pprof: nothing on stderr"
ok "--export=pprof writes a gzip file" gzip -t "$T/c.pb.gz"
pprof_flat "$T/c.pb.gz" >c.flat
ok "protoc decodes it as a perftools.profiles.Profile" test -s c.flat
# str I: string I of the table.
str() { awk -v i="$1" '$1 == "T" && $2 == i { sub(/^T [0-9]+ ?/, ""); print; exit }' c.flat; }
is "$(str 0)" "" "string_table[0] is \"\""
types=$(awk '$1 == "V" && $2 == "sample_type" { print $3, $4 }' c.flat | while read -r t u; do
    printf '%s/%s ' "$(str "$t")" "$(str "$u")"
done)
is "$types" "samples/count cpu/nanoseconds " "sample_type: samples/count, then cpu/nanoseconds"
pt=$(awk '$1 == "V" && $2 == "period_type" { print $3, $4 }' c.flat)
is "$(str "${pt% *}")/$(str "${pt#* }")" "cpu/nanoseconds" "period_type: cpu/nanoseconds"
is "$(awk '$1 == "P" && $2 == "period" { print $3 }' c.flat)" "$((INTERVAL * 1000))" \
    "period: the interval in nanoseconds"
cmp_ok "$(awk '$1 == "P" && $2 == "duration_nanos" { print $3 }' c.flat)" ">" 100000000 \
    "duration_nanos: the run's length"
cmp_ok "$(awk '$1 == "P" && $2 == "time_nanos" { print $3 }' c.flat)" ">" 1600000000000000000 \
    "time_nanos: when the run started"
is "$(awk '$1 == "S" { s += $2 } END { print s + 0 }' c.flat)" "$TOTAL" \
    "pprof: the samples' counts add up to counters.total"
is "$(awk -v i="$INTERVAL" '$1 == "S" && $3 != $2 * i * 1000 { bad++ } END { print bad + 0 }' c.flat)" 0 \
    "pprof: each sample's time is its count x the interval, in nanoseconds"
for f in main middle leaf; do
    is "$(awk -v f="$f" '$1 == "T" && $3 == f && NF == 3 { print "yes" }' c.flat)" yes \
        "pprof: the string table holds $f"
done
is "$(awk '$1 == "L" { have[$2] = 1 } $1 == "S" { for (k = 4; k <= NF; k++) want[$k] = 1 }
    END { for (k in want) if (!(k in have)) print k }' c.flat)" "" \
    "pprof: every location_id names a location"
is "$(awk '$1 == "F" { have[$2] = 1 } $1 == "L" { want[$3] = 1 }
    END { for (k in want) if (!(k in have)) print k }' c.flat)" "" \
    "pprof: every location's line names a function"
# name_of_loc ID: the function name of location ID.
name_of_loc() {
    fid=$(awk -v l="$1" '$1 == "L" && $2 == l { print $3 }' c.flat)
    str "$(awk -v f="$fid" '$1 == "F" && $2 == f { print $3 }' c.flat)"
}
hot=$(sort -k2,2nr c.flat | awk '$1 == "S" { print; exit }')
set -- $hot
is "$(name_of_loc "$4")" leaf "pprof: the hottest sample's first location is the leaf function"
is "$(name_of_loc "$5")" middle "pprof: ... its second is its caller, middle"
is "$(name_of_loc "$6")" main "pprof: ... its third is main"
M=$(awk -v p="$PROGS/chain" '$1 == "T" && NF == 3 && $3 == p { print $2; exit }' c.flat)
isnt "$M" "" "pprof: the string table holds the program's path"
mapping=$(awk -v m="$M" '$1 == "M" && $3 == m { print; exit }' c.flat)
set -- $mapping
is "$2" 1 "pprof: the program's mapping comes first (id 1)"
is "$(str "$4")" "$BUILD_ID" "pprof: the program's mapping has its build id (readelf -n)"
cmp_ok "$6" ">" "$5" "pprof: the program's mapping spans its segments"
is "$(awk -v lo="$5" -v hi="$6" '$1 == "L" && $4 == 1 && ($5 < lo || $5 >= hi) { print $2 }' c.flat)" "" \
    "pprof: the program's locations lie inside its mapping"
# The leaf's address is an address in the image, inside leaf as nm sees it.
leaf_lo=$(nm -S "$PROGS/chain" | awk '$4 == "leaf" { print $1 }')
leaf_size=$(nm -S "$PROGS/chain" | awk '$4 == "leaf" { print $2 }')
set -- $hot
leaf_addr=$(awk -v l="$4" '$1 == "L" && $2 == l { print $5 }' c.flat)
cmp_ok "$leaf_addr" ">=" "$((0x$leaf_lo))" "pprof: the leaf's address is in leaf (nm): at or after its start"
cmp_ok "$leaf_addr" "<" "$((0x$leaf_lo + 0x$leaf_size))" "pprof: ... and before its end"

"$PROFIL" --export=pprof "$T/c.PRF" -o - </dev/null >stdout.pb.gz
gunzip -c "$T/c.pb.gz" >c.pb
gunzip -c stdout.pb.gz >stdout.pb
ok "--export=pprof -o -: the same profile on standard output" cmp -s c.pb stdout.pb

# go tool pprof, the format's own reader, in samples: -top's flat and cum
# are the report's Self and Total, and -traces' stacks the folded export's.
PPROF="go tool pprof -sample_index=samples -symbolize=none"
# by_stack: folded lines with the counts of each stack added up, sorted.
by_stack() {
    awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (k in c) print k " " c[k] }' | sort
}
run $PPROF -top -nodecount=1000000 -nodefraction=0 "$T/c.pb.gz" </dev/null
is "$rc" 0 "go tool pprof -top reads the pprof export"
printf '%s\n' "$out" | awk '
    /^ +flat +flat% +sum% +cum +cum%$/ { table = 1; next }
    table && NF >= 6 {
        name = $6; for (k = 7; k <= NF; k++) name = name " " $k
        sub(/ \(inline\)$/, "", name)
        print name "\t" $1 "\t" $4
    }' >pprof-top.tsv
is "$(st_differ pprof-top.tsv)" "" "go tool pprof -top: each function's flat and cum are the report's Self and Total"
like "$out" "^Type: samples$" "go tool pprof: the samples' type is samples"
like "$out" "Total samples = $TOTAL( |$)" "go tool pprof: Total samples is counters.total"
run $PPROF -traces "$T/c.pb.gz" </dev/null
is "$rc" 0 "go tool pprof -traces reads the pprof export"
# Each trace (its count and leaf on the first line, the callers under it)
# as a folded line; pprof's traces are by PC, the folded lines by name, so
# both add up by name (by_stack).
printf '%s\n' "$out" | awk '
    function flush() { if (n > 0) { line = f[n]; for (k = n - 1; k >= 1; k--) line = line ";" f[k]; print line " " v } n = 0 }
    /^-+\+-+$/ { flush(); body = 1; next }
    !body { next }
    {
        name = $0; sub(/^ +/, "", name)
        if (n == 0) { v = name; sub(/ .*/, "", v); sub(/^[^ ]+ +/, "", name) }
        sub(/ \(inline\)$/, "", name)
        f[++n] = name
    }
    END { flush() }' | by_stack >pprof-traces.txt
"$PROFIL" --export=folded "$T/c.PRF" -o - </dev/null | by_stack >folded-sorted.txt
cmp_ok "$(wc -l <pprof-traces.txt)" ">=" 1 "go tool pprof -traces: traces read"
is "$(diff pprof-traces.txt folded-sorted.txt)" "" "go tool pprof -traces: the stacks and their counts are the folded export's"

# ---------------------------------------------------------------------------
# speedscope
run "$PROFIL" --export=speedscope "$T/c.PRF" -o "$T/c.speedscope.json" </dev/null
is "$rc" 0 "--export=speedscope exits 0"
S=$T/c.speedscope.json
is "$(jq -r '."$schema"' "$S")" "https://www.speedscope.app/file-format-schema.json" \
    "speedscope: the schema URL"
is "$(jq -r '.profiles | length' "$S")" 2 "speedscope: two profiles, the program's and its one thread's"
is "$(jq -r '.profiles[0] | "\(.type) \(.name) \(.unit) \(.startValue)"' "$S")" \
    "sampled chain microseconds 0" "speedscope: sampled, named after the program, in microseconds"
for f in main middle leaf; do
    is "$(jq -r --arg f "$f" '[.shared.frames[] | select(.name == $f)] | length' "$S")" 1 \
        "speedscope: one frame named $f"
done
is "$(jq -r '.shared.frames[] | select(.name == "main") | .file' "$S")" "$PROGS/chain" \
    "speedscope: main's file is the program"
is "$(jq -r '.profiles[0].weights | add' "$S")" "$((TOTAL * INTERVAL))" \
    "speedscope: the weights add up to total x interval"
is "$(jq -r '.profiles[0] | (.weights | add) == .endValue' "$S")" true "speedscope: endValue is the total weight"
is "$(jq -r '.profiles[0] | (.samples | length) == (.weights | length)' "$S")" true \
    "speedscope: a weight per sample"
is "$(jq -r '(.shared.frames | length) as $n | [.profiles[0].samples[][] | select(. < 0 or . >= $n)] | length' "$S")" 0 \
    "speedscope: every frame index is valid"
is "$(jq -r '.shared.frames as $f | [.profiles[0].samples[] | $f[.[0]].name]
    | map(select(. != "_start" and . != "[unknown]" and . != "[truncated]" and . != "[unaccounted]")) | length' "$S")" 0 \
    "speedscope: each sample starts at the outermost frame (_start, where unwinding gave out, or [unaccounted])"
is "$(jq -r '.shared.frames as $f | .profiles[0] | [.samples, .weights] | transpose
    | max_by(.[1]) | .[0][-3:] | map($f[.].name) | join(" ")' "$S")" "main middle leaf" \
    "speedscope: the hottest sample ends main, middle, leaf"
# speedscope's file format, as its schema documents it
# (https://www.speedscope.app/file-format-schema.json).  Validating against
# the schema itself would take npm and a validator from it, which the build
# does not want; jq checks the structure the schema requires instead.
is "$(jq -r '[.shared.frames[] | (.name | type) == "string"] | all' "$S")" true \
    "speedscope: every frame has a name"
is "$(jq -r '[.profiles[] | .type == "sampled" and (.name | type) == "string"
    and (.unit == "microseconds" or .unit == "none")
    and (.samples | length) == (.weights | length)] | all' "$S")" true \
    "speedscope: every profile is sampled, named, in a unit of the schema, a weight for each sample"
is "$(jq -r '(.shared.frames | length) as $n | [.profiles[].samples[][] | select(type != "number" or . < 0 or . >= $n or . != floor)] | length' "$S")" 0 \
    "speedscope: every frame index of every profile is in shared.frames"
is "$(jq -r '.activeProfileIndex < (.profiles | length)' "$S")" true "speedscope: activeProfileIndex names a profile"
jq -r --argjson i "$INTERVAL" '.shared.frames as $f | .profiles[0] | [.samples, .weights] | transpose
    | map({w: (.[1] / $i), names: (.[0] | map($f[.].name))})
    | (map({k: .names[-1], w}) | group_by(.k) | map({key: .[0].k, value: (map(.w) | add)}) | from_entries) as $self
    | (map(.w as $w | .names | unique | map({k: ., w: $w})) | add | group_by(.k)
       | map("\(.[0].k)\t\($self[.[0].k] // 0)\t\(map(.w) | add)")) | .[]' "$S" >speedscope.tsv
is "$(st_differ speedscope.tsv)" "" "speedscope: each function's samples as leaf and in a stack are the report's Self and Total"

# ---------------------------------------------------------------------------
# folded
run "$PROFIL" --export=folded "$T/c.PRF" -o - </dev/null
is "$rc" 0 "--export=folded -o - exits 0"
is "$(printf '%s\n' "$out" | awk '{ s += $NF } END { print s + 0 }')" "$TOTAL" \
    "folded: the counts add up to counters.total"
like "$out" '(^|;)main;middle;leaf [0-9]+$' "folded: main;middle;leaf"
# An independent reader: a leaf's samples are its Self; the samples whose
# stack holds a frame, once however often, its Total.
printf '%s\n' "$out" | awk '
    {
        n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack)
        k = split(stack, f, ";"); self[f[k]] += n; split("", seen)
        for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; total[f[i]] += n }
    }
    END { for (x in total) print x "\t" self[x] + 0 "\t" total[x] }' >folded.tsv
is "$(st_differ folded.tsv)" "" "folded: each function's leaf samples and stacks are the report's Self and Total"

# ---------------------------------------------------------------------------
# A session without stacks exports flat: one frame a sample.
run "$PROFIL" --no-tui --no-stacks --driver=ptrace -b 1 -t 1000 -a 100 -o "$T/flat.PRF" "$PROGS/chain" </dev/null
is "$rc" 0 "chain runs with --no-stacks"
FTOTAL=$(json "$T/flat.PRF" .counters.total)
run "$PROFIL" --export=pprof "$T/flat.PRF" -o "$T/flat.pb.gz" </dev/null
is "$rc" 0 "--no-stacks: --export=pprof exits 0"
pprof_flat "$T/flat.pb.gz" >c.flat
pt=$(awk '$1 == "V" && $2 == "period_type" { print $3, $4 }' c.flat)
is "$(str "${pt% *}")/$(str "${pt#* }")" "wall/nanoseconds" "the wall clock's period_type: wall/nanoseconds"
is "$(awk '$1 == "S" { s += $2 } END { print s + 0 }' c.flat)" "$FTOTAL" \
    "--no-stacks: pprof's counts add up to counters.total"
is "$(awk '$1 == "S" && NF != 4 { n++ } END { print n + 0 }' c.flat)" 0 \
    "--no-stacks: every pprof sample has one location"
hot=$(sort -k2,2nr c.flat | awk '$1 == "S" { print; exit }')
set -- $hot
is "$(name_of_loc "$4")" leaf "--no-stacks: pprof's hottest sample is leaf"
run "$PROFIL" --export=speedscope "$T/flat.PRF" -o - </dev/null
is "$rc" 0 "--no-stacks: --export=speedscope exits 0"
printf '%s\n' "$out" >flat.json
is "$(jq -r '.profiles[0].weights | add' flat.json)" "$((FTOTAL * INTERVAL))" \
    "--no-stacks: speedscope's weights add up to total x interval"
is "$(jq -r '[.profiles[0].samples[] | length] | unique | join(" ")' flat.json)" 1 \
    "--no-stacks: every speedscope sample has one frame"

# ---------------------------------------------------------------------------
# speedscope, one profile per thread: tests/progs/threads runs thread_a,
# thread_b and thread_c on threads of their own.
run "$PROFIL" --no-tui --driver=ptrace -b 1 -t 1000 -a 150000000 -o "$T/thr.PRF" "$PROGS/threads" </dev/null
is "$rc" 0 "threads runs with stacks"
run "$PROFIL" --export=speedscope "$T/thr.PRF" -o - </dev/null
printf '%s\n' "$out" >thr.json
nprof=$(jq -r '.profiles | length' thr.json)
cmp_ok "$nprof" ">=" 4 "speedscope: the whole program's profile and one per thread (4 or more)"
is "$(jq -r '[.profiles[1:][] | .name | test(", thread [0-9]+$")] | all' thr.json)" true \
    "speedscope: the thread profiles are named 'NAME, thread TID'"
is "$(jq -r '[.profiles[1:][] | (.weights | add) == .endValue] | all' thr.json)" true \
    "speedscope: each thread's endValue is the sum of its weights"
cmp_ok "$(jq -r '[.profiles[1:][] | .weights | add] | add' thr.json)" "<=" \
    "$(jq -r '.profiles[0].weights | add' thr.json)" \
    "speedscope: the threads' weights add up to no more than the whole program's"
# Each worker's function is on one thread's profile only.
for f in thread_a thread_b thread_c; do
    is "$(jq -r --arg f "$f" '(.shared.frames | map(.name == $f) | index(true)) as $i
        | [.profiles[1:][] | select([.samples[][] | select(. == $i)] | length > 0)] | length' thr.json)" 1 \
        "speedscope: $f is on one thread's profile"
done

# ---------------------------------------------------------------------------
# Errors
run "$PROFIL" --export=svg "$T/c.PRF" -o x </dev/null
is "$rc" 2 "--export=svg: exit 2"
has "$err" "classic, folded, pprof, speedscope" "--export=svg: the message lists every format"
for fmt in pprof speedscope; do
    run "$PROFIL" --export=$fmt "$T/c.PRF" -o "$T/no/such/dir/out" </dev/null
    is "$rc" 1 "--export=$fmt to an unwritable -o: exit 1"
    is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "--export=$fmt to an unwritable -o: one line"
    has "$err" "Cannot open output file" "--export=$fmt to an unwritable -o: says so"
done
run "$PROFIL" --export=pprof "$T/c.PRF" </dev/null
is "$rc" 2 "--export without -o: exit 2"
run "$PROFIL" --help </dev/null
has "$out" "pprof (a gzipped" "--help names pprof"
has "$out" "speedscope (its" "--help names speedscope"

done_testing
