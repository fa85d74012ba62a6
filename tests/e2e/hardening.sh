#!/bin/sh
# hardening.sh - issue 25's findings, each with the real binary on a real
# program: -o never replaces a device or a FIFO (an export writes into
# one); --list ends on a line near 2^31; --control refuses a FIFO another
# user made and makes its own 0600; a mark time no run can have is a
# damaged file; a FIFO in the build-id directory does not hold the start.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 117

SHARES=$PROGS/shares
W=$PROGS/ctlwork
root=no
[ "$(id -u)" -eq 0 ] && root=yes

# one_line DESC ERE: $err is one line "profil: ..." matching ERE.
one_line() {
    is "$(lines "$err")" 1 "$1: one line on stderr" || diag "$err"
    like "$err" "^profil: $2" "$1: says why"
}

# kind FILE: what FILE is, as stat says ("character special file", "fifo").
kind() {
    stat -c %F "$1" 2>/dev/null
}

# wait_fifo NAME: until NAME is a FIFO (10 s at most).
wait_fifo() {
    _n=100
    while [ ! -p "$1" ] && [ "$_n" -gt 0 ]; do
        sleep 0.1
        _n=$((_n - 1))
    done
    [ -p "$1" ]
}

run "$PROFIL" --no-tui -b 1 -t 1000 -o s.PRF "$SHARES" 5 </dev/null
is "$rc" 0 "a session to work on"

# ---------------------------------------------------------------------------
# 1. -o onto a device or a FIFO: a session is refused before anything runs,
# the file stays what it was; an export is written into it.
if [ "$root" = yes ]; then
    mknod dev c 1 3
    run timeout 30 "$PROFIL" --no-tui -b 1 -t 1000 -o dev "$SHARES" 5 </dev/null
    isnt "$rc" 0 "-o a character device: refused"
    one_line "-o a character device" "dev: not a regular file \\(a device\\): will not replace it"
    is "$(kind dev)" "character special file" "-o a character device: it is still one"
    hasnt "$out" "Program terminated" "-o a character device: the program was not run"
else
    skip -n 5 "-o a character device" needs-root "mknod"
fi

mkfifo fifo
run timeout 30 "$PROFIL" --no-tui -b 1 -t 1000 -o fifo "$SHARES" 5 </dev/null
isnt "$rc" 0 "-o a FIFO: refused"
one_line "-o a FIFO" "fifo: not a regular file \\(a FIFO\\): will not replace it"
is "$(kind fifo)" "fifo" "-o a FIFO: it is still one"

# The previous session is kept as NAME.old: a FIFO there is not replaced.
cp s.PRF k.PRF
mkfifo k.PRF.old
run timeout 30 "$PROFIL" --no-tui -b 1 -t 1000 -o k.PRF "$SHARES" 5 </dev/null
isnt "$rc" 0 "a FIFO at NAME.old: refused"
one_line "a FIFO at NAME.old" "k.PRF: k.PRF.old is not a regular file \\(a FIFO\\)"
is "$(kind k.PRF.old) $(cmp -s s.PRF k.PRF && echo same)" "fifo same" \
    "a FIFO at NAME.old: it is still one, and the session is untouched"

run timeout 30 "$PROFIL" --merge s.PRF s.PRF -o fifo </dev/null
isnt "$rc" 0 "--merge -o a FIFO: refused"
one_line "--merge -o a FIFO" "fifo: not a regular file"
is "$(kind fifo)" "fifo" "--merge -o a FIFO: it is still one"

# An export into a FIFO, with a reader: what `>` would do.
timeout 20 cat fifo >got &
reader=$!
run timeout 20 "$PROFIL" --export=speedscope s.PRF -o fifo </dev/null
is "$rc" 0 "--export -o a FIFO: written into it"
wait "$reader"
"$PROFIL" --export=speedscope s.PRF -o direct.json 2>/dev/null
ok "--export -o a FIFO: the reader got the export" cmp -s got direct.json
is "$(kind fifo)" "fifo" "--export -o a FIFO: it is still one"

run "$PROFIL" --export=speedscope s.PRF -o /dev/stdout </dev/null
is "$rc" 0 "--export -o /dev/stdout onto a file: exits 0"
is "$(cmp -s "$T/.out" direct.json && echo same)" same \
    "--export -o /dev/stdout onto a file: the export is in the file"
