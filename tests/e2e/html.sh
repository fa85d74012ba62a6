#!/bin/sh
# html.sh - profil --export=html read back by a browser: the page is loaded
# from disk in headless Chromium with #selftest, and what it drew (each box:
# its path of names, its samples, its place) is written into the page, which
# Chromium's --dump-dom prints.  A program whose call structure is known
# (tests/progs/chain evil: main -> middle -> leaf, and main -> a function named
# "</script><p id=pwned>&<!--evil"): the boxes against --export=folded's
# stacks, the search and its share, zoom, the inverted view, one thread of
# several, a diff page, a 100,000-stack broom's size and time, a screenshot
# (kept as tests/html.png in the build tree), and the errors.
E2E_ALONE=1 # Chromium takes both CPUs: the tests beside it would be late
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 61

if ! command -v chromium >/dev/null 2>&1; then
    echo "Bail out! chromium is not installed (apt-get install chromium; ./setup does)"
    exit 1
fi
: "${MKBOMB:=$PROGS/../prf/mkbomb}"
if [ ! -x "$MKBOMB" ]; then
    echo "Bail out! $MKBOMB is not built (make tests/prf/mkbomb)"
    exit 1
fi

# chromium ARGS...: headless, as root or not, with a home of its own here.
mkdir -p home
chromium_run() {
    HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache \
        timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$T/home/chromium" --window-size=1400,900 "$@" 2>>chromium.err
}

# browse FILE [FRAGMENT]: load FILE#selftest&FRAGMENT; what the page drew,
# unescaped, into drawn.txt ("R PATH SAMPLES X WIDTH ROW HL DIFF" lines and
# "KEY VALUE" ones), and the DOM into dom.html.
browse() {
    chromium_run --dump-dom "file://$1#selftest${2:+&$2}" >dom.html
    awk '/<pre id="drawn"/ { on = 1 } on { print } on && /<\/pre>/ { exit }' dom.html |
        sed -e 's/^<pre id="drawn"[^>]*>//' -e 's/<\/pre>$//' \
            -e 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' >drawn.txt
}
# got KEY: the value of the "KEY VALUE" line of drawn.txt.
got() { awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' drawn.txt; }
# boxes: the R lines, tab-separated: path, samples, x, width, row, hl, diff.
boxes() { awk -F'\t' '$1 == "R"' drawn.txt | cut -f2-; }
# misplaced: the boxes whose children do not start at its left edge, one
# after the other (each at the end of the one before, within 0.15 px).
misplaced() {
    boxes | sort -t"$(printf '\t')" -k3,3n | awk -F'\t' '
        { x[$1] = $3; w[$1] = $4; p = $1; if (sub(/;[^;]*$/, "", p) == 0) p = ""
          at = (p in next_x) ? next_x[p] : (p == "" ? 0 : x[p])
          if ($3 - at > 0.15 || at - $3 > 0.15) print $1 " at " $3 ", want " at
          next_x[p] = $3 + $4 }'
}

# tests/progs/chain: main -> middle -> leaf; with "evil", main also calls
# the function named EVIL each round.
if [ ! -x "$PROGS/chain" ]; then
    echo "Bail out! $PROGS/chain is not built (make tests/progs/chain)"
    exit 1
fi
EVIL='</script><p id=pwned>&<!--evil'

run "$PROFIL" --no-tui --driver=ptrace -b 1 -t 1000 -a "300 evil" -o "$T/c.PRF" "$PROGS/chain" </dev/null
is "$rc" 0 "chain runs under the ptrace driver, with stacks"
TOTAL=$(json "$T/c.PRF" .counters.total)
cmp_ok "$TOTAL" ">" 200 "chain: over 200 samples"
"$PROFIL" --export=folded "$T/c.PRF" -o folded.txt </dev/null
# Each stack prefix of the folded file with its samples: PATH<TAB>SAMPLES.
awk '{ c = $NF; line = substr($0, 1, length($0) - length(c) - 1)
       n = split(line, f, ";"); p = ""
       for (i = 1; i <= n; i++) { p = (i > 1 ? p ";" : "") f[i]; s[p] += c } }
     END { for (k in s) printf "%s\t%d\n", k, s[k] }' folded.txt | sort >prefixes.txt

run "$PROFIL" --export=html "$T/c.PRF" -o "$T/c.html" </dev/null
is "$rc" 0 "--export=html exits 0"
is "$err" "" "--export=html: nothing on stderr"
head -c 15 c.html >head.txt
is "$(cat head.txt)" "<!DOCTYPE html>" "the file is an HTML page"
is "$(grep -ciE '<(script|link|img|iframe)[^>]*(src|href)=|https?://|@import|url\(' c.html)" 0 \
    "self-contained: no script, style or image from elsewhere, no address"

