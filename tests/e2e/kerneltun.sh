#!/usr/bin/env bash
# End-to-end test of KernelTun and KernelTap, and of FromHost/ToHost: a
# router on a TUN (then a TAP) device answers the pings its own host sends
# into the device.
#
# Everything runs in one network namespace of its own (rclick-tun-PID),
# with no other interface than lo and the device the router creates:
#   KernelTun(192.0.2.1/24) -> ICMPPingResponder -> KernelTun
# The host (the namespace's kernel) owns 192.0.2.1; `ping 192.0.2.2` goes
# into the device, the router answers. Checks: the device's address and
# the GATEWAY default route; ping -c 3 gets 3 replies;
# the element's counters (printed by `click -h` at exit) saw the packets;
# the same with a pull input (a Queue before KernelTun);
# the device disappears when the router stops. The KernelTap variant must
# also answer ARP (ARPResponder) before the host sends its pings.
#
# Skips (exit 0 with a SKIP line) when not root, when ip/ping are missing,
# when network namespaces cannot be created, or when /dev/net/tun is
# missing. Needs target/release/click (cargo build --release), or the
# directory named by RCLICK_BIN.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
bin="${RCLICK_BIN:-$root/target/release}"
click="$bin/click"
name=kerneltun

skip() { echo "SKIP $name: $*"; exit 0; }
fail() { echo "FAIL $name: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces and TUN devices)"
for p in ip ping; do
    command -v "$p" >/dev/null 2>&1 || skip "'$p' is missing (apt-get install iproute2 iputils-ping)"
done
[ -c /dev/net/tun ] || skip "/dev/net/tun is missing (modprobe tun)"
[ -x "$click" ] || fail "build first: cargo build --release"

ns=rclick-tun-$$
if ! ip netns add "$ns" >/dev/null 2>&1; then
    skip "cannot create network namespaces here"
fi

log=$(mktemp)
out=$(mktemp)
router_pid=""
stop_router() {
    if [ -n "$router_pid" ] && kill -0 "$router_pid" 2>/dev/null; then
        kill -INT "$router_pid" 2>/dev/null
        for _ in $(seq 1 50); do
            kill -0 "$router_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$router_pid" 2>/dev/null && kill -KILL "$router_pid" 2>/dev/null
        wait "$router_pid" 2>/dev/null
    fi
    router_pid=""
}
cleanup() {
    stop_router
    ip netns del "$ns" >/dev/null 2>&1
    rm -rf "/etc/netns/$ns"
    rm -f "$log" "$out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkdir -p "/etc/netns/$ns"
echo "nameserver 127.0.0.1" >"/etc/netns/$ns/resolv.conf"
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
# No IPv6 chatter (router solicitations, MLD) on the devices.
in_ns sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6; echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 

# run_router NAME DEVICE CONFIG HANDLERS...: starts click in the namespace.
run_router() {
    local dev=$2 conf=$3
    shift 3
    local hs=()
    for h in "$@"; do hs+=(-h "$h"); done
    # `ip netns exec` execs the program, so $! is the router's PID.
    ip netns exec "$ns" "$click" -e "$conf" "${hs[@]}" >"$out" 2>"$log" &
    router_pid=$!
    for _ in $(seq 1 50); do
        kill -0 "$router_pid" 2>/dev/null || { cat "$log"; fail "$1: the router exited"; }
        if in_ns ip -o link show "$dev" 2>/dev/null | grep "[<,]UP[,>]" >/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    cat "$log"
    fail "$1: device $dev never came up"
}

check_ping() { # LABEL DST
    local res
    res=$(in_ns ping -n -c 3 -i 0.2 -W 2 "$2" 2>&1)
    echo "$res" | grep -E "packets transmitted|rtt" | sed "s/^/  $1 ping $2: /"
    echo "$res" | grep " 3 received" >/dev/null || { echo "$res"; cat "$log"; fail "$1: ping $2 lost packets"; }
}

# handler_value NAME: the value `click -h NAME` printed at exit.
handler_value() {
    awk -v h="$1:" '$0 == h { getline; print; exit }' "$out"
}

# --- KernelTun --------------------------------------------------------------
run_router KernelTun rtun0 \
    'tun :: KernelTun(192.0.2.1/24, 192.0.2.254, DEVNAME rtun0, BURST 8);
     tun -> IPClassifier(icmp type echo) -> ICMPPingResponder -> tun;' \
    tun.packets tun.written tun.drops tun.dev_name
addr=$(in_ns ip -o -4 addr show dev rtun0 | awk '{print $4}')
[ "$addr" = "192.0.2.1/24" ] || fail "KernelTun: rtun0 has address '$addr', not 192.0.2.1/24"
route=$(in_ns ip -4 route show default)
echo "$route" | grep "default via 192.0.2.254 dev rtun0" >/dev/null || fail "KernelTun: GATEWAY gave no default route: '$route'"
check_ping KernelTun 192.0.2.2
check_ping KernelTun 192.0.2.77
stop_router
[ "$(handler_value tun.dev_name)" = "rtun0" ] || { cat "$out"; fail "KernelTun: dev_name handler"; }
n=$(handler_value tun.packets)
w=$(handler_value tun.written)
[ "${n:-0}" -ge 6 ] && [ "${w:-0}" -ge 6 ] || { cat "$out" "$log"; fail "KernelTun: packets=$n written=$w, expected at least 6 each"; }
echo "  KernelTun: packets=$n written=$w drops=$(handler_value tun.drops)"
in_ns ip link show rtun0 >/dev/null 2>&1 && fail "KernelTun: rtun0 still exists after the router stopped"

# --- KernelTun with a pull input (a Queue in front) ---------------------------
run_router "KernelTun pull" rtun1 \
    'tun :: KernelTun(192.0.2.1/24, DEVNAME rtun1);
     tun -> IPClassifier(icmp type echo) -> ICMPPingResponder -> Queue(64) -> tun;' \
    tun.written tun.packets
check_ping "KernelTun pull" 192.0.2.9
stop_router
w=$(handler_value tun.written)
[ "${w:-0}" -ge 3 ] || { cat "$out" "$log"; fail "KernelTun pull: written=$w, expected at least 3"; }

# --- KernelTap --------------------------------------------------------------
run_router KernelTap rtap0 \
    'tap :: KernelTap(192.0.2.1/24, DEVNAME rtap0, ETHER 02:00:00:00:00:01);
     tap -> c :: Classifier(12/0806 20/0001, 12/0800, -);
     c[0] -> arp :: ARPResponder(192.0.2.2/31 02:00:00:00:00:02) -> tap;
     c[1] -> Strip(14) -> CheckIPHeader -> IPClassifier(icmp type echo)
          -> ICMPPingResponder
          -> EtherEncap(0x0800, 02:00:00:00:00:02, 02:00:00:00:00:01) -> tap;
     c[2] -> Discard;' \
    tap.packets tap.written tap.drops
mac=$(in_ns ip -o link show rtap0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
[ "$mac" = "02:00:00:00:00:01" ] || fail "KernelTap: rtap0 has Ethernet address '$mac', not 02:00:00:00:00:01"
check_ping KernelTap 192.0.2.2
check_ping KernelTap 192.0.2.3
neigh=$(in_ns ip neigh show 192.0.2.2 dev rtap0)
echo "$neigh" | grep "02:00:00:00:00:02" >/dev/null || fail "KernelTap: no ARP entry from the router: '$neigh'"
stop_router
n=$(handler_value tap.packets)
w=$(handler_value tap.written)
[ "${n:-0}" -ge 8 ] && [ "${w:-0}" -ge 8 ] || { cat "$out" "$log"; fail "KernelTap: packets=$n written=$w, expected at least 8 each"; }
echo "  KernelTap: packets=$n written=$w drops=$(handler_value tap.drops)"

# --- FromHost and ToHost ----------------------------------------------------
# Click's user-level pair on one TAP device: the router answers ARP and
# pings for 192.0.2.2 through ToHost, which writes to FromHost's device.
run_router FromHost rfh0 \
    'fh :: FromHost(rfh0, 192.0.2.1/24, GATEWAY 192.0.2.254);
     fh -> c :: Classifier(12/0806 20/0001, 12/0800, -);
     th :: ToHost(rfh0);
     c[0] -> ARPResponder(192.0.2.2 02:00:00:00:00:02) -> th;
     c[1] -> Strip(14) -> CheckIPHeader -> IPClassifier(icmp type echo)
          -> ICMPPingResponder -> Unstrip(14) -> EtherMirror -> th;
     c[2] -> Discard;' \
    fh.packets fh.dev_name th.written th.drops
addr=$(in_ns ip -o -4 addr show dev rfh0 | awk '{print $4}')
[ "$addr" = "192.0.2.1/24" ] || fail "FromHost: rfh0 has address '$addr', not 192.0.2.1/24"
route=$(in_ns ip -4 route show default)
echo "$route" | grep "default via 192.0.2.254 dev rfh0" >/dev/null || fail "FromHost: GATEWAY gave no default route: '$route'"
check_ping FromHost 192.0.2.2
stop_router
[ "$(handler_value fh.dev_name)" = "rfh0" ] || { cat "$out"; fail "FromHost: dev_name handler"; }
n=$(handler_value fh.packets)
w=$(handler_value th.written)
[ "${n:-0}" -ge 4 ] && [ "${w:-0}" -ge 4 ] || { cat "$out" "$log"; fail "FromHost: packets=$n ToHost written=$w, expected at least 4 each"; }
echo "  FromHost/ToHost: packets=$n written=$w drops=$(handler_value th.drops)"
in_ns ip link show rfh0 >/dev/null 2>&1 && fail "FromHost: rfh0 still exists after the router stopped"

# --- KernelFilter -----------------------------------------------------------
# Its iptables rule (in this namespace only) exists while the router runs
# and is gone once it stopped.
ipt=""
for c in /usr/sbin/iptables /sbin/iptables; do [ -x "$c" ] && ipt=$c && break; done
if [ -z "$ipt" ]; then
    echo "  SKIP KernelFilter: iptables is missing (apt-get install iptables)"
elif ! in_ns "$ipt" -S INPUT >/dev/null 2>&1; then
    echo "  SKIP KernelFilter: iptables does not work here"
else
    run_router KernelFilter rfk0 \
        'FromHost(rfk0, 192.0.2.1/24) -> Discard; k :: KernelFilter(drop dev rfk0);' \
        k.devices k.class
    in_ns "$ipt" -S INPUT | grep -- "-A INPUT -i rfk0 -j DROP" >/dev/null \
        || { in_ns "$ipt" -S INPUT; cat "$log"; fail "KernelFilter: no rule while the router runs"; }
    stop_router
    [ "$(handler_value k.devices)" = "rfk0" ] || { cat "$out"; fail "KernelFilter: devices handler"; }
    if in_ns "$ipt" -S INPUT | grep -- "-i rfk0" >/dev/null; then
        in_ns "$ipt" -S INPUT
        fail "KernelFilter: the rule is still there after the router stopped"
    fi
    echo "  KernelFilter: rule added while running, removed at stop"
fi

# --- errors -----------------------------------------------------------------
if in_ns "$click" -e 'KernelTun(192.0.2.1/24, 192.0.3.1) -> Discard' >"$out" 2>&1; then
    fail "a GATEWAY outside ADDR/MASK was accepted"
fi
grep -q "bad GATEWAY" "$out" || { cat "$out"; fail "no 'bad GATEWAY' message"; }
echo "PASS $name"
