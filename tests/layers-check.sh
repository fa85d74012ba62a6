#!/bin/sh
# layers-check.sh - make check's reading of tests/layers.sh (issue 23's
# include rules): no include goes against the order of the folders, and no
# circle of files is there.  Then the check itself is checked on a copy of the tree:
# it must fail on a planted backwards include and on a planted circle.
# Run from make check, after the build (layers.sh reads the objects too).
cd "$(dirname "$0")/.." || exit 1
echo "1..5"

# Circles allowed, one a line as their sorted members: none since issue 23
# broke the last one (session/, ten files).  Any circle fails.
KNOWN=""

out=$(sh tests/layers.sh 2>&1)
summary=$(printf '%s\n' "$out" | tail -n 1)
case $summary in
*" backwards includes, "*" circles") ;;
*)
    echo "Bail out! tests/layers.sh did not end with its summary: $summary"
    exit 1
    ;;
esac

back=$(printf '%s\n' "$out" | grep '^backwards: ')
if [ -z "$back" ]; then
    echo "ok 1 - no include goes against the order of the folders"
else
    echo "not ok 1 - an include goes against the order of the folders"
    printf '%s\n' "$back" | sed 's/^/#   /'
fi

# unknown OUT: each circle of layers.sh's output OUT that is not within a
# known one, as its sorted members, one a line.
unknown() {
    for c in $(printf '%s\n' "$1" | sed -n 's/^circle of [0-9]*: //p' | tr ' ' ','); do
        members=$(printf '%s\n' "$c" | tr ',' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
        within=no
        while IFS= read -r k; do
            all=yes
            for m in $members; do
                case " $k " in *" $m "*) ;; *) all=no ;; esac
            done
            [ "$all" = yes ] && within=yes
        done <<EOF
$KNOWN
EOF
        [ "$within" = yes ] || printf '%s\n' "$members"
    done
}
bad=$(unknown "$out")
if [ -z "$bad" ]; then
    echo "ok 2 - no circle of files"
else
    echo "not ok 2 - a circle of files that was not there"
    printf '%s\n' "$bad" | sed '/^$/d; s/^/#   /'
fi

# The check on a copy of the sources (no objects: the includes alone).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
copy() {
    rm -rf "$tmp/tree"
    mkdir -p "$tmp/tree"
    find . -path ./tests -prune -o -path ./autom4te.cache -prune -o \
        \( -name '*.c' -o -name '*.h' \) -print | tar cf - -T - | (cd "$tmp/tree" && tar xf -)
}
copy
r=$(sh tests/layers.sh "$tmp/tree")
if printf '%s\n' "$r" | grep -q '^0 backwards includes, '; then
    echo "ok 3 - the copy of the sources reads as the tree does: no backwards include"
else
    echo "not ok 3 - the copy of the sources reads as the tree does: no backwards include"
    printf '%s\n' "$r" | sed 's/^/#   /'
fi

# A helper of util/ that includes the screen's header: backwards.
sed -i '1a #include "tui/tui.h"' "$tmp/tree/util/xmalloc.c"
r=$(sh tests/layers.sh "$tmp/tree")
if printf '%s\n' "$r" | grep -q '^backwards: util/xmalloc.c includes tui/tui.h'; then
    echo "ok 4 - a planted backwards include fails (util/xmalloc.c including tui/tui.h)"
else
    echo "not ok 4 - a planted backwards include fails (util/xmalloc.c including tui/tui.h)"
    printf '%s\n' "$r" | sed 's/^/#   /'
fi

# clockdrv.c, which the drivers include, including a driver: a new circle.
copy
sed -i '1a #include "clockdrv/perf.h"' "$tmp/tree/clockdrv/clockdrv.c"
r=$(sh tests/layers.sh "$tmp/tree")
if unknown "$r" | grep -q 'clockdrv/clockdrv.*clockdrv/perf'; then
    echo "ok 5 - a planted circle is one test 2 fails on (clockdrv/clockdrv.c including clockdrv/perf.h)"
else
    echo "not ok 5 - a planted circle is one test 2 fails on (clockdrv/clockdrv.c including clockdrv/perf.h)"
    printf '%s\n' "$r" | sed 's/^/#   /'
fi
