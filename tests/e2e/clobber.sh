#!/bin/sh
# clobber.sh - no run is lost, no file is clobbered, nothing hangs: an output
# that is the input or the program is refused before anything runs; a save
# that fails at the end still prints the report and saves elsewhere; a
# shared sticky PROFDIR cannot pre-empt the name; the umask is honoured; a
# FIFO is never opened blocking; a bare name runs what the shell would run.
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
plan 127

mkdir "$T/w" "$T/bin"
cd "$T/w" || exit 1
SIEVE=$PROGS/sieve
# No fallback save of a test may land in the real home.
XDG_STATE_HOME=$T/state
HOME=$T/home
export XDG_STATE_HOME HOME

# prof ARG...: profile on this terminal, stdin at end of file.
prof() { run "$PROFIL" --no-tui -b 1 -t 1000 "$@" </dev/null; }
# sum FILE: FILE's checksum, to see that it was not touched.
sum() { cksum <"$1"; }
# one_line DESC ERE: $err is one line "profil: ..." matching ERE.
one_line() {
    is "$(lines "$err")" 1 "$1: one line on stderr"
    like "$err" "^profil: .*$2" "$1: says '$2'"
}
# no_hang DESC CMD...: CMD gives up on its own (not killed by timeout), with
# status 1 (not any failure: a crash is one).
no_hang() {
    _d=$1
    shift
    run timeout 5 "$@" </dev/null
    isnt "$rc" 124 "$_d: does not hang"
    is "$rc" 1 "$_d: fails with status 1"
}
# fails N DESC WHY: N checks that could not be made, as failures.
fails() {
    _fn=$1
    shift
    for _fi in $(seq 1 "$_fn"); do fail "$1 ($_fi of $_fn)" "$2"; done
}

prof -o s.PRF "$SIEVE" 20
is "$rc" 0 "a session to work on"
S_SUM=$(sum s.PRF)

# ---------------------------------------------------------------------------
# The output is the input: refused, exit 2, nothing written.
run "$PROFIL" --export classic s.PRF -o s.PRF </dev/null
is "$rc" 2 "export onto its input: exit 2"
one_line "export onto its input" "s.PRF: the output is the input file"
is "$(sum s.PRF)" "$S_SUM" "export onto its input: the session is untouched"
is "$(ls -a | grep -c '^s\.PRF\.\|^\.s\.PRF')" 0 "export onto its input: no .old, .new or temporary file"
ln -s s.PRF link.PRF
run "$PROFIL" --export classic s.PRF -o link.PRF </dev/null
is "$rc" 2 "export onto a symbolic link to its input: exit 2"
one_line "export onto a symbolic link to its input" "link.PRF: the output is the input file"
ok "export onto a symbolic link to its input: the link stays" test -L link.PRF
ln s.PRF hard.PRF
run "$PROFIL" --export=speedscope hard.PRF -o "$T/w/s.PRF" </dev/null
is "$rc" 2 "export from a hard link onto its input: exit 2"
is "$(sum s.PRF)" "$S_SUM" "export onto its input by another name: the session is untouched"
run "$PROFIL" --export classic s -o s.PRF </dev/null
is "$rc" 2 "export of NAME (found as NAME.PRF) onto NAME.PRF: exit 2"
run "$PROFIL" --list sieve.c s.PRF -o s.PRF </dev/null
is "$rc" 2 "a listing onto its session: exit 2"
one_line "a listing onto its session" "s.PRF: the output is the input file"
is "$(sum s.PRF)" "$S_SUM" "a listing onto its session: the session is untouched"
printf 'int main(void) { return 0; }\n' >here.c
run "$PROFIL" --list here.c s.PRF -o here.c </dev/null
is "$rc $(cat here.c)" "2 int main(void) { return 0; }" "a listing onto its source file: exit 2, the source untouched"

# The output is the program: refused before it runs.
cp "$SIEVE" sieve.PRF
prof ./sieve.PRF 20
is "$rc" 2 "a program named sieve.PRF (its default output): exit 2"
one_line "a program named sieve.PRF" "sieve.PRF: the output is the program"
ok "a program named sieve.PRF: it is untouched" cmp -s sieve.PRF "$SIEVE"
hasnt "$out" "sieve: 20 rounds" "a program named sieve.PRF: it was not run"
cp "$SIEVE" sieve
prof -o sieve ./sieve 20
is "$rc" 2 "-o sieve ./sieve: exit 2"
one_line "-o sieve ./sieve" "sieve: the output is the program"
ok "-o sieve ./sieve: the program is untouched" cmp -s sieve "$SIEVE"
hasnt "$out" "sieve: 20 rounds" "-o sieve ./sieve: it was not run"
prof -o "$T/w/sieve" "$T/w/../w/sieve" 20
is "$rc" 2 "-o the program by another path: exit 2"
printf '#!/bin/sh\nexit 0\n' >script.sh
chmod +x script.sh
cp script.sh script.copy
prof -o script.sh ./script.sh
is "$rc" 2 "-o a script that is the program: exit 2"
ok "-o a script that is the program: it is untouched" cmp -s script.sh script.copy

