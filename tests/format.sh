#!/bin/sh
# format.sh - every C file of the repository is as the repo's .clang-format
# lays it out (clang-format --dry-run), but the test programs under
# tests/progs: their lines are what the tests point at (a loop and its
# marker on one line, lines.c's LOOP75), so they keep the layout they have.
# Run from the top of the source tree by make check; clang-format is
# Debian's (./setup installs it).
cd "$(dirname "$0")/.." || exit 1
echo "1..1"
if ! command -v clang-format >/dev/null 2>&1; then
    echo "not ok 1 - clang-format is not installed (./setup installs it)"
    exit 0
fi
if ! command -v git >/dev/null 2>&1 || ! git rev-parse --git-dir >/dev/null 2>&1; then
    # (a tarball: its own files, not those configure and protoc-c made)
    files=$(find . -name '*.[ch]' ! -path './tests/progs/*' ! -name config.h ! -name '*.pb-c.[ch]' | sort)
else
    files=$(git ls-files '*.c' '*.h' | grep -v '^tests/progs/')
fi
bad=""
n=0
for f in $files; do
    n=$((n + 1))
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -z "$bad" ]; then
    echo "ok 1 - all $n C files are as .clang-format lays them out"
else
    echo "not ok 1 - not as .clang-format lays them out (clang-format -i FILE):$bad"
fi
