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

# Under make -j, a test that loads the machine on purpose (drivers.sh: busy
# loops on both CPUs, 200 processes) or measures what load disturbs
# (jitter.sh: a program in step with the clock) sets E2E_ALONE=1 before
# sourcing this, and runs alone: every test holds a shared lock for its
# life, such a test an exclusive one.  Two minutes at most: a process a
# test left behind may hold the lock (fd 9).
if command -v flock >/dev/null 2>&1 && exec 9>>"$PROGS/../e2e.lock"; then
    if [ "${E2E_ALONE:-0}" = 1 ]; then
        flock -x -w 120 9
    else
        flock -s -w 120 9
    fi
fi

# PROFIL's three prompts, verbatim (note the trailing blanks).
P_BUCKET='Number of paragraphs (16 bytes) per bucket? '
P_INTERVAL='Sample time (micro-sec) >= 60 ? '
P_PARAMS='Parameters to program? '

_tap_n=0
_tap_failed=0

T=$(mktemp -d "${TMPDIR:-/tmp}/profil-e2e.XXXXXX") || {
    echo "Bail out! mktemp -d failed"
    exit 1
}
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

# skip DESC REASON: a TAP result that was not run; REASON names what this
# machine lacks (a package, a permission) and why the check needs it.
skip() {
    _tap 0 "$1 # SKIP $2"
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
perf_refused() {
    if [ ! -r /proc/sys/kernel/perf_event_paranoid ]; then
        echo "needs perf_event_open: this kernel has no /proc/sys/kernel/perf_event_paranoid"
    elif [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
        echo "needs perf_event_paranoid <= 2 or root: it is $(cat /proc/sys/kernel/perf_event_paranoid)"
    fi
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

# done_testing: print the plan.  The TAP driver counts the failures.
done_testing() {
    echo "1..$_tap_n"
    if [ "$_tap_failed" -ne 0 ]; then
        echo "# $_tap_failed of $_tap_n failed"
    fi
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
wait_for() {
    _n=$(( ${2:-10} * 10 ))
    while [ "$_n" -gt 0 ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    return 1
}