# An empty name is refused at once.
prof -o '' "$SIEVE" 20
is "$rc" 2 "-o '': exit 2"
one_line "-o ''" "-o: the output file name is empty"
hasnt "$out" "sieve: 20 rounds" "-o '': the program was not run"
prof --output= "$SIEVE" 20
is "$rc" 2 "--output=: exit 2"
run "$PROFIL" --export classic s.PRF -o '' </dev/null
is "$rc" 2 "--export -o '': exit 2"

# ---------------------------------------------------------------------------
# The save fails at the end: the report is printed, the session goes to a
# fallback, and one line says where; exit 1.  The program plants a
# directory where the session should go.
printf '#!/bin/sh\nmkdir "$1"\n' >"$T/bin/planter"
chmod 755 "$T/bin/planter"
prof -o p.PRF "$T/bin/planter" p.PRF
is "$rc" 1 "save fails: exit 1"
like "$err" '^profil: p\.PRF: cannot write the profile: Is a directory$' "save fails: says why"
like "$out" '^Counter +Samples' "save fails: the report is printed all the same"
like "$err" "^profil: [0-9]+ samples .*written to $T/state/profil/p\\.PRF instead of p\\.PRF\$" \
    "save fails: saved in \$XDG_STATE_HOME/profil, and says so"
run "$PROFIL" --report "$T/state/profil/p.PRF" </dev/null
is "$rc" 0 "save fails: the fallback file is a good session"
rmdir p.PRF
prof -o p.PRF "$T/bin/planter" p.PRF
like "$err" "written to $T/state/profil/p\\.[A-Za-z0-9]{6}\\.PRF instead of p\\.PRF\$" \
    "save fails again: the earlier fallback is not replaced"
rmdir p.PRF
run env XDG_STATE_HOME= "$PROFIL" --no-tui -b 1 -t 1000 -o p.PRF "$T/bin/planter" p.PRF </dev/null
like "$err" "written to $T/home/\\.local/state/profil/p\\.PRF instead" \
    "save fails, no XDG_STATE_HOME: saved in ~/.local/state/profil"
rmdir p.PRF
: >"$T/afile"
XDG_STATE_HOME=$T/afile HOME=$T/afile TMPDIR=$T/tmpd
mkdir "$T/tmpd"
export TMPDIR
prof -o p.PRF "$T/bin/planter" p.PRF
like "$err" "written to $T/tmpd/p\\.PRF instead" "save fails, no state directory: saved in \$TMPDIR"
XDG_STATE_HOME=$T/state HOME=$T/home
unset TMPDIR
rmdir p.PRF

# A full disk: a small tmpfs, filled up (root only).
MNT=$T/full
if [ "$(id -u)" -ne 0 ]; then
    skip -n 5 "disk full: the session goes to the fallback" needs-root "needs root to mount a small tmpfs"
elif ! mkdir "$MNT" || ! mount -t tmpfs -o size=64k tmpfs "$MNT" 2>"$T/mount.err"; then
    fails 5 "disk full: the session goes to the fallback" "root could not mount a tmpfs: $(head -n 1 "$T/mount.err")"
else
    trap 'umount "$MNT" 2>/dev/null; cd /; rm -rf "$T"' EXIT
    dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null
    prof -o "$MNT/d.PRF" "$SIEVE" 20
    is "$rc" 1 "disk full: exit 1"
    like "$err" "d\\.PRF: cannot write the profile: No space left on device" "disk full: says why"
    like "$out" '^Counter +Samples' "disk full: the report is printed"
    like "$err" "written to $T/state/profil/d\\.PRF instead of $MNT/d\\.PRF\$" "disk full: saved in the fallback"
    is "$(find "$MNT" -name '*.PRF*' | wc -l | tr -d ' ')" 0 "disk full: no temporary file left"
    umount "$MNT"
fi

# On the live screen: the fallback, said once the screen has closed.
use_tmux
trap 'tm kill-server 2>/dev/null; umount "$MNT" 2>/dev/null; cd /; rm -rf "$T"' EXIT
tm -f /dev/null new-session -d -s s -x 120 -y 40 "env PS1='$ ' sh"
tm send-keys -t s "cd '$T/w'; XDG_STATE_HOME='$T/live' $PROFIL -b 1 -t 1000 -o q.PRF $T/bin/planter q.PRF; echo EXIT=\$?" Enter
ok "live: the program ends on the screen" wait_for 'Program terminated normally *$' 30
tm send-keys -t s q
ok "live: profil exits 1" wait_for '^EXIT=1' 10
like "$(screen)" "written to $T/live/profil/q\\.PRF instead of q\\.PRF" "live: saved in the fallback, and says so"
ok "live: the fallback file is there" test -f "$T/live/profil/q.PRF"
rmdir q.PRF

