#!/bin/sh
# debuginfod.sh - a stripped program whose debug file only a debuginfod
# server has gets its real names when DEBUGINFOD_URLS names the server: a
# real server (Debian's debuginfod) serving a local directory on 127.0.0.1.
# A server's junk is not kept, a file over DEBUGINFOD_MAXSIZE not fetched,
# a server that does not answer is given up on in time.
# The download says how far it got, lands in libdebuginfod's cache (as
# debuginfod-find keeps it) and is not fetched again.  A server that does not
# answer costs one line at most, and the names fall back.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

plan 37

prog=sieve-stripped # strip(1) of tests/progs/sieve: same build id, no debuglink
line="profil: downloading debug info for $prog from debuginfod: 100%"

# Under the sanitizers, libdebuginfod leaks a stdio buffer now and then (its
# dprintf into its cache, glibc's vdprintf; whether LeakSanitizer sees it
# depends on what the stack still holds), which profil's suppressions name
# by libdebuginfod's frame: with mallocs unwound fully the report has that
# frame (the fast unwinder stops in libc).  Ignored without the sanitizers.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export ASAN_OPTIONS

# profile NAME [VAR=VALUE...]: run $prog at -b 1 -t 1000 with the environment
# VAR=VALUE into $T/NAME.PRF, its JSON report into $J.
profile() {
    _name=$1
    shift
    run env "$@" "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/$_name.PRF" "$PROGS/$prog" 1500 </dev/null
    "$PROFIL" --report --json "$T/$_name.PRF" >"$T/$_name.json" 2>/dev/null
    J=$T/$_name.json
}
names() { jq -r --arg m "$prog" '[.functions[] | select(.module == $m) | .name] | sort | join(" ")' "$J"; }
real_names() {
    for f in markbit testbit; do
        has " $(names) " " $f " "$1: $f is named"
    done
    unlike "$(names | tr ' ' '\n')" "^$prog\\+0x" "$1: no routine is named $prog+0x..."
}

bid=$(readelf -n "$PROGS/$prog" 2>/dev/null | sed -n 's/^[[:space:]]*Build ID: //p' | head -n 1)
why=""
if ! command -v debuginfod >/dev/null 2>&1 || ! command -v debuginfod-find >/dev/null 2>&1; then
    why="needs the debuginfod server and debuginfod-find (Debian package debuginfod)"
elif [ -z "$bid" ]; then
    why="needs a build id in tests/progs/$prog (a linker without --build-id)"
elif [ -n "$(debug_file_of "$PROGS/$prog")" ]; then
    why="$prog's debug file is installed in /usr/lib/debug: the server would not be asked"
fi

# Start the server on a free port: a port someone holds makes it exit.
dpid=""
stop_server() {
    if [ -n "$dpid" ]; then
        kill "$dpid" 2>/dev/null
        wait "$dpid" 2>/dev/null
        dpid=""
    fi
}
trap 'stop_server; cd /; rm -rf "$T"' EXIT
if [ -z "$why" ]; then
    mkdir "$T/srv"
    cp "$PROGS/sieve" "$T/srv/sieve" # unstripped: the server serves its debug info
    for try in 1 2 3 4 5; do
        port=$(awk -v s="$$$try" 'BEGIN { srand(s); print 20000 + int(rand() * 40000) }')
        debuginfod -p "$port" -F "$T/srv" -d "$T/db.$try.sqlite" >"$T/debuginfod.log" 2>&1 &
        dpid=$!
        # Up once it listens; gone when the port was taken.
        for _ in $(seq 1 50); do
            grep -qs "started http server" "$T/debuginfod.log" && break
            kill -0 "$dpid" 2>/dev/null || break
            sleep 0.1
        done
        grep -qs "started http server" "$T/debuginfod.log" && kill -0 "$dpid" 2>/dev/null && break
        stop_server
    done
    if [ -z "$dpid" ]; then
        why="debuginfod cannot serve here: $(tail -n 1 "$T/debuginfod.log")"
    fi
fi
if [ -n "$why" ]; then
    _i=1
    while [ "$_i" -le 36 ]; do # the 36 checks below
        fail "debuginfod: a stripped program gets its names from the server ($_i of 36)" "$why"
        _i=$((_i + 1))
    done
    done_testing
    exit 0
fi
url=http://127.0.0.1:$port

