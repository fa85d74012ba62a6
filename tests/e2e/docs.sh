#!/bin/sh
# docs.sh - the docs are tested: every command that README.md and the man
# page's EXAMPLES show is run, and its output compared in shape with the one
# they show, so that the docs cannot drift from the program.
#
# What a command is:
#   README.md   a line starting with "$ " inside a ```sh fenced block; the
#               lines after it, up to the next "$ " line or the block's end,
#               are its output as shown.  A ```screen block right after an
#               sh block is the picture of the live screen of that block's
#               last command.  Commands named in the prose (flamegraph.pl,
#               go tool pprof: tools profil does not install) are not
#               commands here and are not run.
#   profil.1    a line starting with "$ " between .EX and .EE in the EXAMPLES
#               section, the roff escapes taken out (\- \(aq \(dq \e \&);
#               its output the same way.
# A shown line "..." stands for lines left out.
#
# How each runs: in a directory of its own (one for the README, one for the
# man page; the commands of one document run in order there, so a later one
# reads the session an earlier one saved), with "profil" and "./profil" the
# built binary, tests/progs the test programs, HOME and XDG_STATE_HOME under
# $T, standard input /dev/null (so profil prints its report instead of the
# screen, as on a pipe).  A command with a screen picture runs in tmux, its
# questions answered as the shown output answers them.  Commands that need
# root and change the machine are checked, not run as shown:
#   sudo make install / uninstall   run as make install DESTDIR=$T/dest (and
#                                   uninstall): the files appear and go
#   sudo sysctl KEY=N               KEY is a sysctl here, N a number
#   echo KEY=N | sudo tee FILE      the same, and FILE's directory exists
#   sudo setcap CAP=ep FILE         CAP is a capability of this kernel's
#                                   headers, FILE what make install installed
#
# The shape: each shown line, numbers made 0 (signs, decimals, times,
# pids), the marks that vary from run to run taken out (~ and *), the
# driver's name made one word, blanks squeezed, must be a line of the real
# output; a screen's header lines, column heads and view bar likewise.
# The numbers: the sample counts the output states (written to, Total,
# Stacks, the call tree's, --diff's, the routines' Samples,
# callgrind_annotate's PROGRAM TOTALS) must be those of the saved session's
# JSON report; and within each document, every example
# of sieve.PRF must state the same number of samples (README once showed
# 649 beside 794 for one file).
#
# The test can fail: break a "$ " command of the README (a wrong option, a
# routine renamed in its output) and it fails.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
use_tmux

build=$(dirname "$PROFIL")
readme=$top/README.md
manpage=$top/profil.1
D=$T/doc
mkdir -p "$D" "$T/home" "$T/state"

