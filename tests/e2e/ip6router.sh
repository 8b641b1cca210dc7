#!/usr/bin/env bash
# End-to-end test of IPv6 routing: the dual-stack router
# (conf/ip6router-linux.click) runs with target/release/click in the router
# namespace of a testbed of its own (`rclick testbed --prefix r6t`), the
# hosts with IPv6 on (2001:db8:1::2 and 2001:db8:2::2, default routes
# through the router's 2001:db8:1::1 and 2001:db8:2::1).
#
# Checks:
# - neighbour discovery with the hosts' kernels: nobody has a static
#   neighbour entry; the hosts resolve the router (its IP6NDAdvertiser
#   answers) and the router resolves the hosts (its IP6NDSolicitor asks,
#   the kernels answer); afterwards each host's neighbour table holds the
#   router's Ethernet address, learnt, and the router's solicitors have
#   sent solicitations and used advertisements;
# - `ping -6 -n` both ways gets every reply;
# - a hop-limit-1 ping gets ICMPv6 time exceeded from the router
#   (2001:db8:1::1, the interface it came in on);
# - a 20 MB HTTP transfer over IPv6 arrives with the same sha256;
# - IPv4 still works through the same configuration (ping both ways, a
#   TTL-1 ping gets time exceeded);
# - with r6t-h1's link at MTU 1280 (IPv6's least; MTU1=1280), a 1300-byte ping gets
#   ICMPv6 packet too big (mtu=1280) from the router and the next ones,
#   fragmented by the sending host, arrive.
# Skips (exit 0 with a SKIP line) when not root, when ip/ping/curl/python3
# are missing, when network namespaces cannot be created, or when the
# kernel has no IPv6.
set -uo pipefail
name=ip6router
e2e_prefix=r6t
. "$(dirname "$0")/lib/testbed.sh"
e2e_init curl python3

e2e_up --hosts 2
e2e_ipv6_hosts 2
h0() { ip netns exec r6t-h0 "$@"; }
h1() { ip netns exec r6t-h1 "$@"; }
# No neighbour entries before the router runs.
for h in h0 h1; do
    [ -z "$($h ip -6 neigh show dev eth0 | grep -v FAILED)" ] \
        || fail "$h has IPv6 neighbour entries before the test"
done

e2e_router conf/ip6router-linux.click -h nds0.table -h nds1.table \
    -h nds0.queries -h nds1.queries -h nds0.responses -h nds1.responses \
    -h nda0.responses -h nda1.responses -h nds0.drops -h nds1.drops
e2e_ready r6t-h0=192.0.2.1 r6t-h1=198.51.100.1
# Ready for IPv6 when a ping crosses (neighbour discovery on both links).
ok=""
for _ in $(seq 1 30); do
    h0 ping -6 -n -c 1 -W 1 2001:db8:2::2 >/dev/null 2>&1 && { ok=1; break; }
    kill -0 "$router_pid" 2>/dev/null || fail "the router exited"
done
[ -n "$ok" ] || fail "no IPv6 ping from r6t-h0 to 2001:db8:2::2 crossed the router"

check_ping() { # NS-RUNNER DST [-6]
    local out
    out=$("$1" ping ${3:-} -n -c 3 -i 0.2 -W 2 "$2" 2>&1)
    echo "$out" | grep -E "packets transmitted|rtt" | sed "s/^/  $1 -> $2: /"
    echo "$out" | grep " 3 received" >/dev/null || { echo "$out"; fail "ping $2 from $1 lost packets"; }
}
check_ping h0 2001:db8:2::2 -6
check_ping h1 2001:db8:1::2 -6

# Hop limit 1: ICMPv6 time exceeded (type 3) from the router.
out=$(h0 ping -6 -n -c 1 -t 1 -W 2 2001:db8:2::2 2>&1)
echo "$out" | grep "From 2001:db8:1::1 .*Time exceeded: Hop limit" >/dev/null \
    || { echo "$out"; fail "no ICMPv6 time exceeded from 2001:db8:1::1 for a hop-limit-1 ping"; }
echo "  h0 -> 2001:db8:2::2 hop limit 1: $(echo "$out" | grep -m1 'Time exceeded')"

