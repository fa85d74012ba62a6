# lib.sh - shared helpers for profil's end-to-end tests; sourced by each
# tests/e2e/*.sh script, which then speaks TAP on stdout.
#
# Environment (set by `make check`, see AM_TESTS_ENVIRONMENT):
#   PROFIL  the profil binary      PTYRUN  tests/ptyrun
#   PROGS   tests/progs            TESTLIB this file
# Run by hand from the top of the build tree, they default to ./profil etc.
#
# After sourcing, the script runs in $T, a fresh temporary directory that is
# removed on exit, so no session file lands in the source tree.

_lib_top=$(cd "$(dirname "$0")/../.." 2>/dev/null && pwd)
: "${PROFIL:=$_lib_top/profil}" "${PTYRUN:=$_lib_top/tests/ptyrun}" \
  "${PROGS:=$_lib_top/tests/progs}"

# Absolute paths: the scripts cd into $T.
_lib_abs() {
    case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$(pwd)" "$1" ;;
    esac
}
PROFIL=$(_lib_abs "$PROFIL")
PTYRUN=$(_lib_abs "$PTYRUN")
PROGS=$(_lib_abs "$PROGS")
export PROFIL PTYRUN PROGS

# Under make -j, a test that loads the machine on purpose or measures what
# load disturbs (jitter.sh: a program in step with the clock) sets
# E2E_ALONE=1 before sourcing this, and runs alone: every test holds a
# shared lock for its life, such a test an exclusive one.  Ten minutes at
# most: a process a
# test left behind may hold the lock (fd 9).  Not less: the longest test
# holds it over two minutes under the sanitizers (stacks.sh: 122 s as an
# ordinary user), and jitter.sh, waiting for it, gave up at two.
if ! command -v flock >/dev/null 2>&1; then
    echo "Bail out! flock is not installed (util-linux)"
    exit 1
fi
# flock does not queue: a test waiting to run alone would wait for as long
# as the others kept starting.  So a test takes the gate (e2e.gate) to take
# the lock, and one waiting to run alone keeps the gate until it has it.
if ! exec 9>>"$PROGS/../e2e.lock" || ! exec 8>>"$PROGS/../e2e.gate"; then
    echo "Bail out! cannot open $PROGS/../e2e.lock or e2e.gate"
    exit 1
fi
if [ "${E2E_ALONE:-0}" = 1 ]; then _lib_lock=-x; else _lib_lock=-s; fi
if ! flock -x -w 600 8 || ! flock "$_lib_lock" -w 600 9; then
    echo "Bail out! waited 600 s for $PROGS/../e2e.lock: a process an earlier test left behind holds it"
    exit 1
fi
flock -u 8
_lib_waited=$SECONDS

# PROFIL's three prompts, verbatim (note the trailing blanks).
P_BUCKET='Number of paragraphs (16 bytes) per bucket [1]? '
P_INTERVAL='Sample time (micro-sec) >= 60 [1000]? '
P_PARAMS='Parameters to program []? '

_tap_n=0
_tap_failed=0
_tap_plan=""

T=$(mktemp -d "${TMPDIR:-/tmp}/profil-e2e.XXXXXX") || {
    echo "Bail out! mktemp -d failed"
    exit 1
}
export T
trap 'cd /; rm -rf "$T"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$T" || {
    echo "Bail out! cannot cd to $T"
    exit 1
}
unset PROFDIR DEBUGINFOD_URLS # no test asks a server it did not start

for _lib_tool in "$PROFIL" "$PTYRUN"; do
    if [ ! -x "$_lib_tool" ]; then
        echo "Bail out! $_lib_tool is not built"
        exit 1
    fi
done
if ! command -v jq >/dev/null 2>&1; then
    echo "Bail out! jq is not installed"
    exit 1
fi

# diag TEXT...: TAP comment lines, one per line of each TEXT.
diag() {
    printf '%s\n' "$@" | sed 's/^/#   /'
}

# _tap STATUS DESC: print one result line; returns STATUS.
_tap() {
    _tap_n=$((_tap_n + 1))
    if [ "$1" -eq 0 ]; then
        printf 'ok %d - %s\n' "$_tap_n" "$2"
    else
        printf 'not ok %d - %s\n' "$_tap_n" "$2"
        _tap_failed=$((_tap_failed + 1))
    fi
    return "$1"
}

# plan N: the number of checks this script makes, said first (TAP's 1..N),
# so that a block that stops early or silently does not run is an error.
# Every path through the script makes N checks: a skipped block says
# `skip -n COUNT` for the COUNT checks it stands for.
plan() {
    _tap_plan=$1
    echo "1..$1"
}

