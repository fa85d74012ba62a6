#!/bin/sh
# layers.sh - the include rules of issue 23, read from the sources' own
# #include "..." lines: each folder includes only from its own layer and
# those below it (LAYERS, lowest first; the files at the top of the tree are
# the lowest layer, util), and no two files include each other through any
# chain (a file and its header count as one unit: foo.c and foo.h).
#
#   tests/layers.sh [-q] [ROOT]   check the tree at ROOT (default: this one)
#
# Prints one line per include against the order and one per circle, then
# "N backwards includes, N circles"; exits 1 when there is any.  A circle
# is read from two things: the includes, and, where the tree is built, which
# file's object uses a function or variable another file's object defines
# (nm): report.c and linereport.c call each other through one header.
# Generated files (*.pb-c.[ch], config.h) and tests/ are not read.  make
# check runs it through tests/layers-check.sh.
set -u
quiet=0
[ "${1:-}" = -q ] && quiet=1 && shift
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

# Lowest first.  A folder not listed is an error: a new folder takes a place.
LAYERS="util clockdrv elf session prf analysis report export views tui launcher"

# Every source file, then each file's quoted includes, resolved as the
# compiler finds them: beside the file, else from the top (one awk: a shell
# loop over the includes took 15 s).
files=$(find . -path ./tests -prune -o -path ./autom4te.cache -prune -o \
    \( -name '*.c' -o -name '*.h' \) -print |
    sed 's|^\./||' | grep -Ev '(\.pb-c\.[ch]|^config\.h)$' | sort)
# shellcheck disable=SC2086 # one word per file
{
    printf '%s\n' $files | sed 's/^/file /'
    grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null
} | awk '
    $1 == "file" && NF == 2 { have[$2] = 1; next }
    {
        f = $0; sub(/:.*/, "", f)
        inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
        d = f; if (!sub(/\/[^\/]*$/, "", d)) d = "."
        t = (d == "." ? inc : d "/" inc)
        # "a/../b" as the file system has it: the tree has no such names.
        if (t in have) print f, t
        else if (inc in have) print f, inc
    }' >"${TMPDIR:-/tmp}/layers.$$"
# The built objects: DIR/libprofil_a-NAME.o (or DIR/profil-NAME.o) is DIR/NAME.c.
defs=${TMPDIR:-/tmp}/layers-defs.$$
trap 'rm -f "${TMPDIR:-/tmp}/layers.$$" "$defs" "$defs.u"' EXIT
: >"$defs"
: >"$defs.u"
objs=$(find . -path ./tests -prune -o -name '*.o' -print | sed 's|^\./||' | grep -v '\.pb-c\.o$')
if [ -n "$objs" ]; then
    # shellcheck disable=SC2086 # one word per object
    nm -A -P $objs 2>/dev/null | awk -v defs="$defs" '
        { o = $1; sub(/:$/, "", o); n = split(o, p, "/"); f = p[n]; sub(/\.o$/, "", f); sub(/^[a-z_]*-/, "", f)
          src = (n > 1 ? p[1] "/" : "") f
          if ($3 ~ /^[TDBR]$/) print $2, src > defs; else if ($3 == "U") print src, $2 }' >"$defs.u"
fi
awk 'NR == FNR { def[$1] = $2; next } ($2 in def) && def[$2] != $1 { print "use", $1 ".c", def[$2] ".c" }' \
    "$defs" "$defs.u" | sort -u >>"${TMPDIR:-/tmp}/layers.$$"
awk -v layers="$LAYERS" -v quiet="$quiet" '
    function folder(f) { return f ~ /\// ? substr(f, 1, index(f, "/") - 1) : "util" }
    function unit(f) { sub(/\.[ch]$/, "", f); return f }
    BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
    $1 == "use" {
        a = unit($2); b = unit($3)
        if (!((a, b) in edge)) { edge[a, b] = 1; out[a] = out[a] " " b; node[a] = node[b] = 1 }
        next
    }
    {
        from = $1; to = $2
        if (!(folder(from) in rank)) { unknown[folder(from)] = 1; next }
        if (!(folder(to) in rank)) { unknown[folder(to)] = 1; next }
        if (rank[folder(to)] > rank[folder(from)]) {
            back++
            if (!quiet) printf "backwards: %s includes %s (%s is above %s)\n", from, to, folder(to), folder(from)
        }
        a = unit(from); b = unit(to)
        if (a != b && !((a, b) in edge)) { edge[a, b] = 1; out[a] = out[a] " " b; node[a] = node[b] = 1 }
    }
    # Tarjan: every strongly connected set of more than one unit is a circle.
    function visit(v,    ws, k, m, w, c, members) {
        idx[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
        m = split(out[v], ws, " ")
        for (k = 1; k <= m; k++) {
            w = ws[k]
            if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
            else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
        }
        if (low[v] == idx[v]) {
            c = 0; members = ""
            do { w = stack[sp--]; on[w] = 0; c++; members = w (members == "" ? "" : " ") members } while (w != v)
            if (c > 1) { circles++; if (!quiet) printf "circle of %d: %s\n", c, members }
        }
    }
    END {
        for (f in unknown) { printf "layers.sh: folder %s has no layer in LAYERS\n", f; bad = 1 }
        for (v in node) if (!(v in idx)) visit(v)
        printf "%d backwards includes, %d circles\n", back, circles
        exit (back + circles > 0 || bad) ? 1 : 0
    }' "${TMPDIR:-/tmp}/layers.$$"