# ... or, asked there, under another name: S.
tm send-keys -t s "clear; XDG_STATE_HOME='$T/live2' $PROFIL -b 1 -t 1000 -o r.PRF $T/bin/planter r.PRF; echo EXIT=\$?" Enter
ok "live: a failed save offers another name" \
    wait_for 'Is a directory; S: save under another name' 30 || diag "$(screen)"
tm send-keys -t s S
ok "live: S asks for it" wait_for '^Save as: *$' 5 || diag "$(screen)"
tm send-keys -t s -l "$T/bin/planter"
tm send-keys -t s Enter
ok "live: the program's own file is refused" \
    wait_for 'planter: that is the program: not saved over it' 5 || diag "$(screen)"
tm send-keys -t s S
tm send-keys -t s -l "$T/w/other.PRF"
tm send-keys -t s Enter
ok "live: saved under the name given" wait_for "saved as $T/w/other\\.PRF \\([0-9]+ samples\\)" 5 ||
    diag "$(screen)"
tm send-keys -t s q
ok "live: then q leaves, with the program's status" wait_for '^EXIT=0' 10 || diag "$(screen)"
run "$PROFIL" --report other.PRF </dev/null
is "$rc" 0 "live: the file saved under the other name is a good session"
ok "live: no fallback was needed" test ! -e "$T/live2/profil/r.PRF"
tm kill-server 2>/dev/null
rmdir r.PRF

# ---------------------------------------------------------------------------
# The file's mode: the umask, and an existing file's mode kept.
(umask 077 && "$PROFIL" --no-tui -b 1 -t 1000 -o m.PRF "$SIEVE" 5 </dev/null >/dev/null 2>&1)
is "$(stat -c %a m.PRF)" 600 "umask 077: the session is 0600"
(umask 022 && "$PROFIL" --no-tui -b 1 -t 1000 -o m.PRF "$SIEVE" 5 </dev/null >/dev/null 2>&1)
is "$(stat -c %a m.PRF)" 600 "umask 022 over a 0600 file: it stays 0600"
rm -f m.PRF m.PRF.old
(umask 022 && "$PROFIL" --no-tui -b 1 -t 1000 -o m.PRF "$SIEVE" 5 </dev/null >/dev/null 2>&1)
is "$(stat -c %a m.PRF)" 644 "umask 022: the session is 0644"
(umask 027 && "$PROFIL" --export classic s.PRF -o c.PRF </dev/null >/dev/null 2>&1)
is "$(stat -c %a c.PRF)" 640 "umask 027: an export is 0640"
(umask 077 && "$PROFIL" --list sieve.c s.PRF -o l.list </dev/null >/dev/null 2>&1)
(umask 022 && "$PROFIL" --list sieve.c s.PRF -o l.list </dev/null >/dev/null 2>&1)
is "$(stat -c %a l.list 2>&1)" 600 "umask 022 over a 0600 listing: it stays 0600"
is "$(ls -a | grep -c '^l\.list.')" 0 "a listing leaves no temporary file"

# ---------------------------------------------------------------------------
# A shared sticky PROFDIR: another user plants the name; the run is saved
# under another one and the planted file is left alone.
if [ "$(id -u)" -ne 0 ]; then
    skip -n 5 "sticky PROFDIR: a planted name does not lose the run" needs-root "needs root to add a second user"
elif ! command -v useradd >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1 ||
    ! command -v pgrep >/dev/null 2>&1; then
    fails 5 "sticky PROFDIR: a planted name does not lose the run" "needs useradd, setpriv and pgrep"
elif ! useradd -M -N -s /bin/sh "pt$$" 2>"$T/useradd.err"; then
    fails 5 "sticky PROFDIR: a planted name does not lose the run" "useradd failed: $(head -n 1 "$T/useradd.err")"
else
    trap 'userdel "pt$$" 2>/dev/null; tm kill-server 2>/dev/null; umount "$MNT" 2>/dev/null