# skip [-n COUNT] DESC TAG [DETAIL]: COUNT (default 1) checks that were not
# run, for the reason TAG names in tests/skips.allow.  It is a skip only if
# TAG's condition there holds here and now; otherwise a failure, which says
# so.  DETAIL says what this machine lacks, in this case.
_lib_allow=$(dirname "${TESTLIB:-$_lib_top/tests/e2e/lib.sh}")/../skips.allow
skip() {
    _sk_n=1
    if [ "$1" = -n ]; then
        _sk_n=$2
        shift 2
    fi
    _sk_d=$1 _sk_tag=$2 _sk_why=${3:-}
    _sk_fn=allow_$(printf '%s' "$_sk_tag" | tr -- - _)
    _sk_ok=1
    if ! printf '%s' "$_sk_tag" | grep -Eq '^[a-z0-9]+(-[a-z0-9]+)*$'; then
        _sk_msg="'$_sk_tag' is not a reason of tests/skips.allow"
    elif ! grep -q "^$_sk_fn() " "$_lib_allow" 2>/dev/null; then
        _sk_msg="'$_sk_tag' is not a reason of tests/skips.allow"
    elif ! (. "$_lib_allow" && "$_sk_fn") </dev/null >/dev/null 2>&1; then
        _sk_msg="the reason '$_sk_tag' of tests/skips.allow does not hold here"
    else
        _sk_ok=0
    fi
    _sk_i=1
    while [ "$_sk_i" -le "$_sk_n" ]; do
        _sk_di=$_sk_d
        [ "$_sk_n" -gt 1 ] && _sk_di="$_sk_d ($_sk_i of $_sk_n)"
        if [ "$_sk_ok" = 0 ]; then
            _tap 0 "$_sk_di # SKIP [$_sk_tag] $_sk_why"
        else
            _tap 1 "$_sk_di: an unjustified skip"
            diag "$_sk_msg${_sk_why:+: }$_sk_why"
        fi
        _sk_i=$((_sk_i + 1))
    done
    return 0
}

# fail DESC WHY: a check that cannot be made, as a failure: what ./setup
# installs missing, the reference tool (perf) failing, a setup step of the
# test's own that did not work.
fail() {
    _tap 1 "$1"
    diag "$2"
    return 1
}

# perf_missing [-n COUNT] DESC WHY: COUNT checks against perf that could not
# be made: a skip where the kernel refuses perf to this user (perf-refused),
# a failure otherwise: ./setup installs perf, and perf failing to record is
# the reference failing, which hides nothing.
perf_missing() {
    _pm_n=1
    if [ "$1" = -n ]; then
        _pm_n=$2
        shift 2
    fi
    if [ -n "$(perf_refused)" ]; then
        skip -n "$_pm_n" "$1" perf-refused "$(perf_refused)"
    else
        _pm_i=0
        while [ "$_pm_i" -lt "$_pm_n" ]; do
            fail "$1" "perf could not be compared with: $2"
            _pm_i=$((_pm_i + 1))
        done
    fi
    return 0
}

# debug_file_of LIB: the detached debug file of the shared library LIB (a
# path) in /usr/lib/debug/.build-id, found by its build id; 1 when none.
debug_file_of() {
    _id=$(readelf -n "$1" 2>/dev/null | sed -n 's/^[[:space:]]*Build ID: //p' | head -n 1)
    [ -n "$_id" ] || return 1
    _f=/usr/lib/debug/.build-id/$(printf %s "$_id" | cut -c1-2)/$(printf %s "$_id" | cut -c3-).debug
    [ -r "$_f" ] && printf '%s\n' "$_f"
}

# perf_refused: why this user may not open a perf cpu-clock event on its own
# children (and "auto" falls back to ptrace), on stdout; nothing when it may.
# Probed with perf itself (./setup installs it), as tests/skips.allow's
# perf-refused reason is: pass `perf-refused` as the skip's tag.
perf_refused() {
    if [ -z "${_lib_perf_why+set}" ]; then
        _lib_perf_why=""
        if [ "$(id -u)" -ne 0 ] && ! perf stat -e cpu-clock:u -x, -o /dev/null true >/dev/null 2>&1; then
            _lib_perf_why="the kernel refuses perf_event_open to $(id -un) (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
        fi
    fi
    printf '%s' "$_lib_perf_why"
}

# ok DESC CMD [ARG...]: passes when CMD succeeds.
ok() {
    _d=$1
    shift
    if "$@"; then
        _tap 0 "$_d"
    else
        _tap 1 "$_d"
        diag "command failed: $*"
        # A screen that did not come: what it showed instead.
        case $1 in
        wait_for | gone)
            diag "the screen's last lines:" "$(screen 2>&1 | grep -v '^ *$' | tail -n 8)"
            # And profil's processes then: running, stopped, or waiting on what
            # (a q that is slow to leave: keep.sh's ".old: q leaves").
            diag "profil's processes:" "$(ps -o pid,stat,wchan:24,etime,time,args -u "$(id -u)" 2>&1 |
                grep -e '^ *PID' -e '[p]rofil ' | cut -c1-160)"
            ;;
        esac
        return 1
    fi
}