if [ -L /dev/stdout ]; then
    _tap 0 "--export -o /dev/stdout onto a file: /dev/stdout is still a link"
else
    rm -f /dev/stdout && ln -s /proc/self/fd/1 /dev/stdout # put it back
    fail "--export -o /dev/stdout onto a file: /dev/stdout is still a link" "it was replaced (now put back)"
fi

# Standard output onto a regular file: /dev/stdout is a link to it, in /dev,
# which a rename would replace for every user of the machine.
if [ "$root" = yes ]; then
    run timeout 30 "$PROFIL" --no-tui -b 1 -t 1000 -o /dev/stdout "$SHARES" 5 </dev/null
    isnt "$rc" 0 "-o /dev/stdout onto a file: refused"
    one_line "-o /dev/stdout onto a file" "/dev/stdout: a name in /dev, not a file of its own: will not replace it"
    if [ -L /dev/stdout ]; then
        _tap 0 "-o /dev/stdout onto a file: /dev/stdout is still a link"
    else
        rm -f /dev/stdout && ln -s /proc/self/fd/1 /dev/stdout # put it back
        fail "-o /dev/stdout onto a file: /dev/stdout is still a link" "it was replaced (now put back)"
    fi
else
    skip -n 4 "-o /dev/stdout onto a file" needs-root "only root may write /dev"
fi

timeout 20 cat fifo >listed &
reader=$!
run timeout 20 "$PROFIL" --list shares.c s.PRF -o fifo </dev/null
is "$rc" 0 "--list -o a FIFO: written into it"
wait "$reader"
like "$(cat listed)" "^Profile listing of .*shares\\.c" "--list -o a FIFO: the reader got the listing"

if [ "$root" = yes ]; then
    run "$PROFIL" --export=classic s.PRF -o dev </dev/null
    is "$rc" 0 "--export -o a character device: written into it"
    is "$(kind dev)" "character special file" "--export -o a character device: it is still one"
else
    skip -n 2 "--export -o a character device" needs-root "mknod"
fi

# ---------------------------------------------------------------------------
# 2. --list ends on a line near 2^31 (libdw reads lines up to 2^31 - 1; a
# loop on 32 bits would wrap at 2^32 - 1): the gap past the text is one row.
cat >big.c <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
#line 2147483640
static void spin(unsigned long n) {
    for (unsigned long i = 0; i < n; i++) sink += i * i; }
int main(int argc, char **argv)
{
    spin(argc > 1 ? strtoul(argv[1], NULL, 10) : 30000000);
    return 0;
}
EOF
if gcc -g -O0 -o big big.c 2>big.err; then
    run "$PROFIL" --no-tui -b 1 -t 1000 -o big.PRF ./big 30000000 </dev/null
    is "$rc" 0 "#line 2147483640: profiled"
    run timeout 20 "$PROFIL" --list big.c big.PRF -o -
    is "$rc" 0 "#line 2147483640: --list ends promptly"
    like "$out" '^ +\.\.\.  \([0-9]+ lines without text or samples\)$' \
        "#line 2147483640: the lines between are one row"
    like "$out" '^2147483641 +[0-9]+ ' "#line 2147483640: the loop's line has its samples"
    cmp_ok "$(lines "$out")" "<" 200 "#line 2147483640: a short listing ($(lines "$out") lines)"
else
    fails=$(cat big.err)
    for _i in 1 2 3 4 5; do fail "#line 2147483640 ($_i of 5)" "gcc failed: $fails"; done
fi

# ---------------------------------------------------------------------------
# 3. --control: a FIFO another user made is refused; the one profil makes is
# 0600 whatever the umask.
if [ "$root" = yes ]; then
    mkfifo foreign mine
    chown nobody foreign
    run timeout 30 "$PROFIL" --no-tui --control "$T/foreign" -b 1 -t 1000 -o c.PRF "$SHARES" 5 </dev/null
    isnt "$rc" 0 "--control a FIFO of another user: refused"
    one_line "--control a FIFO of another user" "--control: $T/foreign belongs to another user \\(uid [0-9]+\\)"
    run timeout 30 "$PROFIL" --no-tui --control "$T/mine,$T/foreign" -b 1 -t 1000 -o c.PRF "$SHARES" 5 </dev/null
    isnt "$rc" 0 "--control, an ACK FIFO of another user: refused"
    one_line "--control, an ACK FIFO of another user" "--control: $T/foreign belongs to another user"
    no_prf_c=$(find . -maxdepth 1 -name 'c.PRF*' | wc -l)
    is "$no_prf_c" 0 "--control a FIFO of another user: nothing was run"
