#!/usr/bin/env bash
# End-to-end test of fragmentation and path-MTU discovery through the
# Figure 8 IP router (conf/iprouter-linux.click): the link between the
# router's eth1 and host rclick-h1 has MTU 1000 (both ends), the router
# runs with MTU1=1000, and h0's side stays at 1500.
#
# Checks:
#   - ping -M dont -s 1400 from h0 to h1 gets every reply: the router
#     fragmented each 1428-byte request (fr1.fragments counts them) and h1
#     reassembled it;
#   - UDP datagrams of 1400, 3000 and 8000 bytes without DF from h0 to an
#     echo server in h1 come back intact (h0 fragments the big ones at
#     1500, the router fragments those fragments again at 1000);
#   - ping -M do -s 1400 gets "Frag needed and DF set (mtu = 1000)" from
#     the router's 192.0.2.1;
#   - a 5 MB HTTP download from h0 to h1 and one from h1 to h0 arrive with
#     equal sha256 (TCP across the MTU change).
set -uo pipefail
name=iprouter-mtu
. "$(dirname "$0")/lib/testbed.sh"
e2e_init curl python3 ss sha256sum

e2e_up --hosts 2
ip -n rclick-r link set eth1 mtu 1000 || fail "cannot set the MTU of rclick-r/eth1"
ip -n rclick-h1 link set eth0 mtu 1000 || fail "cannot set the MTU of rclick-h1/eth0"
e2e_router conf/iprouter-linux.click MTU1=1000 -h fr1.fragments -h fr1.drops -h fr0.fragments
e2e_ready rclick-h0=198.51.100.2 rclick-h1=192.0.2.2

h0() { ip netns exec rclick-h0 "$@"; }

out=$(h0 ping -n -c 3 -i 0.2 -W 2 -M dont -s 1400 198.51.100.2 2>&1)
echo "$out" | grep " 3 received" >/dev/null || { echo "$out"; fail "1400-byte pings without DF were lost"; }
echo "  ping -M dont -s 1400 h0 -> h1: $(echo "$out" | grep 'packets transmitted')"

# A UDP echo server in h1 and a client in h0, both with path-MTU discovery
# off (no DF), so oversized datagrams are fragmented instead of refused.
cat >"$e2e_dir/udp.py" <<'EOF'
import os, socket, sys
IP_MTU_DISCOVER, IP_PMTUDISC_DONT = 10, 0
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DONT)
if sys.argv[1] == "server":
    s.bind((sys.argv[2], 7777))
    while True:
        data, peer = s.recvfrom(65535)
        s.sendto(data, peer)
s.settimeout(1.0)
for size in map(int, sys.argv[3:]):
    msg = os.urandom(size)
    for attempt in range(3):
        s.sendto(msg, (sys.argv[2], 7777))
        try:
            if s.recvfrom(65535)[0] == msg:
                print("%d ok" % size)
                break
        except socket.timeout:
            pass
    else:
        print("%d lost" % size)
EOF
e2e_bg rclick-h1 python3 "$e2e_dir/udp.py" server 198.51.100.2
e2e_listening rclick-h1 7777 udp
out=$(h0 python3 "$e2e_dir/udp.py" client 198.51.100.2 1400 3000 8000 2>&1)
[ "$(echo "$out" | grep -c ' ok$')" -eq 3 ] || { echo "$out"; fail "UDP datagrams without DF did not come back intact"; }
echo "  UDP echo without DF, 1400/3000/8000 bytes h0 -> h1 -> h0: intact"

ip -n rclick-h0 route flush cache >/dev/null 2>&1
out=$(h0 ping -n -c 2 -i 0.2 -W 2 -M do -s 1400 198.51.100.2 2>&1)
echo "$out" | grep "From 192.0.2.1 .*Frag needed and DF set (mtu = 1000)" >/dev/null \
    || { echo "$out"; fail "no ICMP fragmentation needed (mtu = 1000) from 192.0.2.1 for a DF ping"; }
echo "  ping -M do -s 1400 h0 -> h1: $(echo "$out" | grep -m1 'Frag needed')"

e2e_bigfile "$e2e_dir/www" 5
e2e_http_server rclick-h0 192.0.2.2 "$e2e_dir/www"
e2e_fetch rclick-h1 http://192.0.2.2:8080/big "$e2e_dir/www/big"
echo "  HTTP 5 MB h0 -> h1: $e2e_result s, sha256 equal"
e2e_http_server rclick-h1 198.51.100.2 "$e2e_dir/www"
e2e_fetch rclick-h0 http://198.51.100.2:8080/big "$e2e_dir/www/big"
echo "  HTTP 5 MB h1 -> h0: $e2e_result s, sha256 equal"

e2e_stop_router
frags=$(e2e_handler fr1.fragments)
[ "${frags:-0}" -ge 6 ] || fail "fr1.fragments is '$frags': the router fragmented fewer than 6 packets' worth"
drops=$(e2e_handler fr1.drops)
[ "${drops:-0}" -ge 1 ] || fail "fr1.drops is '$drops': the DF packet was not refused"
echo "  router: fr1.fragments $frags, fr1.drops (DF, answered with ICMP) $drops"
echo "PASS $name"
