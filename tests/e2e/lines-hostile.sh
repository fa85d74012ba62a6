#!/bin/sh
# lines-hostile.sh - source lines from debug information that lies, and
# source files that are no text: copies of tests/progs/lines.c built with -g
# whose .debug_line holds wild addresses or garbage, whose .debug_info is
# garbage or claims more than its section, profiled live; then a source
# file grown past 64 MiB (sparse) and a FIFO in its place for --list and
# --annotate.  profil must not crash, must exit as usual, and must say
# what it could not show in one line, or show no lines.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

# 2 checks of the good copy, 11 for each of the 7 damaged ones, 9 of the
# huge and FIFO sources.
plan 88
if ! command -v cc >/dev/null 2>&1 || ! command -v objcopy >/dev/null 2>&1 ||
    ! command -v perl >/dev/null 2>&1; then
    # ./setup installs them (build-essential, binutils; perl-base is essential).
    fail "hostile debug information" "needs cc, objcopy and perl (build-essential, binutils, perl-base)"
    done_testing
fi

mkdir -p "$T/src"
cp "$PROGS/lines.c" "$T/src/lines.c"
# The test's own build: not a check of profil's; without it nothing here runs.
if ! (cd "$T/src" && cc -O2 -g -o "$T/good" lines.c); then
    echo "Bail out! cc -O2 -g could not build a copy of lines.c"
    exit 1
fi

# section PROG NAME: the bytes of section NAME of PROG into $T/NAME.bin.
section() {
    objcopy --dump-section "$2=$T/$2.bin" "$1" "$T/junk" 2>/dev/null
}
# replace PROG NAME FILE OUT: OUT is PROG with section NAME's bytes from FILE.
replace() {
    objcopy --update-section "$2=$3" "$1" "$4" 2>"$T/objcopy.err"
}
# fill N BYTE: N bytes of BYTE (octal), on stdout.
fill() {
    head -c "$1" /dev/zero | tr '\0' "\\$2"
}

section "$T/good" .debug_line
section "$T/good" .debug_info
nline=$(wc -c <"$T/.debug_line.bin" | tr -d ' ')
ninfo=$(wc -c <"$T/.debug_info.bin" | tr -d ' ')
if [ "${nline:-0}" -eq 0 ] || [ "${ninfo:-0}" -eq 0 ]; then
    echo "Bail out! cc -g made no .debug_line ($nline bytes) or .debug_info ($ninfo bytes)"
    exit 1
fi

# The damaged copies.
fill "$nline" 377 >"$T/line-ff"
replace "$T/good" .debug_line "$T/line-ff" "$T/line-ff.prog"
fill "$nline" 0 >"$T/line-00"
replace "$T/good" .debug_line "$T/line-00" "$T/line-00.prog"
fill "$ninfo" 377 >"$T/info-ff"
replace "$T/good" .debug_info "$T/info-ff" "$T/info-ff.prog"
# The first unit claims 4 GiB - 16 bytes: more than the section holds.
{ printf '\360\377\377\377'; tail -c +5 "$T/.debug_info.bin"; } >"$T/info-long"
replace "$T/good" .debug_info "$T/info-long" "$T/info-long.prog"
# Every DW_LNE_set_address (0, 9, 2, then 8 bytes) sets a wild address,
# each one further out; and the same section as random bytes.
perl -0777 -pe 'my $k = 0; s/\x00\x09\x02(.{8})/"\x00\x09\x02" . pack("Q<", 0xdead000000000000 + 4096 * $k++)/gse' \
    "$T/.debug_line.bin" >"$T/line-wild"
# The test's own rewrite: no check of profil's, but a table it left as it
# was would make line-wild a copy of the good program.
if cmp -s "$T/.debug_line.bin" "$T/line-wild"; then
    echo "Bail out! no DW_LNE_set_address in $T/good's .debug_line: line-wild would be the good program"
    exit 1
fi
replace "$T/good" .debug_line "$T/line-wild" "$T/line-wild.prog"
perl -e 'srand(13); print pack("C*", map { int rand 256 } 1 .. $ARGV[0])' "$nline" >"$T/line-rand"
replace "$T/good" .debug_line "$T/line-rand" "$T/line-rand.prog"
perl -e 'srand(17); print pack("C*", map { int rand 256 } 1 .. $ARGV[0])' "$ninfo" >"$T/info-rand"
replace "$T/good" .debug_info "$T/info-rand" "$T/info-rand.prog"
KINDS="line-wild line-rand line-ff line-00 info-ff info-long info-rand"

L75=$(grep -n LOOP75 "$PROGS/lines.c" | cut -d: -f1)

# work_of FILE: the name work has in FILE (gcc may make it work.constprop.0).
work_of() {
    "$PROFIL" --report --json "$1" 2>/dev/null |
        jq -r '[.functions[] | select(.name | startswith("work"))][0].name // "work"' 2>/dev/null
}