else
    skip -n 7 "--control a FIFO of another user" needs-root "chown"
fi
for mask in 022 0277; do
    (
        umask $mask
        exec "$PROFIL" --no-tui --control "$T/made$mask" -b 1 -t 1000 -o "made$mask.PRF" \
            "$W" wait "$T/go$mask" >/dev/null 2>"made$mask.err" </dev/null
    ) &
    pid=$!
    if wait_fifo "made$mask"; then
        is "$(stat -c %a "made$mask")" 600 "--control, umask $mask: the FIFO profil makes is 0600"
    else
        fail "--control, umask $mask: the FIFO profil makes is 0600" "no FIFO: $(cat "made$mask.err")"
    fi
    : >"go$mask"
    wait "$pid"
    is "$?" 0 "--control, umask $mask: the run ends"
done

# ---------------------------------------------------------------------------
# 4. A mark at a time no run has: the file is damaged, said in one line.
run "$PROFIL" --no-tui -b 1 -t 1000 -o m.PRF "$W" lib </dev/null
is "$rc" 0 "a session with marks"
like "$("$PROFIL" --report m.PRF 2>&1)" '^ +Marks: ' "a session with marks: the report lists them"
# mark.py IN OUT T: IN with its first mark at T seconds, its checksums made
# anew (the chunk's and the end's), the metadata stored uncompressed.
cat >mark.py <<'EOF'
import json, struct, sys, zlib
src, dst, t = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = open(src, 'rb').read()
out, at = bytearray(d[:16]), 16
while at < len(d):
    typ, flags, slen, raw, crc = struct.unpack_from('<4sIQII', d, at)
    body = d[at + 24:at + 24 + slen]
    at += 24 + slen
    if typ == b'META':
        meta = json.loads(zlib.decompress(body) if flags & 1 else body)
        meta['marks'][0]['t_s'] = t
        body = json.dumps(meta).encode()
        flags, raw = 0, len(body)
    if typ == b'END ':
        body = struct.pack('<I', zlib.crc32(bytes(out)))
    out += struct.pack('<4sIQII', typ, flags, len(body), raw, zlib.crc32(body)) + body
open(dst, 'wb').write(out)
EOF
for t in 1e308 100000; do
    if python3 mark.py m.PRF "mark$t.PRF" "$t" 2>py.err; then
        run "$PROFIL" --report "mark$t.PRF" </dev/null
        is "$rc" 1 "a mark at $t s: --report exits 1"
        one_line "a mark at $t s" "mark$t\\.PRF: metadata is damaged: a mark at .* s, after the end of a run"
        hasnt "$err" "runtime error" "a mark at $t s: no undefined behaviour"
    else
        for _i in 1 2 3 4; do fail "a mark at $t s ($_i of 4)" "$(cat py.err)"; done
    fi
done
python3 mark.py m.PRF mark-ok.PRF 0.5
run "$PROFIL" --report mark-ok.PRF </dev/null
like "$out" '^ +Marks: 00:00\.500 start$' "a mark within the run, rewritten the same way: read"

# ---------------------------------------------------------------------------
# 5. A FIFO at the program's build id in /usr/lib/debug: the start does not
# wait on it.  The program has no debug information of its own, so its
# debug file is looked for.
STRIPPED=$PROGS/framed-stripped
id=$(readelf -n "$STRIPPED" 2>/dev/null | sed -n 's/^[[:space:]]*Build ID: //p' | head -n 1)
if [ "$root" != yes ]; then
    skip -n 4 "a FIFO in .build-id" needs-root "/usr/lib/debug"
elif [ -z "$id" ]; then
    fails=$(readelf -n "$STRIPPED" 2>&1 | head -n 3)
    for _i in 1 2 3 4; do fail "a FIFO in .build-id ($_i of 4)" "no build id: $fails"; done
