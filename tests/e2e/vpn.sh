#!/usr/bin/env bash
# End-to-end test of the IPsec VPN gateway (conf/vpn-gateway.click): an
# ESP tunnel (RFC 4303, tunnel mode) between the gateway, running with
# target/release/click in the router namespace of a testbed of its own
# (prefix rclick-vpn), and a Linux host whose kernel does ESP (ip xfrm
# state/policy with the same SPIs and keys), protecting the remote site
# 203.0.113.0/24; on the gateway's other side a plain LAN host.
#
#   rclick-vpn-h0 192.0.2.2 ═══ ESP ═══ 192.0.2.1 [gateway] 198.51.100.1 ─── rclick-vpn-h1 198.51.100.2
#   (site 203.0.113.1)
#
# For each cipher (AES-GCM, RFC 4106; ChaCha20-Poly1305, RFC 7634):
# pings both ways through the tunnel; a 20 MB HTTP transfer each way with
# the sha256 compared; a clear packet from outside to the LAN is dropped
# (policy); then ESP packets the far end really sent are replayed, aged,
# corrupted, truncated and given an unknown SPI, and the gateway's drop
# counters must show each by reason.
#
# The far end is the Linux kernel's ESP when it has it (CONFIG_INET_ESP and
# the cipher: CONFIG_CRYPTO_GCM, CONFIG_CRYPTO_CHACHA20POLY1305). Without
# it, the far end is scapy's ESP over OpenSSL's ciphers on a TUN device
# (tests/e2e/lib/esp_peer.py: an independent implementation of the same
# RFCs), and the test says so; it skips when neither is there (no xfrm
# AEAD, and no scapy/cryptography or /dev/net/tun). VPN_PEER=linux or
# VPN_PEER=scapy forces one (linux skips if the kernel cannot).
# VPN_CLICK_ARGS adds driver flags (e.g. `-j 2`: the sealing and opening
# paths on threads of their own, as in the SMP paper).
#
# Skips (exit 0 with a SKIP line) when not root, when ip/ping/curl/tcpdump
# are missing, or when network namespaces cannot be created.
set -uo pipefail
name=vpn
. "$(dirname "$0")/lib/testbed.sh"
e2e_init curl tcpdump python3

prefix=rclick-vpn
gw_ns=$prefix-r
h0=$prefix-h0
h1=$prefix-h1
peer_pid=""
vpn_cleanup() {
    [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null && wait "$peer_pid" 2>/dev/null
    local p
    for p in "${e2e_pids[@]}" $router_pid; do
        if kill -0 "$p" 2>/dev/null; then
            kill "$p" 2>/dev/null
            wait "$p" 2>/dev/null
        fi
    done
    "$rclick" testbed down --prefix "$prefix" >/dev/null 2>&1
    [ -n "$e2e_dir" ] && rm -rf "$e2e_dir"
}
# Our own testbed only: never the default one another test may be using.
trap vpn_cleanup EXIT

in_h0() { ip netns exec "$h0" "$@"; }
in_h1() { ip netns exec "$h1" "$@"; }

alg_of() {
    case $1 in
        aes-gcm) echo 'rfc4106(gcm(aes))' ;;
        chacha20-poly1305) echo 'rfc7539esp(chacha20,poly1305)' ;;
    esac
}
keylen() { [ "$1" = aes-gcm ] && echo 20 || echo 36; }
randkey() { echo "0x$(head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n')"; }

# Can this kernel be the far end with CIPHER? Tries a state in a scratch
# namespace.
kernel_can() {
    local ns=$prefix-probe ok=1
    ip netns add "$ns" 2>/dev/null || return 1
    ip -n "$ns" xfrm state add src 192.0.2.2 dst 192.0.2.1 proto esp spi 0x1001 mode tunnel \
        aead "$(alg_of "$1")" "$(randkey "$(keylen "$1")")" 128 >/dev/null 2>&1 || ok=""
    ip netns del "$ns" 2>/dev/null
    [ -n "$ok" ]
}
scapy_can() {
    [ -c /dev/net/tun ] && python3 -c 'import scapy.layers.ipsec, cryptography' >/dev/null 2>&1
}

ip xfrm state >/dev/null 2>&1 || echo "  note: no xfrm in this kernel ('ip xfrm state' fails)"

e2e_bigfile "$e2e_dir/h0www" 20
e2e_bigfile "$e2e_dir/h1www" 20

