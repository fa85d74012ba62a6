#!/bin/sh
# Build the seeds of tests/fuzz/corpus-elf from tests/fuzz/elf-seed.c: small
# real programs (a few KB each: pages packed, no RELRO padding) as profil
# meets them.  An input that carries a separate debug file has it after the
# line FUZZ_ELF_DEBUG of tests/fuzz/fuzz_elf.c.
#   tests/fuzz/elf-seeds.sh [OUTDIR]      (default: tests/fuzz/corpus-elf)
set -eu
src=$(cd "$(dirname "$0")" && pwd)/elf-seed.c
out=${1:-$(dirname "$0")/corpus-elf}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cc=${CC:-gcc}
small="-Wl,-z,max-page-size=0x1000 -Wl,-z,noseparate-code -Wl,-z,norelro"
map="-fdebug-prefix-map=$(dirname "$src")=/src -fdebug-prefix-map=$work=/build"
marker='
--profil-fuzz-debug-file--
'
$cc -Os -g $map $small "$src" -o tiny
cp tiny "$out/tiny-g"
$cc -Os -g -gdwarf-4 $map $small "$src" -o tiny4
cp tiny4 "$out/tiny-gdwarf4"
$cc -O2 -g -fno-pie -no-pie $map $small "$src" -o tinyexec
cp tinyexec "$out/tiny-nopie-g"
strip -o "$out/tiny-stripped" tiny
objcopy --compress-debug-sections=zlib tiny "$out/tiny-gz"
# Stripped, its debug file found by build id.
objcopy --only-keep-debug tiny tiny.debug
strip -o tiny.s tiny
{ cat tiny.s; printf '%s' "$marker"; cat tiny.debug; } >"$out/tiny-buildid-debug"
# No build id: only .gnu_debuglink finds it, by name and CRC.
$cc -Os -g $map $small -Wl,--build-id=none "$src" -o nobid
objcopy --only-keep-debug nobid d.debug
objcopy --strip-all --add-gnu-debuglink=d.debug nobid nobid.s
{ cat nobid.s; printf '%s' "$marker"; cat d.debug; } >"$out/tiny-debuglink-debug"
# A shared library, and a static program without libc.
$cc -Os -g -fPIC -shared $map $small -Dmain=tiny_main "$src" -o libtiny.so
cp libtiny.so "$out/libtiny.so"
printf 'void _start(void) { for (volatile int i = 0;; i++) ; }\n' >start.c
$cc -Os -g -static -nostdlib -fno-pie -no-pie $small start.c -o start
cp start "$out/start-static-nostdlib"
chmod a-x "$out"/*
ls -l "$out"