else
    bdir=/usr/lib/debug/.build-id/$(printf %s "$id" | cut -c1-2)
    bfifo=$bdir/$(printf %s "$id" | cut -c3-).debug
    made_dir=no
    [ -d "$bdir" ] || { mkdir -p "$bdir" && made_dir=yes; }
    if [ -e "$bfifo" ]; then
        for _i in 1 2 3 4; do fail "a FIFO in .build-id ($_i of 4)" "$bfifo is there already"; done
    else
        trap 'rm -f "$bfifo"; [ "$made_dir" = yes ] && rmdir "$bdir"; cd /; rm -rf "$T"' EXIT
        mkfifo "$bfifo"
        run timeout 30 "$PROFIL" --no-tui -b 1 -t 1000 -o b.PRF "$STRIPPED" 1 </dev/null
        isnt "$rc" 124 "a FIFO in .build-id: the start does not wait on it"
        is "$rc" 0 "a FIFO in .build-id: the run ends as usual"
        run timeout 30 "$PROFIL" --report b.PRF </dev/null
        is "$rc" 0 "a FIFO in .build-id: the session reads back"
        is "$(kind "$bfifo")" fifo "a FIFO in .build-id: left as it was (the test removes it)"
        rm -f "$bfifo"
        [ "$made_dir" = yes ] && rmdir "$bdir"
        trap 'cd /; rm -rf "$T"' EXIT
    fi
fi

# ---------------------------------------------------------------------------
# 6. Three million empty lines of embedded source (a few KB of file): --list
# costs what it prints; the blank run without samples is one row, and the
# lines with samples are the same as in the file the text came from.
run "$PROFIL" --no-tui --embed-source -b 1 -t 500 -o e.PRF "$PROGS/lines" 5 </dev/null
is "$rc" 0 "a session with its source embedded"
# src.py IN OUT N: IN with every embedded text made N empty lines.
cat >src.py <<'EOF'
import struct, sys, zlib
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append((v & 0x7f) | 0x80)
        v >>= 7
    return bytes(b + bytes([v]))
def rvarint(d, at):
    v = s = 0
    while True:
        c = d[at]
        at += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, at
d = open(src, 'rb').read()
out, at = bytearray(d[:16]), 16
while at < len(d):
    typ, flags, slen, raw, crc = struct.unpack_from('<4sIQII', d, at)
    body = d[at + 24:at + 24 + slen]
    at += 24 + slen
    if typ == b'SRCE':
        p = zlib.decompress(body) if flags & 1 else body
        cnt, i = rvarint(p, 0)
        nb = bytearray(varint(cnt))
        for _ in range(cnt):
            f, i = rvarint(p, i)
            ln, i = rvarint(p, i)
            i += ln
            nb += varint(f) + varint(n) + b'\n' * n
        raw, body, flags = len(nb), zlib.compress(bytes(nb), 9), 1
    if typ == b'END ':
        body = struct.pack('<I', zlib.crc32(bytes(out)))
    out += struct.pack('<4sIQII', typ, flags, len(body), raw, zlib.crc32(body)) + body
open(dst, 'wb').write(out)
EOF
# sampled FILE: the rows of a listing with samples (line and count).
sampled() {
    awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$1"
}
if python3 src.py e.PRF blank.PRF 3000000 2>py.err; then
    run timeout 10 "$PROFIL" --list lines.c blank.PRF -o blank.txt
    is "$rc" 0 "3 M empty lines of source ($(wc -c <blank.PRF) bytes): --list ends promptly"
    cmp_ok "$(wc -l <blank.txt)" "<" 200 "3 M empty lines of source: a short listing ($(wc -l <blank.txt) lines)"
    like "$(cat blank.txt)" '^ +\.\.\.  \([0-9]+ blank lines without samples\)$' \
        "3 M empty lines of source: the blank lines are one row"
    "$PROFIL" --list lines.c e.PRF -o e.txt 2>/dev/null
    is "$(sampled blank.txt)" "$(sampled e.txt)" "3 M empty lines of source: the lines with samples are the real ones"
    like "$(cat e.txt)" 'sink = a \+ b;' "the session's own text: listed"
    hasnt "$(cat e.txt)" "blank lines without samples" "the session's own text: no line left out"
else
    for _i in 1 2 3 4 5 6; do fail "3 M empty lines of source ($_i of 6)" "$(cat py.err)"; done
fi

