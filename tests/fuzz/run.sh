#!/bin/sh
# Run every fuzz target (tests/fuzz/fuzz_*.c) for its share of SECONDS, one
# after another, each over a copy of its corpus, from the top of a build tree
# configured with --enable-fuzzing (./setup CC=clang --enable-fuzzing
# --enable-sanitizers).  One line per target:
#   ok - fuzz_NAME: N runs in S s, nothing found
#   not ok - fuzz_NAME: found crash-... (what the sanitizer or libFuzzer said)
# followed, for a finding, by the input in base64 on a "# " line (a CI log
# shows it: base64 -d to get it back).  Exits non-zero when a target found
# something or did not run.
#   tests/fuzz/run.sh SECONDS
set -u
if [ $# -ne 1 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
    echo "usage: tests/fuzz/run.sh SECONDS" >&2
    exit 2
fi
src=$(cd "$(dirname "$0")" && pwd)
top=$(pwd)
names=""
for f in "$src"/fuzz_*.c; do
    n=${f##*/fuzz_}
    names="$names ${n%.c}"
done
count=$(echo $names | wc -w)
share=$(($1 / count))
[ "$share" -gt 0 ] || share=1
work=$(mktemp -d "${TMPDIR:-/tmp}/profil-fuzz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
for name in $names; do
    bin="$top/tests/fuzz/fuzz_$name"
    corpus="$src/corpus-$name"
    [ "$name" = prf ] && corpus="$src/corpus"
    if [ ! -x "$bin" ]; then
        echo "not ok - fuzz_$name: not built (configure with --enable-fuzzing, then make)"
        status=1
        continue
    fi
    dir="$work/$name"
    mkdir -p "$dir/corpus" && cp "$corpus"/* "$dir/corpus/"
    start=$(date +%s)
    # Its scratch files in $dir too (fuzz_dir): a target that aborts leaves them there.
    TMPDIR="$dir" "$bin" -max_total_time="$share" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
    found=$(cd "$dir" && ls crash-* leak-* timeout-* oom-* 2>/dev/null)
    if [ "$rc" = 0 ] && [ -z "$found" ]; then
        echo "ok - fuzz_$name: ${runs:-0} runs in $secs s, nothing found"
        continue
    fi
    status=1
    # What was found: the sanitizer's or libFuzzer's own words.
    what=$(grep -m 1 -E '^==[0-9]+==ERROR|^ERROR: libFuzzer|^SUMMARY: |runtime error:|^fuzz' \
        "$dir/log" | sed 's/^==[0-9]*==//')
    if [ -z "$found" ]; then
        echo "not ok - fuzz_$name: failed to run (exit $rc) after ${runs:-0} runs in $secs s${what:+: $what}"
        tail -n 20 "$dir/log" | sed 's/^/# /'
        continue
    fi
    echo "not ok - fuzz_$name: found" $found "after ${runs:-0} runs in $secs s${what:+: $what}"
    # Where: the frames of profil's code in the first stack, then the summary.
    sed -n '/^    #[0-9]/p; /^SUMMARY: /{p;q;}' "$dir/log" |
        grep -v -E 'fuzzer::|__sanitizer|libc\.so|libc_start|pthread_kill|raise\.c|abort\.c| in _start ' |
        head -n 12 | sed 's/ (BuildId: [0-9a-f]*)//; s/^/# /'
    for f in $found; do
        echo "# $f, base64:"
        echo "# $(base64 -w0 "$dir/$f")"
    done
done
exit $status
