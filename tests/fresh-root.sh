#!/bin/sh
# tests/fresh-root.sh - prove that a fresh Debian 12 machine passes.
#
# Makes a minimal Debian 12 root (debootstrap --variant=minbase bookworm, from
# the package source apt uses here), copies a fresh clone of this repository
# into it, and runs the README's two commands exactly, as root, inside chroot,
# with a clean environment (env -i).  Both must exit 0, and no test may be
# skipped but for a reason of tests/skips.allow (the kernel this machine
# shares with the root: no Yama, say).  With --ci it then runs .ci/run there
# too.
#
#   sudo tests/fresh-root.sh [--ci] [--keep] [DIR]
#
# DIR (default /var/tmp/profil-fresh-root) is made anew each run from a cached
# debootstrap tarball (DIR.base.tgz), so nothing a run installs survives into
# the next.  --keep leaves DIR in place afterwards, for a look inside.  Not
# part of `make check`: it needs root and the package registry, and takes a
# few minutes.
set -eu

ci=0 keep=0
while [ $# -gt 0 ]; do
    case $1 in
    --ci) ci=1 ;;
    --keep) keep=1 ;;
    -h | --help)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "fresh-root: unknown option $1 (see --help)" >&2
        exit 2
        ;;
    *) break ;;
    esac
    shift
done
root=${1:-/var/tmp/profil-fresh-root}
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
    echo "fresh-root: run as root (debootstrap and chroot need it)" >&2
    exit 1
fi
say() { printf 'fresh-root: %s\n' "$*"; }

# The mirror apt uses here, so that the root sees the same archive.
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources \
    2>/dev/null | grep -v security | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\{1,\}\([^[:space:]]*\)[[:space:]]\{1,\}bookworm[[:space:]].*/\1/p' \
    /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

mounted=""
cleanup() {
    for m in $mounted; do umount -l "$m" 2>/dev/null || :; done
    [ "$keep" = 1 ] || rm -rf "$root"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

base=$root.base.tgz
if [ ! -s "$base" ]; then
    say "debootstrap --variant=minbase bookworm from $mirror (cached as $base)"
    rm -rf "$root"
    debootstrap --variant=minbase --make-tarball="$base.part" bookworm "$root.dl" "$mirror" >/dev/null
    rm -rf "$root.dl"
    mv "$base.part" "$base"
fi
rm -rf "$root"
say "a fresh minimal Debian 12 root in $root"
debootstrap --variant=minbase --unpack-tarball="$base" bookworm "$root" "$mirror" >/dev/null

# The same package sources as here (updates and security included), and a
# resolver for the registry.
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || :
[ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :

for m in proc sys dev dev/pts; do
    mkdir -p "$root/$m"
    mount --bind "/$m" "$root/$m"
    mounted="$root/$m $mounted"
done

say "a fresh clone of $(git -C "$top" rev-parse --short HEAD) in /root/profil"
git clone -q "$top" "$root/root/profil"

# run TITLE COMMAND: COMMAND in the root's /root/profil, by /bin/sh, with
# nothing of this environment but a PATH and HOME.
run() {
    say "$1"
    printf '   $ %s\n' "$2"
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        /usr/sbin/chroot "$root" /bin/sh -c "cd /root/profil && $2"
}

rc=0
started=$(date +%s)
out=$root.out
# The README's two commands, as its first lines give them (before the "#").
readme_cmd() { sed -n '/^```$/,/^```$/p' "$top/README.md" | grep -v '^```' | sed -n "$1p" | sed 's/ *#.*$//'; }
cmd1=$(readme_cmd 1) cmd2=$(readme_cmd 2)
# The first command asks PROFIL's three questions: the answers come on stdin.
if printf '1\n1000\n\n' | run "the README's first command" "$cmd1" >"$out.1" 2>&1; then
    say "first command: exit 0"
else
    rc=1
    say "first command: FAILED"
fi
grep '^setup: installing' "$out.1" || :
tail -n 30 "$out.1"
if [ -s "$root/root/profil/sieve.PRF" ]; then
    say "sieve.PRF written"
else
    rc=1
    say "sieve.PRF was not written"
fi

if run "the README's second command" "$cmd2" >"$out.2" 2>&1; then
    say "second command: exit 0"
else
    rc=1
    say "second command: FAILED"
fi
grep -E '^(# [A-Z]+:|(PASS|FAIL|ERROR|SKIP): tests/[^ ]*\.sh$)' "$out.2" || :
# Every skip, with its reason; one whose reason is not of tests/skips.allow
# fails (lib.sh has already failed any whose reason does not hold there).
if "$top/tests/skips.sh" "$root"/root/profil/tests/*/*.log; then
    say "every skip has a reason of tests/skips.allow"
else
    rc=1
    say "skipped for a reason tests/skips.allow does not list (above)"
fi
if grep -Eq '^# (FAIL|ERROR): *[1-9]' "$out.2"; then
    grep -hE '^(not ok|Bail out!|# planned )' "$root"/root/profil/tests/*/*.log || :
fi

if [ "$ci" = 1 ]; then
    if run ".ci/run in the root" "bash .ci/run" >"$out.3" 2>&1; then
        say ".ci/run: exit 0"
    else
        rc=1
        say ".ci/run: FAILED"
    fi
    tail -n 3 "$out.3"
fi

say "$(($(date +%s) - started)) s from the clone to here"
if [ "$rc" = 0 ]; then
    rm -f "$out.1" "$out.2" "$out.3"
    say "PASS: a fresh Debian 12 root runs both commands"
else
    say "FAIL: the whole output is in $out.*"
fi
exit "$rc"