# ---------------------------------------------------------------------------
# 7. One function 4,096 calls deep, a sample at every depth (a few KB of
# file, 8 million frames written out whole): the exports and the tree cut
# the stacks to the depth the file allows, say so in one line, and keep
# every sample; a single stack that deep prints a tree of bounded size.
# A real recursion 300 deep is exported whole.
: "${MKBOMB:=$PROGS/../prf/mkbomb}"
# measured CMD...: run CMD; sets $rc, $err, and $rss (peak kB), $secs.
measured() {
    "$MKBOMB" measure "$T/.m" timeout 60 "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    err=$(cat "$T/.err")
    read -r rss secs _how _n _cpu <"$T/.m" || { rss=nan secs=nan; }
}
if "$MKBOMB" deep deep.PRF 4096 >/dev/null && "$MKBOMB" deepone one.PRF 4096 >/dev/null; then
    size=$(wc -c <deep.PRF)
    measured "$PROFIL" --export=folded deep.PRF -o deep.folded
    is "$rc" 0 "4096 deep ($size bytes), --export=folded: exits 0"
    one_line "4096 deep, --export=folded" \
        "deep\\.PRF: stacks deeper than [0-9]+ frames are cut to their innermost [0-9]+, under \\[truncated\\]"
    cmp_ok "$(wc -c <deep.folded)" "<" 2000000 "4096 deep, --export=folded: under 2 MB written ($(wc -c <deep.folded) bytes)"
    is "$(awk '{ n += $NF } END { print n }' deep.folded)" 4096 "4096 deep, --export=folded: every sample is there"
    like "$(cat deep.folded)" '^\[truncated\];f;f;f' "4096 deep, --export=folded: a cut stack starts with [truncated]"
    measured "$PROFIL" --export=speedscope deep.PRF -o deep.json
    is "$rc" 0 "4096 deep, --export=speedscope: exits 0"
    cmp_ok "$rss" "<" 200000 "4096 deep, --export=speedscope: under 200 MB ($rss kB)"
    cmp_ok "$(wc -c <deep.json)" "<" 8000000 "4096 deep, --export=speedscope: under 8 MB written ($(wc -c <deep.json) bytes)"
    is "$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["profiles"][0]; print(int(sum(p["weights"])), len(p["samples"]))' deep.json 2>&1)" \
        "4096000 4096" "4096 deep, --export=speedscope: valid JSON, every sample is there"
    measured "$PROFIL" --export=pprof deep.PRF -o deep.pb.gz
    is "$rc" 0 "4096 deep, --export=pprof: exits 0"
    cmp_ok "$rss" "<" 200000 "4096 deep, --export=pprof: under 200 MB ($rss kB)"
    measured "$PROFIL" --export=html deep.PRF -o deep.html
    is "$rc" 0 "4096 deep, --export=html: exits 0"
    cmp_ok "$rss" "<" 200000 "4096 deep, --export=html: under 200 MB ($rss kB)"
    cmp_ok "$(wc -c <deep.html)" "<" 8000000 "4096 deep, --export=html: under 8 MB written ($(wc -c <deep.html) bytes)"
    measured "$PROFIL" --report --tree --inverted --percent-limit=0 deep.PRF
    is "$rc" 0 "4096 deep, --tree --inverted: exits 0"
    cmp_ok "$(wc -c <"$T/.out")" "<" 4000000 "4096 deep, --tree --inverted: under 4 MB printed ($(wc -c <"$T/.out") bytes)"
    like "$(cat "$T/.out")" '^# Stacks deeper than [0-9]+ frames are cut' "4096 deep, --tree --inverted: says the stacks are cut"
    measured "$PROFIL" --report --tree --percent-limit=0 one.PRF
    is "$rc" 0 "one stack 4096 deep, --tree: exits 0"
    cmp_ok "$(wc -c <"$T/.out")" "<" 4000000 "one stack 4096 deep, --tree: under 4 MB printed ($(wc -c <"$T/.out") bytes)"
    like "$(cat "$T/.out")" '\(calls deeper than [0-9]+ levels not shown\)$' "one stack 4096 deep, --tree: says what it left out"
else
    for _i in $(seq 1 21); do fail "4096 deep ($_i of 21)" "mkbomb failed"; done
fi
# A broom: 100,000 callees of the deepest of 4,095 calls, a sample in each
# (147 KB): the tree finds a child by a hash, not by a scan of 100,000
# (12.9 s before).
if "$MKBOMB" broom broom.PRF 100000 >/dev/null; then
    measured "$PROFIL" --report --tree --percent-limit=0 broom.PRF
    is "$rc" 0 "a broom of 100,000 stacks 4,096 deep, --tree: exits 0"
    cmp_ok "$_cpu" "<" 6 "a broom, --tree: under 6 s of CPU ($_cpu s)"
    measured "$PROFIL" --export=html broom.PRF -o broom.html
    is "$rc" 0 "a broom, --export=html: exits 0"
    cmp_ok "$_cpu" "<" 6 "a broom, --export=html: under 6 s of CPU ($_cpu s)"
    cmp_ok "$rss" "<" 200000 "a broom, --export=html: under 200 MB ($rss kB)"