# fetch NS URL FILE: as e2e_fetch, with more time (a user-level far end is slow).
fetch() {
    local got="$e2e_dir/fetched" t
    rm -f "$got"
    t=$(ip netns exec "$1" curl -sS --connect-timeout 5 --max-time 120 -o "$got" -w '%{time_total}' "$2" 2>"$e2e_dir/curl.err") \
        || fail "curl $2 from $1: $(cat "$e2e_dir/curl.err")"
    local want have
    want=$(sha256sum <"$3" | cut -d' ' -f1)
    have=$(sha256sum <"$got" | cut -d' ' -f1)
    [ "$want" = "$have" ] || fail "$2: sha256 $have, expected $want ($(stat -c %s "$got") of $(stat -c %s "$3") bytes)"
    e2e_result=$t
}

# capture FILE N: capture N ESP packets h0 sends to the gateway while
# pinging through the tunnel.
capture() {
    in_h0 tcpdump -n -i eth0 -U -w "$1" -c "$2" 'ip proto 50 and dst host 192.0.2.1' >/dev/null 2>&1 &
    local tp=$!
    sleep 0.5
    in_h0 ping -n -q -c "$2" -i 0.1 -W 2 198.51.100.2 >/dev/null 2>&1
    for _ in $(seq 1 30); do kill -0 $tp 2>/dev/null || break; sleep 0.1; done
    kill $tp 2>/dev/null
    wait $tp 2>/dev/null
    [ -s "$1" ] || fail "no ESP packets captured from $h0"
}

# count HANDLER REASON: a drop_details count from the stopped router's output.
count() {
    awk -v h="$1:" -v r="$2" '
        $0 == h { on = 1; next }
        on && /^[^ \t]+:$/ { on = 0 }
        on { n = split($0, f, "\t"); if (f[2] == r) { print f[1]; exit } }' "$e2e_dir/router.log"
}

expect() { # HANDLER REASON N
    local got
    got=$(count "$1" "$2")
    [ "${got:-missing}" = "$3" ] || fail "$1 $2: $got, expected $3"
    echo "  $1 $2 = $3"
}