# extract DOC PREFIX: N.cmd, N.want (the shown output) and N.screen files
# under $D, named PREFIX-NNN, in order.
extract_readme() {
    awk -v dir="$D" -v pre="$1" '
        function out(f, s) { print s >> f; close(f) }
        /^```/ {
            if (inblock) { inblock = 0; if (kind == "sh" && cur) last = cur; next }
            inblock = 1; kind = substr($0, 4); cur = 0
            next
        }
        !inblock { next }
        kind == "sh" && /^\$ / {
            n++; cur = n; f = sprintf("%s/%s-%03d", dir, pre, n)
            out(f ".cmd", substr($0, 3)); printf "" > (f ".want"); close(f ".want")
            next
        }
        kind == "sh" && cur { out(sprintf("%s/%s-%03d.want", dir, pre, cur), $0); next }
        kind == "screen" && last { out(sprintf("%s/%s-%03d.screen", dir, pre, last), $0); next }
    ' "$readme"
}
extract_readme R
readme=$T/man-examples.md
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$manpage" |
    sed -n '/^\.EX/,/^\.EE/p' |
    sed 's/^\.EX$/```sh/; s/^\.EE$/```/; s/\\-/-/g; s/\\(aq/'"'"'/g; s/\\(dq/"/g; s/\\&//g; s/\\e/\\/g' \
        >"$readme"
extract_readme M
readme=$top/README.md

# kind N: how command N is run (install, uninstall, sysctl, tee, setcap,
# tmux, plain).
kind() {
    _c=$(cat "$D/$1.cmd")
    case $_c in
    "sudo make install"*) echo install ;;
    "sudo make uninstall"*) echo uninstall ;;
    "sudo sysctl "*) echo sysctl ;;
    *"| sudo tee "*) echo tee ;;
    "sudo setcap "*) echo setcap ;;
    *)
        if [ -f "$D/$1.screen" ]; then echo tmux; else echo plain; fi
        ;;
    esac
}
# has_numbers N: whether command N's output states sample counts to compare
# with the JSON report.
has_numbers() {
    grep -q 'written to\|--report\|--diff\|PROGRAM TOTALS' "$D/$1.cmd" "$D/$1.want" &&
        ! grep -q -- '--json' "$D/$1.cmd"
}
ncmds() { find "$D" -name "$1-*.cmd" | wc -l | tr -d ' '; }

checks=5
for f in "$D"/*.cmd; do
    n=$(basename "$f" .cmd)
    case $(kind "$n") in
    install | uninstall | sysctl | tee | setcap) checks=$((checks + 1)) ;;
    *)
        checks=$((checks + 1))
        [ -s "$D/$n.want" ] && checks=$((checks + 1))
        [ -f "$D/$n.screen" ] && checks=$((checks + 1))
        has_numbers "$n" && checks=$((checks + 1))
        ;;
    esac
done
plan "$checks"

cmp_ok "$(ncmds R)" '>=' 15 "README.md shows its commands as \"\$ \" lines in sh blocks ($(ncmds R) found)"
cmp_ok "$(ncmds M)" '>=' 8 "profil.1's EXAMPLES show their commands as \"\$ \" lines ($(ncmds M) found)"

# The place each document's commands run.
for w in R M; do
    mkdir -p "$T/run$w/tests" "$T/run$w/bin"
    ln -s "$PROFIL" "$T/run$w/profil"
    ln -s "$PROFIL" "$T/run$w/bin/profil"
    ln -s "$PROGS" "$T/run$w/tests/progs"
done

# norm: the shape of lines (stdin), one a line, "..." lines dropped.
norm() {
    sed -E 's/\r$//; s/\b(perf|ptrace)( driver|,)/DRIVER\2/g; s/[+-]?[0-9]+([.:,][0-9]+)*/0/g;
            s/\[[|#. -]*\]/[]/g; s/(^|[[:space:]])[~*]+([[:space:]]|$)/\1\2/g; s/~//g;
            s/[[:space:]]+/ /g; s/^ //; s/ $//' | grep -v '^\.\.\.$' | grep -v '^$'
}
# shape DESC WANTFILE GOTFILE: every shown line's shape is a line of the output's.
shape() {
    norm <"$2" | sort -u >"$T/.want.n"
    norm <"$3" | sort -u >"$T/.got.n"
    _missing=$(comm -23 "$T/.want.n" "$T/.got.n")
    if [ -z "$_missing" ]; then
        _tap 0 "$1"
    else
        _tap 1 "$1"
        diag "shown, but no such line in the output (numbers made 0):" "$_missing" \
            "the output was:" "$(head -n 40 "$3")"
    fi
}
# total F: the samples of session F by its JSON report.
total() { "$PROFIL" --report --json "$1" 2>/dev/null | jq -r .counters.total; }
# numbers DESC CMDFILE GOTFILE DIR: the sample counts GOTFILE states agree
# with the JSON reports of the sessions in DIR they are about.
numbers() {
    _bad="" _d="" _j=""
    _cmd=$(cat "$2")
    _f=$(printf '%s\n' "$_cmd" | tr ' ' '\n' | grep '\.PRF$' | head -n 1)
    _w=$(sed -nE 's/.* ([0-9]+) samples \([0-9]+ lost\) written to ([^ ]+\.PRF).*/\1 \2/p' "$3" | tail -n 1)
    if [ -n "$_w" ]; then
        _f=${_w#* }
        _t=$(cd "$4" && total "$_f")
        [ "${_w%% *}" = "$_t" ] || _bad="$_bad; written: ${_w%% *}, JSON $_t"
    fi
    [ -n "$_f" ] && _t=$(cd "$4" && total "$_f") && _j=$(cd "$4" && "$PROFIL" --report --json "$_f")
    _tot=$(sed -nE 's/^Total +([0-9]+)$/\1/p' "$3")
    [ -z "$_tot" ] || [ "$_tot" = "$_t" ] || _bad="$_bad; Total $_tot, JSON $_t"
    _st=$(sed -nE 's/^ *Stacks: ([0-9]+) samples.*/\1/p' "$3")
    [ -z "$_st" ] || [ "$_st" = "$(printf '%s' "$_j" | jq .stacks.samples)" ] || _bad="$_bad; Stacks $_st"
    _tr=$(sed -nE 's/^# Call tree.*: ([0-9]+) samples.*/\1/p' "$3")
    [ -z "$_tr" ] || [ "$_tr" = "$_t" ] || _bad="$_bad; tree $_tr, JSON $_t"
    # Each routine row (Time Routine ... Samples With-calls Module): its Samples.
    _rows=$(grep -E '^[0-9]{2}:[0-9]{2}\.[0-9]{3} +[^ ]+ +[0-9.]+%' "$3" | grep -v ' Total ' |
        awk '{ print $2, ($NF == "(inlined)") ? $(NF - 3) : $(NF - 2) }' | head -n 8)
    _nrows=0
    while read -r _name _s; do
        [ -n "$_name" ] || continue
        _nrows=$((_nrows + 1))
        printf '%s' "$_j" | jq -e --arg n "$_name" --argjson s "$_s" \
            'any(.functions[]; .name == $n and .self == $s)' >/dev/null ||
            _bad="$_bad; $_name: $_s samples, none such in the JSON report"
    done <<EOF
$_rows
EOF
    # --diff A B: each one's samples.
    case $_cmd in
    *--diff*)
        set -- "$1" "$2" "$3" "$4" $(printf '%s\n' "$_cmd" | tr ' ' '\n' | grep '\.PRF$')
        _d=$(sed -nE 's/^profil diff of ([^ ]+) \(([0-9]+) samples\) and ([^ ]+) \(([0-9]+) samples\)$/\2 \4/p' "$3")
        _want="$(cd "$4" && total "$5") $(cd "$4" && total "$6")"
        [ "$_d" = "$_want" ] || _bad="$_bad; --diff states '$_d', JSON '$_want'"
        ;;
    esac
    # callgrind_annotate X.callgrind: its PROGRAM TOTALS, the samples of the
    # session an earlier command exported as X.callgrind.
    _cg=$(sed -nE 's/^ *([0-9,]+) \(100\.0%\)  PROGRAM TOTALS$/\1/p' "$3" | tr -d ,)
    if [ -n "$_cg" ]; then
        _x=$(printf '%s\n' "$_cmd" | tr ' ' '\n' | grep '\.callgrind$' | head -n 1)
        _src=$(cat "$D"/*.cmd | sed -nE "s/.*--export=callgrind ([^ ]+\.PRF) -o $_x\$/\1/p" | head -n 1)
        _t=$(cd "$4" && total "$_src")
        [ -n "$_src" ] && [ "$_cg" = "$_t" ] || _bad="$_bad; PROGRAM TOTALS $_cg, JSON of '$_src' $_t"
    fi
    [ -n "$_w$_tot$_st$_tr$_d$_cg" ] || [ "$_nrows" -gt 0 ] || _bad="$_bad; no sample count found in the output"
    _d=""
    if [ -z "$_bad" ]; then
        _tap 0 "$1"
    else
        _tap 1 "$1"
        diag "${_bad#; }"
    fi
}

# Each document's own examples of sieve.PRF state one number of samples.
agree() {
    _doc=$1
    for _n in $(cd "$D" && ls "$_doc"-*.cmd | sed 's/\.cmd$//'); do
        _c=$(cat "$D/$_n.cmd")
        cat "$D/$_n.want" "$D/$_n.screen" 2>/dev/null |
            sed -nE 's/.* ([0-9]+) samples \([0-9]+ lost\) written to sieve\.PRF$/\1/p;
                     s/^ *Stacks: ([0-9]+) samples.*/\1/p; s/^Total +([0-9]+)$/\1/p;
                     s/^# Call tree.*: ([0-9]+) samples.*/\1/p;
                     s/^profil diff of sieve\.PRF \(([0-9]+) samples\).*/\1/p;
                     s/^ *([0-9]+) \(100\.0%\)  PROGRAM TOTALS$/\1/p;
                     s/^ pid .* samples ([0-9]+) \(.*/\1/p'
        case $_c in *.counters.total*) head -n 1 "$D/$_n.want" ;; esac
    done | sort -u
}

# install files of DESTDIR: what make install put there.
installed() { (cd "$1" && find . -type f -o -type l | sed 's/^\.//' | sort); }

for f in "$D"/*.cmd; do
    n=$(basename "$f" .cmd)
    case $n in R-*) doc=README.md; dir=$T/runR ;; *) doc=profil.1; dir=$T/runM ;; esac
    cmd=$(cat "$f")
    what="$doc: $cmd"
    env_run() {
        (cd "$dir" && env PATH="$dir/bin:$PATH" HOME="$T/home" XDG_STATE_HOME="$T/state" "$@")
    }
    case $(kind "$n") in
    install)
        # Not run as root: make install into a DESTDIR under $T.
        out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$build" install DESTDIR="$T/dest" 2>&1)
        installed "$T/dest" >"$T/installed"
        want="bin/profil share/man/man1/profil.1 include/profil/control.h pkgconfig/profilctl.pc libprofilctl.so"
        miss=""
        for w in $want; do grep -q "/$w\$" "$T/installed" || miss="$miss $w"; done
        is "$miss" "" "$what (as make install DESTDIR=...): profil, its man page, libprofilctl, control.h and profilctl.pc installed" ||
            diag "$out" "$(cat "$T/installed")"
        ;;
    uninstall)
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$build" uninstall DESTDIR="$T/dest" >/dev/null 2>&1
        is "$(installed "$T/dest")" "" "$what (as make uninstall DESTDIR=...): every installed file is gone"
        ;;
    sysctl | tee)
        # Not run: it changes the machine.  The setting exists, the value is a number.
        kv=$(printf '%s\n' "$cmd" | grep -oE '[a-z_]+(\.[a-z_]+)+=-?[0-9]+' | head -n 1)
        key=${kv%%=*}
        okay=1
        [ -n "$kv" ] && [ -e "/proc/sys/$(printf '%s' "$key" | tr . /)" ] || okay=0
        if [ "$(kind "$n")" = tee ]; then
            file=$(printf '%s\n' "$cmd" | sed -nE 's/.*sudo tee ([^ ]+).*/\1/p')
            case $file in /etc/sysctl.d/*.conf) [ -d /etc/sysctl.d ] || okay=0 ;; *) okay=0 ;; esac
        fi
        is "$okay" 1 "$what (checked, not run): '$kv' names a sysctl of this kernel${file:+, $file a sysctl.d file}"
        file=""
        ;;
    setcap)
        # Not run: it changes the installed binary.  The capability is
        # one of this kernel's, the file the one make install installs.
        cap=$(printf '%s\n' "$cmd" | sed -nE 's/^sudo setcap ([a-z_]+)=[a-z]+ .*/\1/p')
        file=$(printf '%s\n' "$cmd" | awk '{ print $NF }')
        okay=1
        grep -qw "$(printf '%s' "$cap" | tr a-z A-Z)" /usr/include/linux/capability.h || okay=0
        grep -qx "$file" "$T/installed" || okay=0
        is "$okay" 1 "$what (checked, not run): $cap is a capability, $file what make install installs"
        file=""
        ;;
    tmux)
        # The live screen: in tmux, the size of the picture, the questions
        # answered as the shown output answers them; on a UTF-8 terminal, as
        # the picture is (in the C locale profil draws ASCII: "Timev" for
        # "Time▼", "..." for "…"), whatever locale the suite runs in; its width in
        # characters, not bytes.
        width=$(LC_ALL=C.UTF-8 awk '{ if (length($0) > w) w = length($0) } END { print w }' "$D/$n.screen")
        height=$(wc -l <"$D/$n.screen")
        cp "$f" "$dir/.cmd"
        tm new-session -d -s s -x "$width" -y "$height" \
            "cd '$dir' && PATH='$dir/bin':\$PATH HOME='$T/home' XDG_STATE_HOME='$T/state' NO_COLOR=1 LC_ALL=C.UTF-8 sh .cmd; echo EXIT=\$?; sleep 600"
        sed -n 's/^.*? \(.*\)$/\1/p; s/^.*?$//p' "$D/$n.want" | head -n 3 | while IFS= read -r a; do
            wait_for '\? *$' 10
            tm send-keys -t s -l "$a"
            tm send-keys -t s Enter
            sleep 0.3
        done
        wait_for ' ended$' 60
        grep -q 'empty hid' "$D/$n.screen" && { tm send-keys -t s e; wait_for 'empty hid' 5; }
        screen >"$T/.screen"
        tm send-keys -t s q
        wait_for '^EXIT=' 20
        tm capture-pane -p -t s -S -100 >"$T/.got"
        tm kill-session -t s 2>/dev/null
        is "$(sed -n 's/^EXIT=//p' "$T/.got")" 0 "$what: runs, the questions answered on its terminal, and exits 0"
        [ -s "$D/$n.want" ] && shape "$what: the terminal shows the lines shown" "$D/$n.want" "$T/.got"
        # The screen's frame: header lines, view titles, column heads, the view bar.
        sed -n '1,2p; 5,6p; $p' "$D/$n.screen" >"$T/.frame"
        shape "$what: the screen has the picture's header, view titles, column heads and view bar" "$T/.frame" "$T/.screen"
        if has_numbers "$n"; then
            cat "$T/.got" >"$T/.both"
            sed -nE 's/^ pid .* samples ([0-9]+) \(.*/Total \1/p' "$T/.screen" >>"$T/.both"
            numbers "$what: the sample counts on the terminal and the screen are the saved session's" "$f" "$T/.both" "$dir"
        fi
        ;;
    plain)
        if printf '%s' "$cmd" | grep -q -- ' -p ' && [ -n "$(perf_refused)" ]; then
            # Attaching to a process that is not profil's child: the shown
            # output is the perf driver's (ptrace there needs Yama at 0).
            _k=1
            [ -s "$D/$n.want" ] && _k=2
            has_numbers "$n" && _k=$((_k + 1))
            skip -n "$_k" "$what" perf-refused "$(perf_refused)"
            continue
        fi
        env_run sh -c "$cmd" </dev/null >"$T/.got" 2>&1
        rc=$?
        is "$rc" 0 "$what: exits 0" || diag "$(tail -n 20 "$T/.got")"
        [ -s "$D/$n.want" ] && shape "$what: the output has the lines shown" "$D/$n.want" "$T/.got"
        has_numbers "$n" && numbers "$what: the sample counts stated are the session's (JSON report)" "$f" "$T/.got" "$dir"
        ;;
    esac
done

a=$(agree R)
is "$(printf '%s\n' "$a" | grep -c .)" 1 "README.md's examples of sieve.PRF all state one number of samples ($(printf '%s' "$a" | tr '\n' ' '))"
a=$(agree M)
is "$(printf '%s\n' "$a" | grep -c .)" 1 "profil.1's examples of sieve.PRF all state one number of samples ($(printf '%s' "$a" | tr '\n' ' '))"

# ARCHITECTURE.md: every source file and folder it names by its path is in
# the tree (a folder it names as one to come, profile/, resolve/, ingest/,
# is said to be one).
gone=""
for p in $(grep -o '`[a-z][a-z0-9_]*/[A-Za-z0-9_./-]*`' "$top/ARCHITECTURE.md" | tr -d '`' | sort -u); do
    case $p in profile/ | resolve/ | ingest/) continue ;; esac
    [ -e "$top/$p" ] || [ -e "$top/tests/$p" ] || gone="$gone $p"
done
is "$gone" "" "ARCHITECTURE.md names no file or folder that is not in the tree"

done_testing