else
    for _i in $(seq 1 5); do fail "a broom ($_i of 5)" "mkbomb failed"; done
fi
run "$PROFIL" --no-tui -b 1 -t 1000 -o r.PRF "$PROGS/recurse" 300 1500 </dev/null
is "$rc" 0 "a recursion 300 deep: profiled"
run "$PROFIL" --export=folded r.PRF -o -
is "$err" "" "a recursion 300 deep, --export=folded: nothing said"
hasnt "$out" "[truncated]" "a recursion 300 deep, --export=folded: no stack cut"
cmp_ok "$(printf '%s\n' "$out" | awk -F';' '{ if (NF > m) m = NF } END { print m }')" ">=" 300 \
    "a recursion 300 deep, --export=folded: the deepest stack whole"

# ---------------------------------------------------------------------------
# 8. --merge never writes what its reader refuses: each shape below reads,
# and merged with a real session (either way round) or with itself, the
# file written reads back.  prf.py rewrites a session (checksums anew):
# inline64, 64 levels of one inlined function at every place of the
# program (a recursion of inlines); dupthreads, every thread twice and each
# per-thread stack count split in two; otherpid, the same tids in other
# processes.  mkbomb kernelframe: a stack ending in the kernel at 2^64 - 1.
cat >prf.py <<'EOF'
import struct, sys, zlib
def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append((v & 0x7f) | 0x80)
        v >>= 7
    return bytes(b + bytes([v]))
class R:
    def __init__(s, d): s.d, s.i = d, 0
    def v(s):
        x = sh = 0
        while True:
            c = s.d[s.i]; s.i += 1; x |= (c & 0x7f) << sh; sh += 7
            if c < 0x80: return x
    def u8(s): s.i += 1; return s.d[s.i - 1]
    def u32(s): s.i += 4; return struct.unpack_from('<I', s.d, s.i - 4)[0]
    def u64(s): s.i += 8; return struct.unpack_from('<Q', s.d, s.i - 8)[0]
    def str(s): n = s.u32(); s.i += n; return s.d[s.i - n:s.i]
    def rest(s): return s.d[s.i:]
def sstr(b): return struct.pack('<I', len(b)) + b
def read(path):
    d = open(path, 'rb').read(); at = 16; ch = []
    while at < len(d):
        typ, flags, slen, raw, crc = struct.unpack_from('<4sIQII', d, at)
        body = d[at + 24:at + 24 + slen]; at += 24 + slen
        ch.append([typ, zlib.decompress(body) if flags & 1 else body])
    return d[:16], ch
def write(path, head, ch):
    out = bytearray(head)
    for typ, body in ch:
        if typ == b'END ':
            body = struct.pack('<I', zlib.crc32(bytes(out)))
        out += struct.pack('<4sIQII', typ, 0, len(body), len(body), zlib.crc32(body)) + body
    open(path, 'wb').write(out)
def get(ch, t): return [c for c in ch if c[0] == t][0]
mode, src, dst = sys.argv[1:4]
head, ch = read(src)
if mode == 'inline64':
    # every place: 64 levels of inlining, each the first inlined function
    c = get(ch, b'LINE'); r = R(c[1]); o = bytearray()
    nf = r.v(); o += varint(nf)
    for _ in range(nf): o += sstr(r.str())
    ni = r.v(); o += varint(ni)
    fn0 = None
    for k in range(ni):
        m = r.v(); name = r.str(); df = r.v(); dl = r.v()
        if m == 0 and fn0 is None: fn0 = k
        o += varint(m) + sstr(name) + varint(df) + varint(dl)
    assert fn0 is not None
    nfn = r.v(); o += varint(nfn)
    for _ in range(nfn): o += varint(r.v()) + varint(r.v()) + varint(r.v()) + varint(r.v()) + varint(r.v())
    np = r.v(); o += varint(np); mod = 0
    for _ in range(np):
        mg = r.v(); og = r.v(); f = r.v(); l = r.v(); col = r.v(); dep = r.v()
        for _ in range(dep): r.v(); r.v(); r.v(); r.v()
        mod += mg
        o += varint(mg) + varint(og) + varint(f) + varint(l) + varint(col)
        if mod == 0:
            o += varint(64) + (varint(fn0) + varint(f) + varint(l) + varint(0)) * 64
        else:
            o += varint(0)
    assert r.i == len(r.d)
    c[1] = bytes(o)