cd /; rm -rf "$T"' EXIT
    chmod 711 "$T"
    mkdir -m 1777 "$T/shared"
    chmod 1777 "$T/shared"
    printf '#!/bin/sh\nwhile [ ! -e "$1" ]; do sleep 0.05; done\n' >"$T/bin/waiter"
    chmod 755 "$T/bin" "$T/bin/waiter"
    env HOME="$T/shared" XDG_STATE_HOME="$T/shared/state" PROFDIR="$T/shared" \
        setpriv --reuid="pt$$" --regid="$(id -g "pt$$")" --clear-groups \
        "$PROFIL" --no-tui -b 1 -t 1000 "$T/bin/waiter" "$T/shared/go" </dev/null \
        >"$T/v.out" 2>"$T/v.err" &
    vpid=$!
    child=
    n=100
    while [ -z "$child" ] && [ "$n" -gt 0 ]; do
        child=$(pgrep -P "$vpid" -f "^/bin/sh $T/bin/waiter" | head -n 1)
        [ -n "$child" ] || sleep 0.1
        n=$((n - 1))
    done
    : >"$T/shared/$child.waiter.PRF" # root's, in the victim's way
    : >"$T/shared/$child.waiter.PRF.new"
    : >"$T/shared/go"
    wait "$vpid"
    rc=$?
    is "$rc" 0 "sticky PROFDIR, planted name: exits as the program did"
    is "$(stat -c '%U %s' "$T/shared/$child.waiter.PRF")" "root 0" "sticky PROFDIR: the planted file is left alone"
    saved=$(find "$T/shared" -maxdepth 1 -name "$child.waiter.?*.PRF" ! -name '*.new' | head -n 1)
    is "$(stat -c %U "$saved" 2>/dev/null)" "pt$$" "sticky PROFDIR: the run is saved under another name"
    like "$(cat "$T/v.err")" "written to $saved \\($T/shared/$child\\.waiter\\.PRF was taken\\)" \
        "sticky PROFDIR: and says where"
    run "$PROFIL" --report "$saved" </dev/null
    is "$rc" 0 "sticky PROFDIR: it is a good session"
fi

# ---------------------------------------------------------------------------
# Not a regular file: never opened blocking, said in one line.
mkfifo f f.PRF
mkdir adir
no_hang "a FIFO as the program" "$PROFIL" --no-tui -b 1 -t 1000 ./f
one_line "a FIFO as the program" "f: not a regular file"
no_hang "a FIFO named by a bare name" "$PROFIL" --no-tui -b 1 -t 1000 f
no_hang "a device as the program" "$PROFIL" --no-tui -b 1 -t 1000 /dev/null
one_line "a device as the program" "/dev/null: not a regular file"
no_hang "a directory as the program" "$PROFIL" --no-tui -b 1 -t 1000 ./adir
one_line "a directory as the program" "adir: not a regular file"
no_hang "--report FIFO" "$PROFIL" --report f
one_line "--report FIFO" "f: not a regular file"
no_hang "--report NAME finding a FIFO NAME.PRF" "$PROFIL" --report "$T/w/f"
one_line "--report NAME finding a FIFO NAME.PRF" "f(\\.PRF)?: not a regular file"
no_hang "--hist FIFO" "$PROFIL" --hist f
no_hang "--replay FIFO" "$PROFIL" --replay f
one_line "--replay FIFO" "f: not a regular file"
no_hang "replay of a FIFO" "$PROFIL" f.PRF
no_hang "--export FIFO" "$PROFIL" --export classic f -o x.PRF
one_line "--export FIFO" "f: not a regular file"
no_hang "--list from a FIFO" "$PROFIL" --list sieve.c f
one_line "--list from a FIFO" "f: not a regular file"
no_hang "--diff FIFO s.PRF" "$PROFIL" --diff f s.PRF
no_hang "--diff s.PRF FIFO" "$PROFIL" --diff s.PRF f
one_line "--diff s.PRF FIFO" "f: not a regular file"
no_hang "--report directory" "$PROFIL" --report adir
one_line "--report directory" "adir: not a regular file"

# ---------------------------------------------------------------------------
# A bare name is looked for along PATH only, as the shell does.
cp "$SIEVE" "mysieve$$"
prof "mysieve$$" 20
is "$rc" 1 "a bare name here, not in PATH: exit 1"
is "$err" "profil: mysieve$$: not found in PATH; did you mean ./mysieve$$?" \
    "a bare name here, not in PATH: says what to type"
hasnt "$out" "sieve: 20 rounds" "a bare name here, not in PATH: it is not run"
prof "./mysieve$$" 20
is "$rc" 0 "./NAME runs it"
cp "$SIEVE" "$T/bin/mysieve$$"
run env PATH="$T/bin:$PATH" "$PROFIL" --no-tui -b 1 -t 1000 -o b.PRF "mysieve$$" 20 </dev/null
is "$rc" 0 "a bare name in PATH runs"
ok "a bare name in PATH: its session is saved" test -f b.PRF
rm "$T/bin/mysieve$$"
run env PATH=":$PATH" "$PROFIL" --no-tui -b 1 -t 1000 -o e.PRF "mysieve$$" 20 </dev/null
is "$rc" 0 "an empty PATH entry is the current directory, as for the shell"

done_testing
