#!/bin/sh
# rclick pmgr against a running router: create, bind, carry traffic, refuse
# bad requests (exit 1 with a reason, nothing changed), unbind, free.
# Needs no privileges: a Unix ControlSocket in a temporary directory.
# Usage: tests/plugins/pmgr.sh [DIR-WITH-rclick]   (default target/release)
set -eu
BIN=${1:-target/release}
R="$(cd "$BIN" && pwd)/rclick"
T=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$T/r.click" <<'CONF'
g :: FlowGate(sched);
src :: RatedSource(RATE 20000, LIMIT -1) -> rr :: RoundRobinSwitch;
rr[0] -> UDPIPEncap(192.0.2.1, 1000, 198.51.100.1, 53) -> g;
rr[1] -> UDPIPEncap(192.0.2.2, 2000, 198.51.100.2, 80) -> g;
g -> c :: Counter -> Discard;
pm :: PluginManager;
ControlSocket(unix, ctl.sock);
CONF
cd "$T"
"$R" run r.click & PID=$!
i=0; while [ ! -S ctl.sock ]; do i=$((i+1)); [ $i -lt 100 ] || fail "no control socket"; sleep 0.05; done
P="$R pmgr -s ctl.sock"
I=$($P create Counter)
[ "$I" = "Counter@1" ] || fail "create printed '$I'"
$P bind sched "$I" '* 198.51.100.1 udp * 53 *' || fail "bind"
err=$($P bind sched "$I" '* 198.51.100.1 udp * 53 *' 2>&1) && fail "duplicate bind accepted"
echo "$err" | grep -q "already bound at gate 'sched'" || fail "duplicate bind: $err"
err=$($P bind nosuch "$I" '* * * * * *' 2>&1) && fail "bind to unknown gate accepted"
echo "$err" | grep -q "no gate 'nosuch' (gates: sched)" || fail "unknown gate: $err"
err=$($P bind sched "$I" '* * bogus * * *' 2>&1) && fail "bad filter accepted"
echo "$err" | grep -q "PROTO" || fail "bad filter: $err"
err=$($P free "$I" 2>&1) && fail "free of a bound instance accepted"
[ "$($P list)" = "$I Counter() at sched: * 198.51.100.1 udp * 53 *" ] || fail "list: $($P list)"
sleep 0.3
n=$($P call "$I.count")
[ "$n" -gt 0 ] || fail "no packets through the instance: $n"
$P unbind "$I" || fail "unbind"
n1=$($P call "$I.count"); sleep 0.2; n2=$($P call "$I.count")
[ "$n1" = "$n2" ] || fail "unbound instance still receives packets ($n1, $n2)"
$P free "$I" || fail "free"
[ -z "$($P list)" ] || fail "list not empty after free"
echo "pmgr: 1 passed, 0 failed"
