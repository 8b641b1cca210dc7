#!/usr/bin/env bash
# End-to-end test: FromDevice's SNIFFER false keeps the kernel's own stack
# away from the frames a router reads, and gives them back however the
# router ends.
#
# The router namespace's eth0 gets a kernel address (192.0.2.1) for this
# test, so the kernel answers pings from rclick-h0 by itself. Checks:
#   - with no router, and with a router whose FromDevice is a sniffer
#     (SNIFFER true), the kernel answers;
#   - with SNIFFER false, the kernel answers nothing (it never sees the
#     pings) while FromDevice still reads every frame
#     (its Counter), and its `sniffer` handler reads false;
#   - after the router stops, by SIGTERM or by SIGKILL, the kernel answers
#     again: the program that dropped its frames went with the process.
#
# Skips when not root, without network namespaces, or on a kernel without
# tcx (Linux 6.6+; FromDevice then warns and stays a sniffer).
set -uo pipefail
name=sniffer
. "$(dirname "$0")/lib/testbed.sh"
e2e_init

e2e_up --hosts 1
ip -n rclick-r addr add 192.0.2.1/24 dev eth0 || fail "cannot give rclick-r/eth0 an address"
# A fixed neighbour entry, so h0 sends its pings even when nothing answers
# its ARP requests.
mac=$(ip -n rclick-r -br link show dev eth0 | awk '{ print $3 }')
ip -n rclick-h0 neigh replace 192.0.2.1 lladdr "$mac" dev eth0 nud permanent \
    || fail "cannot add a neighbour entry in rclick-h0"

answers() { # COUNT: pings from h0 to the router namespace's kernel answered
    ip netns exec rclick-h0 ping -n -c "$1" -i 0.2 -W 1 192.0.2.1 2>/dev/null \
        | awk '/transmitted/ { print $4 }'
}

[ "$(answers 3)" = 3 ] || fail "the kernel does not answer pings without a router"

conf='fd :: FromDevice(eth0, SNIFFER @S@) -> c :: Counter -> Discard'
e2e_router -e "${conf/@S@/false}" -h c.count -h fd.sniffer
sleep 0.5
kill -0 "$router_pid" 2>/dev/null || fail "the router exited"
if grep -q 'SNIFFER false:' "$e2e_dir/router.log"; then
    skip "$(grep 'SNIFFER false:' "$e2e_dir/router.log" | head -1)"
fi
got=$(answers 5)
[ "$got" = 0 ] || fail "with SNIFFER false the kernel still answered $got of 5 pings"
e2e_stop_router
[ "$(e2e_handler fd.sniffer)" = false ] || fail "fd.sniffer is '$(e2e_handler fd.sniffer)', expected false"
n=$(e2e_handler c.count)
[ "${n:-0}" -ge 5 ] || fail "FromDevice read ${n:-0} frames, expected at least the 5 pings"
echo "  SNIFFER false: the kernel answered 0 of 5 pings; FromDevice read $n frames"
[ "$(answers 3)" = 3 ] || fail "after SIGTERM the kernel still does not answer"
echo "  after SIGTERM: the kernel answers again"

e2e_router -e "${conf/@S@/false}"
sleep 0.5
[ "$(answers 2)" = 0 ] || fail "with SNIFFER false (second router) the kernel answered"
kill -KILL "$router_pid"
wait "$router_pid" 2>/dev/null
router_pid=""
sleep 0.2
[ "$(answers 3)" = 3 ] || fail "after SIGKILL the kernel still does not answer"
echo "  after SIGKILL: the kernel answers again"

e2e_router -e "${conf/@S@/true}" -h fd.sniffer -h c.count
sleep 0.5
[ "$(answers 3)" = 3 ] || fail "with SNIFFER true the kernel does not answer"
e2e_stop_router
[ "$(e2e_handler fd.sniffer)" = true ] || fail "fd.sniffer is '$(e2e_handler fd.sniffer)', expected true"
echo "  SNIFFER true: the kernel answers as well"
echo "PASS $name"
