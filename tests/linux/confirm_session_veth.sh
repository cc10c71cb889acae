#!/bin/sh
# The confirm window outlives the terminal and session that started it (an
# ssh session that drops is what the window is for): apply
# --confirm-timeout run on a pseudo-terminal by a session leader, like a
# login shell; the terminal is then hung up (the leader dies of SIGHUP).
# The watcher stays alive and the journal pending-confirm; a SIGHUP sent to
# the watcher itself does not revert either; 'nettune confirm' then keeps
# the change past the deadline.  SIGTERM still reverts (confirm_veth.sh).
. "$(dirname "$0")/lib.sh"
veth_pair nqa0 nqb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-session, host: any}
target: linux
interfaces:
  - {name: nqa0, mtu: 1400, offloads: {gro: on}}
YAML
python3 - "$NETTUNE" "$NS" "$WORK/p.yaml" "$WORK/tty" <<'PY' || fail "the terminal session"
import os, pty, re, select, signal, sys, time
nettune, ns, prof, log = sys.argv[1:]
pid, fd = pty.fork()      # the child: a new session, the pty its controlling terminal
if pid == 0:
    os.execvp("sh", ["sh", "-c", '"$0" --netns "$1" apply --yes --confirm-timeout 6 "$2"; '
                     'echo "apply-rc=$?"; exec sleep 60', nettune, ns, prof])
out, end = b"", time.time() + 30
while not re.search(rb"apply-rc=\d+\r?\n", out):
    if time.time() > end:
        break
    r, _, _ = select.select([fd], [], [], 1)
    if r:
        try:
            out += os.read(fd, 4096)
        except OSError:
            break
open(log, "wb").write(out)
if b"apply-rc=0" not in out:
    sys.exit("apply on the terminal: %r" % out)
os.close(fd)              # the terminal goes away: the kernel hangs up the session
_, st = os.waitpid(pid, 0)
if not (os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGHUP):
    sys.exit("the session leader did not get the hangup: status %d" % st)
PY
grep -q "Run 'nettune confirm' before .* (6 s), or they are reverted" "$WORK/tty" || { cat "$WORK/tty"; fail "no confirm hint on the terminal"; }
watcher=$(jr pid)
sleep 0.5
alive "$watcher" || fail "the watcher died with the terminal"
expect_eq "$(jr state)" pending-confirm "journal state after the hangup"
expect_eq "$(mtu nqa0)" 1400 "mtu after the hangup"
# the watcher is in a session of its own, not the terminal's
sid=$(awk '{print $6}' "/proc/$watcher/stat")
expect_eq "$sid" "$watcher" "the watcher's session"
# a SIGHUP to the watcher itself is no revert either
kill -HUP "$watcher"
sleep 0.5
alive "$watcher" || fail "SIGHUP ended the watcher"
expect_eq "$(jr state)" pending-confirm "journal state after SIGHUP to the watcher"
expect_eq "$(mtu nqa0)" 1400 "mtu after SIGHUP to the watcher"
nt confirm > "$WORK/c"
grep -q "Confirmed: the changes of $(jr id) stay" "$WORK/c" || { cat "$WORK/c"; fail "confirm output"; }
expect_eq "$(jr state)" confirmed "state after confirm"
sleep 5
expect_eq "$(mtu nqa0)" 1400 "confirmed mtu past the deadline"
alive "$watcher" && fail "watcher still running after confirm"
nt rollback > /dev/null
echo "ok: the confirm window survives the terminal's hangup and SIGHUP; confirm keeps it"