# It has scanned the directory once it serves the file.  Each probe has a
# cache of its own: libdebuginfod remembers a miss.
served=""
for i in $(seq 1 100); do
    if DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/probe.$i debuginfod-find debuginfo "$bid" \
        >/dev/null 2>&1; then
        served=yes
        break
    fi
    sleep 0.2
done
ok "debuginfod on $url serves sieve's debug info (build id $bid)" test -n "$served" ||
    diag "$(tail -n 20 "$T/debuginfod.log")"

profile fetched DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache"
is "$rc" 0 "fetched: profil exits 0"
diag "fetched: $(names)"
real_names fetched
ok "fetched: the debug file is in libdebuginfod's cache, as debuginfod-find keeps it" \
    test -s "$T/cache/$bid/debuginfo"
is "$(count_of "$err" "$line")" 1 "fetched: one progress line on a stderr that is no terminal: '$line'"
is "$(count_of "$err" "debuginfod")" 1 "fetched: and nothing else about debuginfod"

# On a terminal the line is rewritten in place as the bytes arrive.
run env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache.tty" \
    "$PTYRUN" -t 60 -- "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/tty.PRF" "$PROGS/$prog" 1500
is "$rc" 0 "on a terminal: profil exits 0"
cr=$(printf '\r')
has "$out" "${cr}profil: downloading debug info for $prog from debuginfod" \
    "on a terminal: the progress line is rewritten in place (a carriage return before it)"
has "$out" "$line" "on a terminal: it ends at 100%"

# The cache answers from now on: no server, no download, the same names.
stop_server
profile cached DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache"
is "$rc" 0 "cached, server stopped: profil exits 0"
real_names "cached, server stopped"
hasnt "$err" "debuginfod" "cached, server stopped: nothing to say"

# Nobody listens on the port now: the names fall back, one line says why.
profile refused DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache.refused"
is "$rc" 0 "refused: profil still profiles"
cmp_ok "$(jq -r .counters.program "$J")" ">" 0 "refused: the program is sampled"
like "$(jq -r '.functions[0].name' "$J")" "^$prog\\+0x[0-9a-f]+\$" "refused: names fall back to $prog+0x..."
cmp_ok "$(count_of "$err" "debuginfod")" "<=" 1 "refused: one line at most about debuginfod"
diag "refused: $(printf '%s\n' "$err" | grep debuginfod)"

# A server that answers badly (python's HTTP server on 127.0.0.1): under
# /junk, 3 MB that are no ELF file, whatever is asked; under /silent, no
# answer at all.
cat >"$T/bad.py" <<'PY'
import http.server, socketserver, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/silent/'):
            time.sleep(600)
            return
        body = b'not an ELF file, only junk\n' * 120000
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass
    def log_message(self, *a):
        pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
s = S(('127.0.0.1', 0), H)
open(sys.argv[1] + '.tmp', 'w').write(str(s.server_address[1]))
__import__('os').rename(sys.argv[1] + '.tmp', sys.argv[1])
s.serve_forever()
PY
python3 "$T/bad.py" "$T/bad.port" 2>/dev/null &
dpid=$!
for _ in $(seq 1 100); do
    [ -s "$T/bad.port" ] && break
    sleep 0.1
done
bad=http://127.0.0.1:$(cat "$T/bad.port" 2>/dev/null)
# Shorter runs, as the names are all these need.
short() { # NAME VAR=VALUE...: profile, 300 rounds
    _name=$1
    shift
    run env "$@" \
        "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/$_name.PRF" "$PROGS/$prog" 300 </dev/null
    "$PROFIL" --report --json "$T/$_name.PRF" >"$T/$_name.json" 2>/dev/null
    J=$T/$_name.json
}

# What is no debug information is not kept in the cache to be read again.
short junk DEBUGINFOD_URLS="$bad/junk" DEBUGINFOD_CACHE_PATH="$T/cache.junk"
is "$rc" 0 "junk: profil exits 0" || diag "$err"
has "$err" "no debug info for $prog from debuginfod: the server's file is not ELF debug info" \
    "junk: one line says the server's file is no debug information"
is "$(find "$T/cache.junk" -name debuginfo -type f 2>/dev/null | wc -l | tr -d ' ')" 0 \
    "junk: and it is removed from libdebuginfod's cache"
