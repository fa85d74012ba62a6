#!/bin/sh
# tests/skips.sh - every skip of a test run, with its reason, and whether
# each is one tests/skips.allow accepts.
#
#   tests/skips.sh LOG...
#
# LOG: the test logs of a make check (tests/*/*.log).  Prints one line per
# skipped check ("skip: FILE: DESC # SKIP [TAG] DETAIL"), then one line per
# skip whose tag is not a reason of tests/skips.allow ("unlisted skip: ...");
# on its last line "N skipped, N unlisted".  Exits 1 when any skip is
# unlisted.  tests/e2e/lib.sh already fails a skip whose reason does not
# hold where it ran; this catches a "# SKIP" written past lib.sh (a C test,
# a hand-written TAP line).
allow=$(dirname "$0")/skips.allow
if [ ! -r "$allow" ]; then
    echo "skips.sh: cannot read $allow" >&2
    exit 2
fi
tags=$(sed -n 's/^allow_\([a-z0-9_]*\)() .*/\1/p' "$allow" | tr _ - | tr '\n' ' ')
awk -v tags="$tags" '
    BEGIN { n = split(tags, t, " "); for (i = 1; i <= n; i++) ok[t[i]] = 1 }
    /^ok .*# SKIP/ {
        skipped++
        line = FILENAME ": " $0
        print "skip: " line
        tag = ""
        if (match($0, /# SKIP \[[a-z0-9-]+\]/))
            tag = substr($0, RSTART + 8, RLENGTH - 9)
        if (!(tag in ok))
            bad[++nbad] = line
    }
    END {
        for (i = 1; i <= nbad; i++)
            print "unlisted skip: " bad[i]
        printf "%d skipped, %d unlisted\n", skipped, nbad
        exit nbad > 0
    }' "$@" </dev/null