ran=0
for cipher in aes-gcm chacha20-poly1305; do
    peer=${VPN_PEER:-}
    if [ -z "$peer" ]; then
        if kernel_can "$cipher"; then
            peer=linux
        elif scapy_can; then
            peer=scapy
            echo "  note: this kernel cannot do ESP with $(alg_of "$cipher") (CONFIG_INET_ESP and the cipher);" \
                "the far end is scapy's ESP (OpenSSL via python cryptography) on a TUN device instead"
        else
            echo "  SKIP $cipher: the kernel has no ESP with $(alg_of "$cipher"), and there is no" \
                "user-level far end (python3 scapy and cryptography, /dev/net/tun)"
            continue
        fi
    elif [ "$peer" = linux ] && ! kernel_can "$cipher"; then
        echo "  SKIP $cipher: the kernel has no ESP with $(alg_of "$cipher")"
        continue
    fi
    echo "== $cipher, far end: $peer"
    ran=$((ran + 1))
    key_in=$(randkey "$(keylen "$cipher")")  # far end -> gateway, SPI 0x1001
    key_out=$(randkey "$(keylen "$cipher")") # gateway -> far end, SPI 0x2001

    "$rclick" testbed down --prefix "$prefix" >/dev/null 2>&1
    "$rclick" testbed up --prefix "$prefix" --hosts 2 >/dev/null || fail "rclick testbed up failed"

    if [ "$peer" = linux ]; then
        in_h0 ip addr add 203.0.113.1/32 dev lo
        in_h0 ip route add 198.51.100.0/24 via 192.0.2.1 src 203.0.113.1
        in_h0 ip xfrm state add src 192.0.2.2 dst 192.0.2.1 proto esp spi 0x1001 reqid 1 mode tunnel \
            aead "$(alg_of "$cipher")" "$key_in" 128 || fail "ip xfrm state (out)"
        in_h0 ip xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp spi 0x2001 reqid 2 mode tunnel \
            replay-window 64 aead "$(alg_of "$cipher")" "$key_out" 128 || fail "ip xfrm state (in)"
        in_h0 ip xfrm policy add src 203.0.113.0/24 dst 198.51.100.0/24 dir out \
            tmpl src 192.0.2.2 dst 192.0.2.1 proto esp reqid 1 mode tunnel || fail "ip xfrm policy (out)"
        in_h0 ip xfrm policy add src 198.51.100.0/24 dst 203.0.113.0/24 dir in \
            tmpl src 192.0.2.1 dst 192.0.2.2 proto esp reqid 2 mode tunnel || fail "ip xfrm policy (in)"
    else
        in_h0 python3 "$root/tests/e2e/lib/esp_peer.py" vpn0 192.0.2.2 192.0.2.1 "$cipher" \
            0x1001 "$key_in" 0x2001 "$key_out" >"$e2e_dir/peer.log" 2>&1 &
        peer_pid=$!
        for _ in $(seq 1 50); do grep -q ready "$e2e_dir/peer.log" && break; sleep 0.1; done
        grep -q ready "$e2e_dir/peer.log" || fail "the user-level ESP peer did not start: $(cat "$e2e_dir/peer.log")"
        in_h0 ip addr add 203.0.113.1/32 dev vpn0
        in_h0 ip link set vpn0 mtu 1400 up
        in_h0 ip route add 198.51.100.0/24 dev vpn0 src 203.0.113.1
    fi

    # shellcheck disable=SC2086
    ip netns exec "$gw_ns" "$click" ${VPN_CLICK_ARGS:-} conf/vpn-gateway.click CIPHER="$cipher" KEY_IN="$key_in" KEY_OUT="$key_out" \
        -h sa.table -h esp_in.count -h esp_out.count -h esp_in.drop_details -h esp_out.drop_details \
        -h rt.drop_details -h unprotected.count -h badinner.count >"$e2e_dir/router.log" 2>&1 &
    router_pid=$!
    # Ready when the gateway answers ARP and pings for its own addresses (in clear).
    for _ in $(seq 1 50); do
        kill -0 "$router_pid" 2>/dev/null || fail "the router exited"
        in_h0 ping -n -c 1 -W 1 192.0.2.1 >/dev/null 2>&1 && in_h1 ping -n -c 1 -W 1 198.51.100.1 >/dev/null 2>&1 && break
        sleep 0.1
    done

    # The first packets through the tunnel (pings both ways).
    capture "$e2e_dir/early.pcap" 5
    for dir in "$h0 198.51.100.2" "$h1 203.0.113.1"; do
        set -- $dir
        out=$(ip netns exec "$1" ping -n -c 3 -i 0.2 -W 2 "$2" 2>&1)
        echo "$out" | grep " 3 received" >/dev/null || { echo "$out"; fail "ping $2 from $1 through the tunnel lost packets"; }
        echo "  ping $1 -> $2: $(echo "$out" | grep -E '^rtt' | cut -d' ' -f4) ms"
    done

    # 20 MB each way over HTTP, sha256 compared.
    e2e_bg "$h1" python3 -m http.server 8080 --bind 198.51.100.2 --directory "$e2e_dir/h1www"
    e2e_listening "$h1" 8080
    fetch "$h0" http://198.51.100.2:8080/big "$e2e_dir/h1www/big"
    echo "  HTTP 20 MB LAN -> remote site: ${e2e_result}s, sha256 equal"
    e2e_bg "$h0" python3 -m http.server 8080 --bind 203.0.113.1 --directory "$e2e_dir/h0www"
    e2e_listening "$h0" 8080
    fetch "$h1" http://203.0.113.1:8080/big "$e2e_dir/h0www/big"
    echo "  HTTP 20 MB remote site -> LAN: ${e2e_result}s, sha256 equal"

    # A clear packet from the outside to the LAN: dropped by policy.
    in_h0 ping -n -c 2 -i 0.2 -W 1 -I eth0 198.51.100.2 >/dev/null 2>&1 \
        && fail "a clear ping from the outside reached the LAN"

    # Bad ESP packets made from what the far end really sent.
    capture "$e2e_dir/late.pcap" 3
    in_h0 python3 "$root/tests/e2e/lib/esp_inject.py" "$e2e_dir/early.pcap" "$e2e_dir/late.pcap" 192.0.2.1 \
        | sed 's/^/  /' || fail "esp_inject.py failed"
    sleep 0.5

    e2e_stop_router
    for p in "${e2e_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    e2e_pids=()
    if [ -n "$peer_pid" ]; then kill "$peer_pid" 2>/dev/null; wait "$peer_pid" 2>/dev/null; peer_pid=""; fi

    [ "$(e2e_handler esp_in.count)" -gt 1000 ] || fail "esp_in.count $(e2e_handler esp_in.count): the tunnel was not used"
    [ "$(e2e_handler esp_out.count)" -gt 1000 ] || fail "esp_out.count $(e2e_handler esp_out.count): the tunnel was not used"
    echo "  packets opened $(e2e_handler esp_in.count), sealed $(e2e_handler esp_out.count)"
    expect esp_in.drop_details replayed 2
    expect esp_in.drop_details too_old 1
    expect esp_in.drop_details bad_icv 1
    expect esp_in.drop_details truncated 1
    expect esp_in.drop_details bad_padding 0
    expect rt.drop_details unknown_spi 1
    expect esp_out.drop_details seq_overflow 0
    [ "$(e2e_handler unprotected.count)" -ge 2 ] || fail "unprotected.count $(e2e_handler unprotected.count), expected 2 or more"
    echo "  unprotected.count = $(e2e_handler unprotected.count) (clear packets from outside dropped)"
    "$rclick" testbed down --prefix "$prefix" >/dev/null 2>&1
done

[ "$ran" -gt 0 ] || skip "no far end for any cipher (see the lines above)"
echo "PASS $name"
