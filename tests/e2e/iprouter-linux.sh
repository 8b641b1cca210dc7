#!/usr/bin/env bash
# End-to-end test of FromDevice/ToDevice: the Figure 8 IP router
# (conf/iprouter-linux.click) runs with target/release/click in the router
# namespace of `rclick testbed`, and real pings cross it.
#
# Checks: ping -c 3 from each host to the other gets every reply; a TTL-1
# ping gets ICMP time exceeded from the router; the router's own address
# answers pings. All traffic stays in the testbed's namespaces; the router
# is started and stopped by PID; the testbed is torn down on every exit
# (tests/e2e/lib/testbed.sh).
#
# Skips (exit 0 with a SKIP line) when not root, when ip/ping are missing,
# or when network namespaces cannot be created (unprivileged containers).
# Needs target/release/click and target/release/rclick (cargo build --release),
# or the directory named by RCLICK_BIN.
set -uo pipefail
name=iprouter-linux
. "$(dirname "$0")/lib/testbed.sh"
e2e_init

e2e_up --hosts 2
e2e_router conf/iprouter-linux.click
# Ready when the router answers ARP and pings for its own addresses.
e2e_ready rclick-h0=192.0.2.1 rclick-h1=198.51.100.1

h0() { ip netns exec rclick-h0 "$@"; }
h1() { ip netns exec rclick-h1 "$@"; }

check_ping() { # NS-RUNNER DST
    local out
    out=$("$1" ping -n -c 3 -i 0.2 -W 2 "$2" 2>&1)
    echo "$out" | grep -E "packets transmitted|rtt" | sed "s/^/  $1 -> $2: /"
    echo "$out" | grep " 3 received" >/dev/null || { echo "$out"; fail "ping $2 from $1 lost packets"; }
}
check_ping h0 198.51.100.2
check_ping h1 192.0.2.2

out=$(h0 ping -n -c 1 -t 1 -W 2 198.51.100.2 2>&1)
echo "$out" | grep "From 192.0.2.1 .*Time to live exceeded" >/dev/null \
    || { echo "$out"; fail "no ICMP time exceeded from 192.0.2.1 for a TTL-1 ping"; }
echo "  h0 -> 198.51.100.2 TTL 1: $(echo "$out" | grep -m1 'Time to live exceeded')"

e2e_stop_router
echo "PASS $name"
