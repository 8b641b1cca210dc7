#!/usr/bin/env bash
# End-to-end test of the four-interface Figure 8 router
# (conf/iprouter-linux-4.click) in `rclick testbed up --hosts 4`: hosts
# rclick-h0..h3 on 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/25 and
# 203.0.113.128/25.
#
# Checks: each host pings every other host (12 ordered pairs, every reply
# back) and its router address; a TTL-1 ping from h3 gets time exceeded
# from 203.0.113.129; a 5 MB HTTP download between the two /25 hosts (h2
# serves, h3 fetches) and an iperf3 TCP run from h0 to h3 move data
# (sha256 equal, bytes received).
set -uo pipefail
name=iprouter-4hosts
. "$(dirname "$0")/lib/testbed.sh"
e2e_init iperf3 curl python3 ss sha256sum

hosts=(192.0.2.2 198.51.100.2 203.0.113.2 203.0.113.130)
gws=(192.0.2.1 198.51.100.1 203.0.113.1 203.0.113.129)

e2e_up --hosts 4
e2e_router conf/iprouter-linux-4.click -h td0.count -h td1.count -h td2.count -h td3.count
e2e_ready rclick-h0=${gws[0]} rclick-h1=${gws[1]} rclick-h2=${gws[2]} rclick-h3=${gws[3]}

pairs=0
for i in 0 1 2 3; do
    for j in 0 1 2 3; do
        [ "$i" = "$j" ] && continue
        out=$(ip netns exec "rclick-h$i" ping -n -c 2 -i 0.2 -W 2 "${hosts[$j]}" 2>&1)
        echo "$out" | grep " 2 received" >/dev/null || { echo "$out"; fail "ping ${hosts[$j]} from rclick-h$i lost packets"; }
        pairs=$((pairs + 1))
    done
    out=$(ip netns exec "rclick-h$i" ping -n -c 1 -W 2 "${gws[$i]}" 2>&1)
    echo "$out" | grep " 1 received" >/dev/null || { echo "$out"; fail "rclick-h$i cannot ping its router ${gws[$i]}"; }
done
echo "  ping: all $pairs host pairs and every router address answer"

out=$(ip netns exec rclick-h3 ping -n -c 1 -t 1 -W 2 192.0.2.2 2>&1)
echo "$out" | grep "From 203.0.113.129 .*Time to live exceeded" >/dev/null \
    || { echo "$out"; fail "no ICMP time exceeded from 203.0.113.129 for a TTL-1 ping"; }
echo "  h3 -> 192.0.2.2 TTL 1: $(echo "$out" | grep -m1 'Time to live exceeded')"

e2e_bigfile "$e2e_dir/www" 5
e2e_http_server rclick-h2 203.0.113.2 "$e2e_dir/www"
e2e_fetch rclick-h3 http://203.0.113.2:8080/big "$e2e_dir/www/big"
echo "  HTTP 5 MB h2 -> h3: $e2e_result s, sha256 equal"

e2e_bg rclick-h3 iperf3 -s -B 203.0.113.130
e2e_listening rclick-h3 5201
e2e_iperf_tcp rclick-h0 203.0.113.130 2
echo "  iperf3 TCP h0 -> h3: $e2e_result Gbit/s"

e2e_stop_router
for i in 0 1 2 3; do
    v=$(e2e_handler "td$i.count")
    [ "${v:-0}" -gt 0 ] || fail "router handler td$i.count is '$v': nothing was sent to rclick-h$i"
done
echo "  router sent $(e2e_handler td0.count)/$(e2e_handler td1.count)/$(e2e_handler td2.count)/$(e2e_handler td3.count) frames to h0/h1/h2/h3"
echo "PASS $name"