# The hosts learnt the router's Ethernet address by neighbour discovery.
for pair in h0=2001:db8:1::1=02:00:00:00:00:01 h1=2001:db8:2::1=02:00:00:00:01:01; do
    IFS== read -r h a mac <<<"$pair"
    n=$($h ip -6 neigh show "$a" dev eth0)
    echo "  $h neighbour: $n"
    echo "$n" | grep "lladdr $mac" >/dev/null || fail "$h did not learn $a's address $mac ($n)"
    echo "$n" | grep PERMANENT >/dev/null && fail "$h's entry for $a is static"
done

# 20 MB over HTTP, IPv6, hash compared.
e2e_bigfile "$e2e_dir/www" 20
e2e_http_server r6t-h1 2001:db8:2::2 "$e2e_dir/www"
e2e_fetch r6t-h0 "http://[2001:db8:2::2]:8080/big" "$e2e_dir/www/big"
echo "  20 MB HTTP over IPv6 h1 -> h0: ${e2e_result} s, sha256 equal"

# r6t-h1 learnt the router's address from the Source Link-Layer Address
# option of the router's solicitation (RFC 4861 section 7.2.3), so it may
# never have solicited. Forget it: the next ping makes it solicit, and the
# router's IP6NDAdvertiser on eth1 must answer.
h1 ip -6 neigh flush dev eth0
check_ping h1 2001:db8:1::2 -6
n=$(h1 ip -6 neigh show 2001:db8:2::1 dev eth0)
echo "  h1 neighbour after a flush: $n"
echo "$n" | grep "lladdr 02:00:00:00:01:01" >/dev/null || fail "h1 did not learn 2001:db8:2::1 again ($n)"

# IPv4 through the same configuration.
check_ping h0 198.51.100.2
check_ping h1 192.0.2.2
out=$(h0 ping -n -c 1 -t 1 -W 2 198.51.100.2 2>&1)
echo "$out" | grep "From 192.0.2.1 .*Time to live exceeded" >/dev/null \
    || { echo "$out"; fail "no ICMP time exceeded from 192.0.2.1 for a TTL-1 ping"; }

e2e_stop_router
# The router's side of neighbour discovery: solicitations sent and
# advertisements used on both links, both hosts in its tables, resolved.
for i in 0 1; do
    q=$(e2e_handler "nds$i.queries")
    r=$(e2e_handler "nds$i.responses")
    a=$(e2e_handler "nda$i.responses")
    echo "  router eth$i: $q solicitations sent, $r advertisements used, $a solicitations answered"
    [ "${q:-0}" -ge 1 ] && [ "${r:-0}" -ge 1 ] || fail "nds$i resolved nothing ($q queries, $r responses)"
    [ "${a:-0}" -ge 1 ] || fail "nda$i answered no solicitation"
    grep -q "^2001:db8:$((i + 1))::2 1 " "$e2e_dir/router.log" \
        || fail "nds$i's table lacks 2001:db8:$((i + 1))::2"
done
# Path MTU: r6t-h1's link at MTU 1280, the router told so (MTU1=1280). A
# 1300-byte ping gets ICMPv6 packet too big (mtu 1280) from the router
# (from 2001:db8:2::1, the address of the link that is too small),
# which does not fragment IPv6; h0's kernel then fragments at the source
# and the next ping arrives.
ip -n r6t-r link set eth1 mtu 1280 && ip -n r6t-h1 link set eth0 mtu 1280 \
    || fail "cannot set the MTU of the r6t-h1 link"
e2e_router conf/ip6router-linux.click MTU1=1280
ok=""
for _ in $(seq 1 30); do
    h0 ping -6 -n -c 1 -W 1 2001:db8:2::2 >/dev/null 2>&1 && { ok=1; break; }
    kill -0 "$router_pid" 2>/dev/null || fail "the router exited (MTU1=1280)"
done
[ -n "$ok" ] || fail "no IPv6 ping crossed the router run with MTU1=1280"
out=$(h0 ping -6 -n -c 1 -s 1300 -W 2 2001:db8:2::2 2>&1)
echo "$out" | grep "From 2001:db8:2::1 .*Packet too big: mtu=1280" >/dev/null \
    || { echo "$out"; fail "no ICMPv6 packet too big (mtu 1280) for a 1300-byte ping"; }
echo "  h0 -> 2001:db8:2::2 1300 bytes: $(echo "$out" | grep -m1 'Packet too big')"
check_ping h0 2001:db8:2::2 "-6 -s 1300"
e2e_stop_router
echo "PASS $name"