# ---------------------------------------------------------------------------
# The whole profile, top-down.
browse "$T/c.html"
is "$(got total)" "$TOTAL" "the page's total is counters.total"
boxes >boxes.txt
cmp_ok "$(wc -l <boxes.txt)" ">=" 5 "it drew boxes (5 or more)"
# Every box drawn is a stack prefix of the folded file, with its samples.
bad=$(awk -F'\t' 'NR == FNR { want[$1] = $2; next }
    !($1 in want) || want[$1] != $2 { print $1 " drew " $2 ", folded says " want[$1] }' \
    prefixes.txt boxes.txt)
is "$bad" "" "each box's samples are its stack prefix's sum in --export=folded"
# And every prefix with 1 % of the samples or more is drawn.
missing=$(awk -F'\t' -v t="$TOTAL" 'NR == FNR { drawn[$1] = 1; next }
    $2 * 100 >= t && !($1 in drawn) { print $1 }' boxes.txt prefixes.txt)
is "$missing" "" "every stack prefix with 1 % of the samples or more is drawn"
is "$(misplaced)" "" "each box's children start at its left edge, one after the other"
W=$(got width)
HOT=$(awk -F'\t' '$1 ~ /(^|;)main;middle;leaf$/' boxes.txt | sort -t"$(printf '\t')" -k2,2nr | head -n 1)
HOTPATH=$(printf '%s\n' "$HOT" | cut -f1)
HOTN=$(printf '%s\n' "$HOT" | cut -f2)
isnt "$HOTPATH" "" "main;middle;leaf is drawn"
near "$(printf '%s\n' "$HOT" | cut -f4)" "$(calc "$HOTN * $W / $TOTAL")" 1 \
    "its width is its share of the canvas's (within a pixel)"
MAINPATH=${HOTPATH%;middle;leaf}
is "$(awk -F'\t' -v p="$MAINPATH;$EVIL" '$1 == p { print "yes" }' boxes.txt)" yes \
    "the hostile name is drawn as a frame of its own under main"
is "$(grep -c 'id="pwned"' dom.html)" 0 "... and opened no element of the page"
like "$(cat drawn.txt)" "^draw_ms [0-9]" "... and the script ran to its end"
FIRST=$(got first_draw_ms)
diag "chain: $(wc -c <c.html) bytes, first draw at $FIRST ms (parse $(got parse_ms), build $(got build_ms), draw $(got draw_ms))"

# The pointer over middle: its name, module, Total and Self.
browse "$T/c.html" "hover=$MAINPATH;middle"
MTOTAL=$(awk -F'\t' -v p="$MAINPATH;middle" '$1 == p { print $2 }' prefixes.txt)
MSELF=$(awk -v p="$MAINPATH;middle" '{ c = $NF; if (substr($0, 1, length($0) - length(c) - 1) == p) s += c }
    END { print s + 0 }' folded.txt)
pc() { awk -v a="$1" -v t="$TOTAL" 'BEGIN { printf "%.2f%%", 100 * a / t }'; }
is "$(awk '$1 == "tip"' drawn.txt | sed 's/^tip //')" "$(printf '%s\n' middle \
    'Module: chain (program)' "Total:  $MTOTAL samples, $(pc "$MTOTAL")" \
    "Self:   $MSELF samples, $(pc "$MSELF")")" \
    "hover on middle: its name, module and kind, Total and Self as --export=folded has them"

# ---------------------------------------------------------------------------
# Search: "le" names middle and leaf (and maybe others); a sample with both
# on its stack counts once.
browse "$T/c.html" "search=le"
WANT=$(awk '{ c = $NF; line = substr($0, 1, length($0) - length(c) - 1)
    if (tolower(line) ~ /le/) s += c } END { print s + 0 }' folded.txt)
NAIVE=$(awk '{ c = $NF; line = substr($0, 1, length($0) - length(c) - 1)
    n = split(line, f, ";"); for (i = 1; i <= n; i++) if (tolower(f[i]) ~ /le/) s += c }
    END { print s + 0 }' folded.txt)
is "$(got share | cut -d' ' -f1)" "$WANT" "search le: its share is the samples with a match on their stack"
cmp_ok "$NAIVE" ">" "$WANT" "... which is less than the matching frames' sum (each sample once)"
is "$(got share | cut -d' ' -f2)" "$(pc "$WANT")" \
    "... and its percentage of the total"
boxes >search.txt
is "$(awk -F'\t' '{ n = split($1, f, ";"); m = tolower(f[n]) ~ /le/ }
    (m && $6 != "hl") || (!m && $6 == "hl") { print $1 }' search.txt)" "" \
    "the boxes highlighted are exactly those whose name matches"
is "$(awk -F'\t' '$1 == p { print $6 }' p="$HOTPATH" search.txt)" hl "leaf is highlighted"
is "$(awk -F'\t' '$1 == p { print $6 }' p="$MAINPATH" search.txt)" - "main is not"

# ---------------------------------------------------------------------------
# Zoom into middle: it is the full width, at the top, and nothing outside it
# is drawn.
browse "$T/c.html" "zoom=$MAINPATH;middle"
is "$(got zoom)" "$MAINPATH;middle" "zoom: the page zoomed into main;middle"
boxes >zoom.txt
FIRSTBOX=$(head -n 1 zoom.txt)
is "$(printf '%s\n' "$FIRSTBOX" | cut -f1,3,5)" "$(printf '%s\t0.0\t0' "$MAINPATH;middle")" \
    "zoom: middle is the first box, at x 0 on the top row"
is "$(printf '%s\n' "$FIRSTBOX" | cut -f4)" "$W.0" "zoom: ... the canvas's full width"
is "$(awk -F'\t' -v p="$MAINPATH;middle" 'index($1, p) != 1 { print $1 }' zoom.txt)" "" \
    "zoom: every box drawn is middle or under it"
is "$(grep -cF "$EVIL" zoom.txt)" 0 "zoom: the frames beside middle are gone"
near "$(awk -F'\t' -v p="$HOTPATH" '$1 == p { print $4 }' zoom.txt)" \
    "$(calc "$HOTN * $W / $(printf '%s\n' "$FIRSTBOX" | cut -f2)")" 1 \
    "zoom: leaf's width is its share of middle's"

# The same by the mouse and the keyboard: a click on middle's box zooms
# into it and puts the way back above the graph; a click on the top box goes
# up one level, Esc to the whole profile; in a flame (the root below) too.
browse "$T/c.html" "click=$MAINPATH;middle"
is "$(got zoom)" "$MAINPATH;middle" "a click on middle zooms into it"
like "$(sed -n 's/.*<div id="crumbs">\(.*\)<\/div>.*/\1/p' dom.html)" \
    '^<button[^>]*>all</button>.*<button[^>]*>main</button><span>[^<]*</span><button[^>]*>middle</button>$' \
    "... and the names above the graph lead back: all, ..., main, middle"
browse "$T/c.html" "click=$MAINPATH;middle&click=$MAINPATH;middle"
is "$(got zoom)" "$MAINPATH" "a click on the top box zooms out to main"
browse "$T/c.html" "click=$MAINPATH;middle&key=Escape"
is "$(got zoom)" "" "Esc zooms out to the whole profile"
browse "$T/c.html" "orient=flame&click=$MAINPATH;middle"
is "$(got zoom)" "$MAINPATH;middle" "flame (root below): a click on middle zooms into it"

# ---------------------------------------------------------------------------
# Inverted: the leaves at the top, their callers under them.
browse "$T/c.html" "view=inverted"
is "$(got view)" inverted "the inverted view"
is "$(got total)" "$TOTAL" "inverted: the same total"
is "$(boxes | awk -F'\t' '$1 == "leaf" { print $2 }')" \
    "$(awk '/(^|;)leaf [0-9]+$/ { s += $NF } END { print s + 0 }' folded.txt)" \
    "inverted: leaf's box has the samples of the stacks that end in leaf"
is "$(boxes | awk -F'\t' '$1 == "leaf;middle;main" { print "yes" }')" yes \
    "inverted: leaf is called by middle, called by main"
is "$(misplaced)" "" "inverted: each box's callers start at its left edge, one after the other"

# ---------------------------------------------------------------------------
# Threads: tests/progs/threads runs thread_a, thread_b and thread_c, each on
# a thread of its own; speedscope's per-thread profiles say how many samples
# each had.
run "$PROFIL" --no-tui --driver=ptrace -b 1 -t 1000 -a 150000000 -o "$T/thr.PRF" "$PROGS/threads" </dev/null
is "$rc" 0 "threads runs with stacks"
"$PROFIL" --export=speedscope "$T/thr.PRF" -o thr.json </dev/null
"$PROFIL" --export=html "$T/thr.PRF" -o "$T/thr.html" </dev/null
INTERVAL=$(json "$T/thr.PRF" .interval_us)
TID=$(jq -r '(.shared.frames | map(.name == "thread_a") | index(true)) as $i
    | .profiles[1:][] | select([.samples[][] | select(. == $i)] | length > 0) | .name' thr.json |
    sed 's/.*, thread //' | head -n 1)
TWANT=$(jq -r --arg t "$TID" '.profiles[] | select(.name | endswith(", thread " + $t))
    | (.weights | add) / '"$INTERVAL" thr.json)
browse "$T/thr.html" "thread=$TID"
is "$(got thread)" "$TID" "thread $TID (thread_a's) selected"
is "$(got total)" "$TWANT" "the thread's total is its speedscope profile's"
has "$(boxes | cut -f1)" "thread_a" "thread_a is drawn"
unlike "$(boxes | cut -f1)" "thread_[bc]" "thread_b and thread_c are not"
has "$(cat dom.html)" "<select id=\"thread\" aria-label=\"Thread\">" "the thread selector is shown"
browse "$T/thr.html"
like "$(boxes | cut -f1)" "thread_b" "all threads: thread_b is drawn too"

# ---------------------------------------------------------------------------
# A diff: grows takes 1/6 of the time before and 5/6 after, shrinks the rest.
cat >shift.c <<'EOF'
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

__attribute__((noinline, noipa)) static void grows(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n; i++)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    sink = x;
}

__attribute__((noinline, noipa)) static void shrinks(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n; i++)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    sink = x;
}

int main(int argc, char **argv)
{
    long a = strtol(argv[1], NULL, 10), b = strtol(argv[2], NULL, 10);
    for (int r = 0; r < 100; r++) {
        grows(a);
        shrinks(b);
    }
    return 0;
}
EOF
"${CC:-cc}" -O2 -g -o shift shift.c
"$PROFIL" --no-tui --driver=ptrace -b 1 -t 1000 -o "$T/A.PRF" "$T/shift" 300000 1500000 </dev/null >/dev/null 2>&1
"$PROFIL" --no-tui --driver=ptrace -b 1 -t 1000 -o "$T/B.PRF" "$T/shift" 1500000 300000 </dev/null >/dev/null 2>&1
run "$PROFIL" --diff "$T/A.PRF" "$T/B.PRF" --export=html -o "$T/d.html" </dev/null
is "$rc" 0 "--diff A B --export=html exits 0"
browse "$T/d.html"
is "$(got profile)" "$T/B.PRF" "diff: the page shows B"
is "$(boxes | awk -F'\t' '$1 ~ /;grows$/ { print $7 }' | sort -u)" "+" "diff: grows is coloured as grown"
is "$(boxes | awk -F'\t' '$1 ~ /;shrinks$/ { print $7 }' | sort -u)" "-" "diff: shrinks as shrunk"
is "$(boxes | awk -F'\t' '$1 ~ /;main$/ { print $7 }' | sort -u)" "=" \
    "diff: main, with no samples of its own, has no significant change"
browse "$T/d.html" "profile=1"
is "$(got profile)" "$T/A.PRF" "diff swapped: the page shows A"
is "$(boxes | awk -F'\t' '$1 ~ /;grows$/ { print $7 }' | sort -u)" "-" \
    "diff swapped: grows is coloured the other way"

# ---------------------------------------------------------------------------
# 100,000 stacks (a broom: one function 4,095 deep, then 100,000 leaves).
"$MKBOMB" broom "$T/broom.PRF" 100000 >/dev/null
run "$PROFIL" --export=html "$T/broom.PRF" -o "$T/broom.html" </dev/null
is "$rc" 0 "broom: --export=html exits 0"
SIZE=$(wc -c <broom.html)
cmp_ok "$SIZE" "<" 3000000 "broom: the page is under 3 MB ($SIZE bytes)"
browse "$T/broom.html"
FIRST=$(got first_draw_ms)
cmp_ok "$FIRST" "<" 5000 "broom: drawn, in under 5 s even on a loaded machine ($FIRST ms)"
diag "broom: $SIZE bytes, first draw at $FIRST ms (parse $(got parse_ms), build $(got build_ms), draw $(got draw_ms))"

# ---------------------------------------------------------------------------
# A screenshot, kept beside the build's tests.
SHOT=$PROGS/../html.png
rm -f "$SHOT"
chromium_run --screenshot="$SHOT" "file://$T/c.html#search=leaf&hover=$MAINPATH;middle" >/dev/null
is "$(head -c 4 "$SHOT" 2>/dev/null | od -An -c | tr -d ' ')" "211PNG" "a screenshot: $SHOT"

# ---------------------------------------------------------------------------
# Errors
run "$PROFIL" --export=html "$T/c.PRF" -o "$T/no/such/dir/out.html" </dev/null
is "$rc" 1 "--export=html to an unwritable -o: exit 1"
is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "... one line"
run "$PROFIL" --diff "$T/A.PRF" "$T/B.PRF" --export=folded -o x </dev/null
is "$rc" 2 "--diff --export=folded: exit 2 (html only)"
run "$PROFIL" --diff "$T/A.PRF" "$T/B.PRF" --export=html </dev/null
is "$rc" 2 "--diff --export=html without -o: exit 2"

done_testing