elif mode == 'dupthreads':
    # every thread twice in THRD, and each per-thread stack count as two entries
    c = get(ch, b'THRD'); r = R(c[1]); np = r.v(); o = bytearray(varint(np))
    for _ in range(np):
        for _ in range(6): o += varint(r.v())
        o += sstr(r.str()); na = r.v(); o += varint(na)
        for _ in range(na): o += sstr(r.str())
    nt = r.v(); th = []
    for _ in range(nt):
        tid, pid, name = r.v(), r.v(), r.str()
        rest = [r.v() for _ in range(4)]
        th.append(varint(tid) + varint(pid) + sstr(name) + b''.join(varint(x) for x in rest))
    o += varint(2 * nt) + b''.join(th) + b''.join(th) + r.rest()
    c[1] = bytes(o)
    c = get(ch, b'STCK'); r = R(c[1]); n = r.v(); o = bytearray(varint(n))
    for i in range(n): o += varint(r.v()) + varint(r.v()) + varint(r.v())
    nf = r.v(); o += varint(nf)
    for _ in range(nf):
        o += varint(r.v()); k = r.v(); o += varint(k)
        for _ in range(k): o += varint(r.v()) + varint(r.v())
    if r.i < len(r.d):
        nt = r.v(); ent = []
        for _ in range(nt):
            tid, node, cnt = r.v(), r.v(), r.v()
            if cnt > 1: ent += [(tid, node, cnt - 1), (tid, node, 1)]
            else: ent += [(tid, node, cnt)]
        o += varint(len(ent)) + b''.join(varint(a) + varint(b) + varint(c2) for a, b, c2 in ent)
    c[1] = bytes(o)
elif mode == 'otherpid':
    # every process and thread of another pid, the tids kept
    c = get(ch, b'THRD'); r = R(c[1]); np = r.v(); o = bytearray(varint(np))
    for _ in range(np):
        pid, ppid = r.v(), r.v(); o += varint(pid + 1) + varint(ppid)
        for _ in range(4): o += varint(r.v())
        o += sstr(r.str()); na = r.v(); o += varint(na)
        for _ in range(na): o += sstr(r.str())
    nt = r.v(); o += varint(nt)
    for _ in range(nt):
        tid, pid, name = r.v(), r.v(), r.str()
        o += varint(tid) + varint(pid + 1) + sstr(name) + b''.join(varint(r.v()) for _ in range(4))
    c[1] = bytes(o + r.rest())
write(dst, head, ch)
EOF
run "$PROFIL" --no-tui -b 1 -t 500 -o i.PRF "$PROGS/inl" </dev/null
is "$rc" 0 "a session with inlined functions"
"$MKBOMB" kernelframe h-kernelframe.PRF >/dev/null || rm -f h-kernelframe.PRF
for shape in inline64 dupthreads otherpid; do
    base=s.PRF
    [ "$shape" = inline64 ] && base=i.PRF
    python3 prf.py "$shape" "$base" "h-$shape.PRF" 2>py.err || { rm -f "h-$shape.PRF"; diag "$(cat py.err)"; }
done
for shape in inline64 kernelframe dupthreads otherpid; do
    h=h-$shape.PRF
    run "$PROFIL" --report "$h"
    is "$rc" 0 "$shape: the file reads"
    for pair in "i.PRF $h" "$h s.PRF" "$h $h"; do
        rm -f merged.PRF
        # shellcheck disable=SC2086 # two names
        run "$PROFIL" --merge --force $pair -o merged.PRF
        if [ "$rc" = 0 ]; then
            run "$PROFIL" --report merged.PRF
            is "$rc" 0 "$shape: --merge $pair: what it wrote reads back" || diag "$err"
        else
            is "$(lines "$err")$([ -e merged.PRF ] && echo ' written')" 1 \
                "$shape: --merge $pair: refused in one line, nothing written" || diag "$err"
        fi
    done
done

done_testing