# is GOT WANT DESC: exact string equality.
is() {
    if [ "x$1" = "x$2" ]; then
        _tap 0 "$3"
    else
        _tap 1 "$3"
        diag "got:  '$1'" "want: '$2'"
        return 1
    fi
}

# isnt GOT UNWANTED DESC
isnt() {
    if [ "x$1" != "x$2" ]; then
        _tap 0 "$3"
    else
        _tap 1 "$3"
        diag "got '$1', which was not wanted"
        return 1
    fi
}

# like TEXT ERE DESC: some line of TEXT matches the extended regex.
like() {
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then
        _tap 0 "$3"
    else
        _tap 1 "$3"
        diag "no line matches /$2/ in:" "$(printf '%s\n' "$1" | head -n 30)"
        return 1
    fi
}

# unlike TEXT ERE DESC: no line of TEXT matches.
unlike() {
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then
        _tap 1 "$3"
        diag "unexpected match for /$2/:" "$(printf '%s\n' "$1" | grep -E -- "$2" | head -n 5)"
        return 1
    else
        _tap 0 "$3"
    fi
}

# has TEXT STRING DESC / hasnt TEXT STRING DESC: fixed-string search.
has() {
    if printf '%s\n' "$1" | grep -Fq -- "$2"; then
        _tap 0 "$3"
    else
        _tap 1 "$3"
        diag "'$2' not found in:" "$(printf '%s\n' "$1" | head -n 30)"
        return 1
    fi
}
hasnt() {
    if printf '%s\n' "$1" | grep -Fq -- "$2"; then
        _tap 1 "$3"
        diag "'$2' found in:" "$(printf '%s\n' "$1" | head -n 30)"
        return 1
    else
        _tap 0 "$3"
    fi
}

# count_of TEXT STRING: how many times STRING occurs in TEXT.
count_of() {
    printf '%s\n' "$1" | grep -oF -- "$2" | wc -l | tr -d ' '
}

# _num X: whether X is a decimal number awk can compare.
_num() {
    printf '%s\n' "$1" | grep -Eq '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
}

# near GOT WANT TOL DESC: |GOT - WANT| <= TOL, in floating point.
near() {
    if _num "$1" && _num "$2" &&
        awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }'; then
        _tap 0 "$4"
    else
        _tap 1 "$4"
        diag "got $1, want $2 +/- $3"
        return 1
    fi
}

# cmp_ok GOT OP WANT DESC: numeric comparison, OP one of < <= > >= == !=.
cmp_ok() {
    if _num "$1" && _num "$3" &&
        awk -v g="$1" -v w="$3" -v op="$2" 'BEGIN {
            g += 0; w += 0
            if (op == "<") r = g < w; else if (op == "<=") r = g <= w
            else if (op == ">") r = g > w; else if (op == ">=") r = g >= w
            else if (op == "==") r = g == w; else if (op == "!=") r = g != w
            else r = 0
            exit !r }'; then
        _tap 0 "$4"
    else
        _tap 1 "$4"
        diag "want $1 $2 $3"
        return 1
    fi
}

# calc EXPR: evaluate an awk arithmetic expression (floats allowed).
calc() {
    awk "BEGIN { printf \"%.10g\\n\", ($1) }"
}

# json FILE EXPR [JQ-ARG...]: FILE's JSON report through jq -r.
json() {
    _f=$1
    shift
    "$PROFIL" --report --json "$_f" | jq -r "$@"
}

# run CMD [ARG...]: run CMD (give it stdin: `run CMD </dev/null`), setting
# $rc, $out (its stdout) and $err (its stderr); both are kept in $T/.out and
# $T/.err too.
run() {
    "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    out=$(cat "$T/.out")
    err=$(cat "$T/.err")
}

# piped INPUT CMD [ARG...]: like run, with printf '%b' INPUT piped to stdin
# (so write \\ for a backslash, \n for a newline).
piped() {
    _in=$1
    shift
    printf '%b' "$_in" | "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    out=$(cat "$T/.out")
    err=$(cat "$T/.err")
}

# ptyrun [PTYRUN-OPTIONS] -- CMD...: run on a pty; $rc, and $out with the
# carriage returns and terminal escape sequences (readline's bracketed
# paste switches and the like) taken out.
ptyrun() {
    "$PTYRUN" "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    out=$(tr -d '\r' <"$T/.out" | sed 's/\x1b\[[?0-9;]*[A-Za-z]//g')
    err=$(cat "$T/.err")
}

