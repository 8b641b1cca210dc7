#!/usr/bin/env bash
# End-to-end test: real programs move data through the Figure 8 IP router
# (conf/iprouter-linux.click) running in the router namespace of
# `rclick testbed` between hosts rclick-h0 (192.0.2.2) and rclick-h1
# (198.51.100.2).
#
# Checks:
#   - iperf3 TCP, 3 s each way: the receiver got bytes;
#   - iperf3 UDP, 2 s at 100 Mbit/s of 1400-byte datagrams: datagrams
#     arrived (the loss is printed, not asserted);
#   - a 20 MB file of random bytes downloaded with curl over HTTP from
#     Python's http.server in h1 to h0, and over FTP (passive mode) from
#     pyftpdlib in h0 to h1: sha256 of the copy equals the original's;
#   - with transmit checksum offload turned on in both hosts (their TCP and
#     UDP checksums then reach the router unfinished, marked
#     TP_STATUS_CSUMNOTREADY, and FromDevice must complete them), a 5 MB
#     HTTP download each way still arrives with equal sha256 and UDP
#     datagrams still arrive;
#   - with the veths' default offloads (TSO/GSO on: hosts hand the router
#     frames of several segments, up to 64 KB with DF set, which FromDevice
#     must cut into segments), HTTP each way and iperf3 TCP still work, and
#     FromDevice counted the segments it cut and dropped no GSO frame;
#   - neither host's kernel counted a TCP or UDP checksum error (the
#     testbed turns receive offload off, so hosts verify every checksum);
#   - the router's ToDevices sent frames to both hosts.
# Throughput and times are printed; docs/E2E.md has measured numbers.
#
# Skips when not root, without network namespaces, or without iperf3,
# curl, python3, ethtool or pyftpdlib (scripts/test installs them).
set -uo pipefail
name=iprouter-transfers
. "$(dirname "$0")/lib/testbed.sh"
e2e_init iperf3 curl python3 ss sha256sum ethtool

e2e_up --hosts 2
e2e_router conf/iprouter-linux.click -h td0.count -h td1.count -h fr0.drops -h fr1.drops \
    -h fd0.gso_segments -h fd1.gso_segments -h fd0.gso_drops -h fd1.gso_drops
e2e_ready rclick-h0=198.51.100.2 rclick-h1=192.0.2.2

e2e_bg rclick-h1 iperf3 -s -B 198.51.100.2
e2e_listening rclick-h1 5201
e2e_iperf_tcp rclick-h0 198.51.100.2 3
echo "  iperf3 TCP h0 -> h1: $e2e_result Gbit/s"
e2e_iperf_tcp rclick-h0 198.51.100.2 3 -R
echo "  iperf3 TCP h1 -> h0: $e2e_result Gbit/s"
e2e_iperf_udp rclick-h0 198.51.100.2 2 100M 1400
echo "  iperf3 UDP h0 -> h1 100M: lost $e2e_result"
e2e_iperf_udp rclick-h0 198.51.100.2 2 100M 1400 -R
echo "  iperf3 UDP h1 -> h0 100M: lost $e2e_result"

e2e_bigfile "$e2e_dir/www" 20
e2e_http_server rclick-h1 198.51.100.2 "$e2e_dir/www"
e2e_fetch rclick-h0 http://198.51.100.2:8080/big "$e2e_dir/www/big"
echo "  HTTP 20 MB h1 -> h0: $e2e_result s, sha256 equal"

e2e_ftp_server rclick-h0 192.0.2.2 "$e2e_dir/www"
e2e_fetch rclick-h1 ftp://192.0.2.2:2121/big "$e2e_dir/www/big"
echo "  FTP 20 MB h0 -> h1 (passive): $e2e_result s, sha256 equal"

for ns in rclick-h0 rclick-h1; do
    ip netns exec "$ns" ethtool -K eth0 tx on >/dev/null 2>&1 || fail "ethtool -K eth0 tx on in $ns failed"
done
e2e_bigfile "$e2e_dir/small" 5
e2e_http_server rclick-h0 192.0.2.2 "$e2e_dir/small"
e2e_fetch rclick-h0 http://198.51.100.2:8080/big "$e2e_dir/www/big"
echo "  with tx checksum offload: HTTP 20 MB h1 -> h0: $e2e_result s, sha256 equal"
e2e_fetch rclick-h1 http://192.0.2.2:8080/big "$e2e_dir/small/big"
echo "  with tx checksum offload: HTTP 5 MB h0 -> h1: $e2e_result s, sha256 equal"
e2e_iperf_udp rclick-h0 198.51.100.2 1 50M 1400
echo "  with tx checksum offload: iperf3 UDP h0 -> h1 50M: lost $e2e_result"

# The veths' default offloads: hosts hand the router TSO/GSO frames of
# several segments (up to 64 KB, DF set); FromDevice must cut them into
# MTU-sized segments, or the router would answer "fragmentation needed"
# for ever and TCP would stall.
for ns in rclick-h0 rclick-h1; do
    ip netns exec "$ns" ethtool -K eth0 rx on tx on sg on tso on gso on >/dev/null 2>&1 \
        || fail "ethtool -K eth0 ... tso on gso on in $ns failed"
done
for dev in eth0 eth1; do
    ip netns exec rclick-r ethtool -K "$dev" rx on tx on sg on tso on gso on >/dev/null 2>&1 \
        || fail "ethtool -K $dev ... tso on gso on in rclick-r failed"
done
e2e_fetch rclick-h0 http://198.51.100.2:8080/big "$e2e_dir/www/big"
echo "  with the default offloads (TSO/GSO on): HTTP 20 MB h1 -> h0: $e2e_result s, sha256 equal"
e2e_fetch rclick-h1 http://192.0.2.2:8080/big "$e2e_dir/small/big"
echo "  with the default offloads (TSO/GSO on): HTTP 5 MB h0 -> h1: $e2e_result s, sha256 equal"
e2e_iperf_tcp rclick-h0 198.51.100.2 2
echo "  with the default offloads (TSO/GSO on): iperf3 TCP h0 -> h1: $e2e_result Gbit/s"

for ns in rclick-h0 rclick-h1; do
    n=$(e2e_csum_errors "$ns")
    [ "$n" -eq 0 ] || fail "$ns received $n TCP/UDP segments with bad checksums"
done
echo "  no TCP/UDP checksum errors in h0 or h1"

e2e_stop_router
for h in td0.count td1.count; do
    v=$(e2e_handler "$h")
    [ "${v:-0}" -gt 10000 ] || fail "router handler $h is '${v}', expected > 10000 frames sent"
done
echo "  router sent $(e2e_handler td0.count) frames to h0 and $(e2e_handler td1.count) to h1"
gso=$(( $(e2e_handler fd0.gso_segments) + $(e2e_handler fd1.gso_segments) ))
[ "$gso" -gt 0 ] || fail "FromDevice cut no GSO frame into segments (gso_segments 0): were the offloads on?"
for h in fd0.gso_drops fd1.gso_drops; do
    [ "$(e2e_handler "$h")" = 0 ] || fail "router handler $h is '$(e2e_handler "$h")', expected 0"
done
echo "  FromDevice cut GSO frames into $gso segments, dropped none"
echo "PASS $name"