# The good copy first: what the damaged ones are held against.
run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/good.PRF" "$T/good" 10 </dev/null
is "$rc" 0 "good: profil exits 0"
WORK=$(work_of "$T/good.PRF")
run "$PROFIL" --annotate="$WORK" "$T/good.PRF"
like "$out" "^ +[0-9]+ +[0-9.]+% .* $L75 +for .*LOOP75" "good: --annotate shows LOOP75 with its samples"

# list_why K: --list's stderr is one line: no sample of K.PRF fell in lines.c.
list_why() {
    if [ "$(lines "$err")" = 1 ] &&
        printf '%s\n' "$err" | grep -Eq "^profil: $T/$1\\.PRF: no sample fell in lines\\.c "; then
        return 0
    fi
    diag "stderr: $err"
    return 1
}

for k in $KINDS; do
    prog=$T/$k.prog
    if [ ! -x "$prog" ]; then
        for _i in 1 2 3 4 5 6 7 8 9 10 11; do
            fail "$k: profiled ($_i of 11)" "objcopy could not write it: $(head -n 1 "$T/objcopy.err")"
        done
        continue
    fi
    run "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/$k.PRF" "$prog" 10 </dev/null
    is "$rc" 0 "$k: profil runs the program and exits 0"
    ok "$k: the session is saved" test -s "$T/$k.PRF"
    unlike "$err" "AddressSanitizer|runtime error|Segmentation|Aborted" "$k: no crash, no sanitizer report"
    run "$PROFIL" --report --lines "$T/$k.PRF"
    is "$rc" 0 "$k: --report --lines exits 0"
    like "$out" "^[0-9:.]+ +work[. ]" "$k: work is still ranked (its name is in .symtab)"
    run "$PROFIL" --report --json --lines "$T/$k.PRF"
    is "$(printf '%s\n' "$out" | jq -r '.lines | type' 2>/dev/null)" array "$k: the JSON report has its lines array"
    run "$PROFIL" --annotate="$WORK" "$T/$k.PRF"
    is "$rc" 0 "$k: --annotate=$WORK exits 0"
    like "$out" "^Annotated $WORK " "$k: --annotate names the function"
    # Either lines (the damage left some readable) or one line saying why not.
    if printf '%s\n' "$out" | grep -q '^  no source lines: '; then
        is "$(printf '%s\n' "$out" | grep -c '^  no source lines: ')" 1 "$k: one line says why there are no lines"
    else
        like "$out" "^ +[0-9]+  " "$k: lines are shown, numbered"
    fi
    diag "$k: $(printf '%s\n' "$out" | sed -n 2p)"
    # Either the lines are listed (exit 0, nothing said) or one line says
    # why not and nothing is listed (exit 1): the status must be the result's.
    run "$PROFIL" --list lines.c "$T/$k.PRF" -o -
    case $rc in
    0) is "$(lines "$err") $([ -n "$out" ] && echo listed)" "0 listed" \
        "$k: --list exits 0: the lines are listed, nothing said" ;;
    *) is "$rc $(lines "$out")" "1 0" "$k: --list fails with exit 1 and lists nothing" ;;
    esac
    if [ "$rc" = 0 ]; then
        like "$out" "^ +[0-9]+ +[0-9]+ " "$k: --list: numbered lines with their counts"
    else
        ok "$k: --list says why in one line: no sample fell in lines.c" list_why "$k"
    fi
done

# A huge source (sparse, past the 64 MiB profil reads) and a FIFO in the
# source's place: the counts are listed, the text is not, and nothing waits.
LP=$T/good.PRF
truncate -s 65M "$T/src/lines.c"
run timeout 20 "$PROFIL" --list lines.c "$LP" -o -
is "$rc" 0 "huge source: --list exits 0 (and at once)"
like "$err" "^profil: source not found: $T/src/lines\\.c \\(larger than 64 MiB\\)" \
    "huge source: one line says it is larger than 64 MiB"
like "$out" "^ +$L75 +[0-9]+ " "huge source: line $L75's count is listed without its text"
run timeout 20 "$PROFIL" --annotate="$WORK" "$LP"
is "$rc" 0 "huge source: --annotate exits 0"
like "$out" "lines\\.c  -- source not found: .*larger than 64 MiB" "huge source: --annotate says why no text"
rm -f "$T/src/lines.c"
mkfifo "$T/src/lines.c"
run timeout 20 "$PROFIL" --list lines.c "$LP" -o -
is "$rc" 0 "FIFO source: --list exits 0 without waiting for a writer"
like "$err" "^profil: source not found: $T/src/lines\\.c \\(not a regular file\\)" \
    "FIFO source: one line says it is not a regular file"
run timeout 20 "$PROFIL" --annotate="$WORK" "$LP"
is "$rc" 0 "FIFO source: --annotate exits 0 without waiting"
like "$out" "lines\\.c  -- source not found: .*not a regular file" "FIFO source: --annotate says why no text"
rm -f "$T/src/lines.c"

done_testing