# lines TEXT: number of lines in TEXT (0 for the empty string).
lines() {
    if [ -z "$1" ]; then
        echo 0
    else
        printf '%s\n' "$1" | wc -l | tr -d ' '
    fi
}

# prf_in DIR: the .PRF files in DIR (hidden temporaries too), one per line.
prf_in() {
    find "$1" -maxdepth 1 -name '*.PRF*' | sort
}

# no_prf DIR DESC: no session file was left in DIR.
no_prf() {
    is "$(prf_in "$1")" "" "$2"
}

# ctrl_free FILE: FILE holds no control bytes but tab and newline (no NUL).
ctrl_free() {
    [ "$(LC_ALL=C tr -d '\t\n\040-\176\200-\377' <"$1" | wc -c)" -eq 0 ] && return 0
    diag "$1 holds control bytes:" "$(od -c "$1" | head -n 8)"
    return 1
}

# file_has FILE ERE [SECONDS]: poll FILE (another process writes it) until a
# line matches ERE, for up to SECONDS (default 10); 0 if one did.
file_has() {
    _fh_n=$(( ${3:-10} * 50 ))
    while [ "$_fh_n" -gt 0 ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.02
        _fh_n=$((_fh_n - 1))
    done
    return 1
}

# done_testing: the end of the script.  The plan was said first (plan N); the
# TAP driver counts the failures, and says ERROR when fewer or more checks
# than planned ran.
done_testing() {
    if [ -z "$_tap_plan" ]; then
        echo "Bail out! $(basename "$0") made $_tap_n checks without saying its plan first (plan N)"
        exit 1
    fi
    if [ "$_tap_n" -ne "$_tap_plan" ]; then
        echo "# planned $_tap_plan checks, made $_tap_n"
    fi
    if [ "$_tap_failed" -ne 0 ]; then
        echo "# $_tap_failed of $_tap_n failed"
    fi
    # Where the suite's time goes: grep '^# took' tests/e2e/*.log.
    echo "# took $((SECONDS - _lib_waited)) s, after $_lib_waited s waiting for $PROGS/../e2e.lock"
    exit 0
}

# use_tmux: a private tmux server for driving the live screen, removed on
# exit; defines tm (tmux on that server), screen (the pane "s" as text) and
# wait_for ERE [SECONDS] (poll the pane until a line matches; 0 if it did).
use_tmux() {
    if ! command -v tmux >/dev/null 2>&1; then
        echo "Bail out! tmux is not installed"
        exit 1
    fi
    SOCK="profil-test-$$"
    trap 'tm kill-server 2>/dev/null; cd /; rm -rf "$T"' EXIT
}
tm() { tmux -L "$SOCK" "$@"; }
screen() { tm capture-pane -p -t s; }
# selected: the reverse-video row of a list (a view's cursor under NO_COLOR),
# from where the reverse video starts, escapes taken out.
selected() {
    _e=$(printf '\033')
    tm capture-pane -p -e -t s |
        sed -n "s/^.*$_e\[\([0-9]*;\)*7m\(\($_e\[[0-9;]*m\)*[0-9]\)/\2/p" |
        sed 's/\x1b\[[0-9;]*m//g' | grep -Ev '^[0-9][A-Z]' | head -n 1
}
# wait_for_selected ERE [SECONDS]: poll until the selected row matches.
wait_for_selected() {
    _n=$(( ${2:-10} * 10 ))
    while [ "$_n" -gt 0 ]; do
        selected | grep -Eq -- "$1" && return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    diag "selected: $(selected)"
    return 1
}
# gone ERE [SECONDS]: poll until no line of the pane matches.
gone() {
    _n=$(( ${2:-10} * 10 ))
    while [ "$_n" -gt 0 ]; do
        screen | grep -Eq -- "$1" || return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    return 1
}
# step_to KEY CHECK...: press KEY until CHECK (wait_for ERE 1, or
# wait_for_selected ERE 1) holds, one press at a time, each once the screen
# has changed from before the last (that key was read): 8 presses at most.
step_to() {
    _key=$1
    shift
    _i=0
    while [ "$_i" -lt 8 ]; do
        "$@" && return 0
        _before=$(screen)
        tm send-keys -t s "$_key"
        _k=30
        while [ "$_k" -gt 0 ] && [ "$(screen)" = "$_before" ]; do
            sleep 0.1
            _k=$((_k - 1))
        done
        _i=$((_i + 1))
    done
    "$@"
}
wait_for() {
    _n=$(( ${2:-10} * 10 ))
    while [ "$_n" -gt 0 ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    return 1
}
