#!/usr/bin/env bash
# End-to-end test of FromDevice/ToDevice: the Figure 8 IP router
# (conf/iprouter-linux.click) runs with target/release/click in the router
# namespace of `rclick testbed`, and real pings cross it.
#
# Checks: ping -c 3 from each host to the other gets every reply; a TTL-1
# ping gets ICMP time exceeded from the router; the router's own address
# answers pings. All traffic stays in the testbed's namespaces; the router
# is started and stopped by PID; the testbed is torn down on every exit.
#
# Skips (exit 0 with a SKIP line) when not root, when ip/ping are missing,
# or when network namespaces cannot be created (unprivileged containers).
# Needs target/release/click and target/release/rclick (cargo build --release),
# or the directory named by RCLICK_BIN.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
bin="${RCLICK_BIN:-$root/target/release}"
click="$bin/click"
rclick="$bin/rclick"
conf="$root/conf/iprouter-linux.click"
name=iprouter-linux

skip() { echo "SKIP $name: $*"; exit 0; }
fail() { echo "FAIL $name: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces and packet sockets)"
for p in ip ping; do
    command -v "$p" >/dev/null 2>&1 || skip "'$p' is missing (apt-get install iproute2 iputils-ping)"
done
[ -x "$click" ] && [ -x "$rclick" ] || fail "build first: cargo build --release"
probe=rclick-probe-$$
if ! ip netns add "$probe" >/dev/null 2>&1; then
    skip "cannot create network namespaces here"
fi
ip netns del "$probe" >/dev/null 2>&1

log=$(mktemp)
router_pid=""
cleanup() {
    if [ -n "$router_pid" ] && kill -0 "$router_pid" 2>/dev/null; then
        kill "$router_pid" 2>/dev/null
        wait "$router_pid" 2>/dev/null
    fi
    "$rclick" testbed down >/dev/null 2>&1 || "$rclick" testbed down
    rm -f "$log"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$rclick" testbed down >/dev/null 2>&1
"$rclick" testbed up --hosts 2 >/dev/null || fail "rclick testbed up failed"

h0() { ip netns exec rclick-h0 "$@"; }
h1() { ip netns exec rclick-h1 "$@"; }

# `ip netns exec` execs the program, so $! is the router's PID.
ip netns exec rclick-r "$click" "$conf" >"$log" 2>&1 &
router_pid=$!

# Ready when the router answers ARP and pings for its own address.
ready=""
for _ in $(seq 1 50); do
    kill -0 "$router_pid" 2>/dev/null || { cat "$log"; fail "the router exited"; }
    if h0 ping -n -c 1 -W 1 192.0.2.1 >/dev/null 2>&1 \
        && h1 ping -n -c 1 -W 1 198.51.100.1 >/dev/null 2>&1; then
        ready=1
        break
    fi
    sleep 0.1
done
[ -n "$ready" ] || { cat "$log"; fail "the router never answered pings to 192.0.2.1 and 198.51.100.1"; }

check_ping() { # NS-RUNNER DST
    local out
    out=$("$1" ping -n -c 3 -i 0.2 -W 2 "$2" 2>&1)
    echo "$out" | grep -E "packets transmitted|rtt" | sed "s/^/  $1 -> $2: /"
    echo "$out" | grep -q " 3 received" || { echo "$out"; cat "$log"; fail "ping $2 from $1 lost packets"; }
}
check_ping h0 198.51.100.2
check_ping h1 192.0.2.2

out=$(h0 ping -n -c 1 -t 1 -W 2 198.51.100.2 2>&1)
echo "$out" | grep -q "From 192.0.2.1 .*Time to live exceeded" \
    || { echo "$out"; cat "$log"; fail "no ICMP time exceeded from 192.0.2.1 for a TTL-1 ping"; }
echo "  h0 -> 198.51.100.2 TTL 1: $(echo "$out" | grep -m1 'Time to live exceeded')"

kill -0 "$router_pid" 2>/dev/null || { cat "$log"; fail "the router died"; }
kill "$router_pid"
wait "$router_pid" 2>/dev/null
router_pid=""
echo "PASS $name"