# A file larger than DEBUGINFOD_MAXSIZE is not downloaded (profil's own
# bound, 1 GiB, where the user set none).
short big DEBUGINFOD_URLS="$bad/big" DEBUGINFOD_CACHE_PATH="$T/cache.big" DEBUGINFOD_MAXSIZE=1000000
has "$err" "no debug info for $prog from debuginfod: the file is larger than DEBUGINFOD_MAXSIZE allows (1000000 bytes)" \
    "big: over DEBUGINFOD_MAXSIZE: not downloaded, one line says why"
# A server that never answers gives up at libdebuginfod's timeout (profil's
# own, 10 s for the first 100 KB, where the user set none: shortened here).
short silent DEBUGINFOD_URLS="$bad/silent" DEBUGINFOD_CACHE_PATH="$T/cache.silent" \
    DEBUGINFOD_TIMEOUT=1 DEBUGINFOD_RETRY_LIMIT=0
is "$rc" 0 "silent: profil exits 0" || diag "$err"
cmp_ok "$(jq -r .counters.program "$J")" ">" 0 "silent: the program is sampled"
has "$err" "no debug info for $prog from debuginfod: no answer in time" \
    "silent: one line says the server did not answer in time"
has "$err" "(DEBUGINFOD_TIMEOUT: 1 s for the first 100 KB, DEBUGINFOD_MAXTIME: 60 s in all)" \
    "silent: and the limits in effect, the user's where set"

# The program starts at once, whatever the server does: the servers are
# asked in the background, the run's end waits for the answer, and the file
# has the names it brought.  (Asked before the start, a server that does
# not answer held the program back for DEBUGINFOD_TIMEOUT, here 5 s.)  The
# program is a script: sh's debug file is asked for first, then $prog's.
printf '#!/bin/sh\ndate +%%s.%%N >"%s/started"\nexec "%s" 300\n' "$T" "$PROGS/$prog" >"$T/start.sh"
chmod +x "$T/start.sh"
t0=$(date +%s.%N)
run env DEBUGINFOD_URLS="$bad/silent" DEBUGINFOD_CACHE_PATH="$T/cache.start" \
    DEBUGINFOD_TIMEOUT=5 DEBUGINFOD_RETRY_LIMIT=0 \
    "$PROFIL" --no-tui -b 1 -t 1000 -o "$T/start.PRF" "$T/start.sh" </dev/null
t1=$(date +%s.%N)
is "$rc" 0 "start: profil exits 0" || diag "$err"
waited=$(calc "$(cat "$T/started" 2>/dev/null || echo 99) - $t0")
diag "start: the program started $waited s after profil; the run took $(calc "$t1 - $t0") s"
cmp_ok "$waited" "<" 3 "start: the program starts at once (under 3 s), not after the server's 5 s"
cmp_ok "$(calc "$t1 - $t0")" ">=" 5 "start: the run ends once the server's time is up"
is "$(count_of "$err" "no answer in time")" 1 "start: one line says the server did not answer"
"$PROFIL" --report --json "$T/start.PRF" >"$T/start.json" 2>/dev/null
cmp_ok "$(jq -r --arg m "$prog" '[.functions[] | select(.module == $m)] | length' "$T/start.json")" ">" 0 \
    "start: $prog's routines are in the file, named as without the server"

# The live screen says what is being fetched while the program runs.
use_tmux
trap 'tm kill-server 2>/dev/null; stop_server; cd /; rm -rf "$T"' EXIT
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' sh"
tm send-keys -t s "cd '$T'; DEBUGINFOD_URLS='$bad/silent' DEBUGINFOD_CACHE_PATH='$T/cache.tui' DEBUGINFOD_TIMEOUT=4 DEBUGINFOD_RETRY_LIMIT=0 $PROFIL -b 1 -t 1000 -o tui.PRF '$PROGS/$prog' 100000; echo EXIT=\$?" Enter
ok "screen: the status line says debug info is being fetched, while the program runs" \
    wait_for "downloading debug info for $prog from debuginfod" 10
has "$(screen)" " running" "screen: and the program is running"
ok "screen: then that the server did not answer" \
    wait_for "no debug info for $prog from debuginfod: no answer in time" 15
tm send-keys -t s q
tm send-keys -t s y
ok "screen: q y ends it" wait_for "EXIT=" 15
stop_server

done_testing
