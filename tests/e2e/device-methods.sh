#!/usr/bin/env bash
# End-to-end test of FromDevice/ToDevice with each capture METHOD: the
# Figure 8 IP router (conf/iprouter-linux.click, with METHOD added to its
# devices) runs in its own router namespace between two host namespaces.
#
#   host A (192.0.2.2) --veth-- router (eth0 | eth1) --veth-- host B (198.51.100.2)
#
# For each METHOD (LINUX, MMAP with TPACKET_V2 and V3 receive rings, XDP,
# and LINUX and MMAP again with two router threads, `-j 2`, where
# FromDevice reads each device through two sockets of a PACKET_FANOUT
# group, one per thread): pings both ways get every reply, and a 5 MB file fetched over TCP
# (python3 http.server in B, curl in A) arrives intact (sha256). The hosts
# keep TX checksum offload on, so the router sees partial checksums
# (TP_STATUS_CSUMNOTREADY, or with XDP a checksum field holding the
# pseudo-header sum) and must complete them. With XDP, the program is
# attached while the router runs and gone after it exits. If METHOD XDP
# cannot initialize on this kernel, that method is reported and skipped.
#
# With --bench [RUNS] it measures instead: a click in host A blasts
# 60-byte UDP frames (64 on the wire with the FCS) at the router for 5 s,
# and for each METHOD it prints the frames the router forwarded, per
# router CPU-second (utime+stime from /proc) and per wall second, the
# median of RUNS runs (default 3).
#
# Namespaces are named rclick-ring-{a,r,b}-PID, use documentation addresses
# only, have no route but through the router, and are removed on exit.
# Skips (exit 0 with a SKIP line) when not root or namespaces cannot be made.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
bin="${RCLICK_BIN:-$root/target/release}"
click="$bin/click"
name=device-methods
mode=test
runs=3
if [ "${1:-}" = "--bench" ]; then
    mode=bench
    runs="${2:-3}"
fi
methods="${METHODS:-LINUX MMAP MMAP3 XDP LINUX-J2 MMAP-J2}"

skip() { echo "SKIP $name: $*"; exit 0; }
fail() { echo "FAIL $name: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces and packet sockets)"
for p in ip ping curl python3 sha256sum; do
    command -v "$p" >/dev/null 2>&1 || skip "'$p' is missing"
done
[ -x "$click" ] || fail "build first: cargo build --release --bin click"

nsa=rclick-ring-a-$$
nsr=rclick-ring-r-$$
nsb=rclick-ring-b-$$
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do
        if kill -0 "$p" 2>/dev/null; then
            kill "$p" 2>/dev/null
            wait "$p" 2>/dev/null
        fi
    done
    ip link del "hrr$$" >/dev/null 2>&1
    for ns in "$nsa" "$nsr" "$nsb"; do
        ip netns del "$ns" >/dev/null 2>&1
        rm -rf "/etc/netns/$ns"
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkns() {
    ip netns add "$1" || return 1
    mkdir -p "/etc/netns/$1"
    echo "nameserver 127.0.0.1" >"/etc/netns/$1/resolv.conf"
    ip netns exec "$1" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    ip -n "$1" link set lo up
}
mkns "$nsa" || skip "cannot create network namespaces here"
mkns "$nsr" && mkns "$nsb" || fail "cannot create namespaces"

offloads() { # NS DEV tx|notx
    command -v ethtool >/dev/null 2>&1 || return 0
    local tx=()
    [ "$3" = notx ] && tx=(tx off)
    ip netns exec "$1" ethtool -K "$2" "${tx[@]}" tso off gso off gro off >/dev/null 2>&1
}
link() { # HOSTNS ROUTER-IF HOST-MAC ROUTER-MAC HOST-ADDR/LEN ROUTER-ADDR
    local t=rr$$
    ip link add "h$t" type veth peer name "r$t" || return 1
    ip link set "h$t" netns "$1" && ip link set "r$t" netns "$nsr" || return 1
    ip -n "$1" link set "h$t" name eth0 address "$3"
    ip -n "$nsr" link set "r$t" name "$2" address "$4"
    # Hosts keep TX checksum offload (partial checksums reach the router).
    offloads "$1" eth0 tx
    offloads "$nsr" "$2" notx
    ip -n "$1" addr add "$5" dev eth0
    ip -n "$1" link set eth0 up
    ip -n "$nsr" link set "$2" up
    ip -n "$1" route add default via "$6" dev eth0
}
link "$nsa" eth0 02:00:00:00:00:02 02:00:00:00:00:01 192.0.2.2/24 192.0.2.1 || fail "veth A"
link "$nsb" eth1 02:00:00:00:01:02 02:00:00:00:01:01 198.51.100.2/24 198.51.100.1 || fail "veth B"

A() { ip netns exec "$nsa" "$@"; }
B() { ip netns exec "$nsb" "$@"; }

# The router configuration for METHOD $1 (MMAP3: MMAP with TPACKET_V3
# receive rings; a -J2 suffix, for two threads, changes nothing here).
router_conf() {
    local m=${1%-J2}
    local fd="METHOD $m" td="METHOD $m"
    if [ "$m" = MMAP3 ]; then
        fd="METHOD MMAP, TPACKET 3, BLOCK_TIMEOUT 1"
        td="METHOD MMAP"
    fi
    # XDP with PROMISC: the packet socket holding promiscuous mode stays open.
    [ "$m" = XDP ] && fd="$fd, PROMISC true"
    sed -e "s/FromDevice(\(eth[01]\)/FromDevice(\1, $fd/" \
        -e "s/ToDevice(\(eth[01]\))/ToDevice(\1, $td)/" \
        "$root/conf/iprouter-linux.click" >"$work/router-$1.click"
    echo "$work/router-$1.click"
}
# The driver's thread count for METHOD $1.
router_threads() {
    case $1 in *-J2) echo 2 ;; *) echo 1 ;; esac
}

router_pid=""
# Starts the router with METHOD $1; returns 1 (with its log in $work/router.log)
# if it fails to initialize or never answers pings.
start_router() {
    local conf
    conf=$(router_conf "$1")
    # `ip netns exec` execs the program, so $! is the router's PID.
    ip netns exec "$nsr" "$click" -j "$(router_threads "$1")" "$conf" \
        -h fd0.count -h fd1.count -h td0.count -h td1.count \
        -h fd0.kernel_drops -h fd1.kernel_drops -h td1.ring_full -h fd0.oversize \
        -h fd0.fanout_counts -h fd1.fanout_counts \
        >"$work/router.log" 2>&1 &
    router_pid=$!
    pids+=("$router_pid")
    for _ in $(seq 1 50); do
        kill -0 "$router_pid" 2>/dev/null || return 1
        if A ping -n -c 1 -W 1 192.0.2.1 >/dev/null 2>&1 \
            && B ping -n -c 1 -W 1 198.51.100.1 >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}
stop_router() {
    [ -n "$router_pid" ] || return 0
    kill -TERM "$router_pid" 2>/dev/null
    wait "$router_pid" 2>/dev/null
    router_pid=""
}
# The value of handler $1 in the router's -h output.
hval() { awk -v h="$1:" '$0 == h { getline; print; exit }' "$work/router.log"; }
# Router CPU time in clock ticks (utime + stime).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

check_ping() { # NS DST LABEL
    local out
    out=$(ip netns exec "$1" ping -n -c 5 -i 0.2 -W 2 "$2" 2>&1)
    echo "  $3 ping $2: $(echo "$out" | grep -E 'packets transmitted') $(echo "$out" | grep -oE 'rtt.*')"
    echo "$out" | grep " 5 received" >/dev/null || { echo "$out"; cat "$work/router.log"; fail "$3: ping $2 lost packets"; }
}

if [ "$mode" = test ]; then
    head -c 5000000 /dev/urandom >"$work/file.bin"
    want=$(sha256sum <"$work/file.bin" | cut -d' ' -f1)
    # Not through B(): a backgrounded shell function is a subshell, and $!
    # would name it rather than the server (which cleanup must end).
    # `ip netns exec` execs the program, so $! is the server itself.
    ip netns exec "$nsb" python3 -m http.server 8080 --bind 198.51.100.2 --directory "$work" >/dev/null 2>&1 &
    pids+=("$!")
    tested=0
    for m in $methods; do
        if ! start_router "$m"; then
            if [ "$m" = XDP ] && grep -q "METHOD XDP" "$work/router.log"; then
                echo "  XDP: not available here: $(grep -m1 'XDP' "$work/router.log")"
                stop_router
                continue
            fi
            cat "$work/router.log"
            fail "$m: the router did not start or never answered pings"
        fi
        check_ping "$nsa" 198.51.100.2 "$m"
        check_ping "$nsb" 192.0.2.2 "$m"
        rm -f "$work/got.bin"
        ok=""
        for _ in 1 2 3 4 5; do
            if A curl -s --max-time 30 -o "$work/got.bin" "http://198.51.100.2:8080/file.bin"; then
                ok=1
                break
            fi
            sleep 0.5
        done
        got=$(sha256sum <"$work/got.bin" 2>/dev/null | cut -d' ' -f1)
        [ -n "$ok" ] && [ "$got" = "$want" ] || { cat "$work/router.log"; fail "$m: TCP transfer of 5 MB failed or corrupted"; }
        if [ "$m" = MMAP ]; then
            # Frames longer than the ring's slots (sized for MTU 1500 when
            # the router started): raised MTUs let A send 2000-byte frames;
            # the router must count and drop them, and keep running.
            ip -n "$nsr" link set eth0 mtu 3000
            A ip link set eth0 mtu 3000
            A ping -n -c 2 -i 0.2 -W 1 -s 2000 198.51.100.2 >/dev/null 2>&1
            A ip link set eth0 mtu 1500
            ip -n "$nsr" link set eth0 mtu 1500
            check_ping "$nsa" 198.51.100.2 "$m (after oversize frames)"
        fi
        kill -0 "$router_pid" 2>/dev/null || { cat "$work/router.log"; fail "$m: the router died"; }
        if [ "$m" = XDP ]; then
            ip -n "$nsr" link show eth0 | grep xdpgeneric >/dev/null || fail "XDP: no generic XDP program on eth0 while the router runs"
            ip -n "$nsr" -d link show eth0 | grep "promiscuity [1-9]" >/dev/null || fail "XDP: eth0 is not promiscuous with PROMISC true"
        fi
        stop_router
        if ip -n "$nsr" link show eth0 | grep xdp >/dev/null; then
            fail "$m: an XDP program is still attached to eth0 after the router exited"
        fi
        echo "  $m: 5 MB over TCP intact; router counters: $(grep . "$work/router.log" | paste -sd' ' -)"
        case $m in *-J2)
            for fd in fd0 fd1; do
                c=$(hval "$fd.fanout_counts")
                [ "$(wc -w <<<"$c")" = 2 ] || fail "$m: $fd read through '$c' sockets, not 2"
            done
            ;;
        esac
        if [ "$m" = MMAP ]; then
            over=$(hval fd0.oversize)
            [ "${over:-0}" -ge 2 ] || fail "MMAP: 2000-byte frames were not counted in fd0.oversize ($over)"
            grep -q "longer than the ring" "$work/router.log" || fail "MMAP: no message about the oversize frame"
        fi
        tested=$((tested + 1))
    done
    [ "$tested" -gt 0 ] || fail "no method tested"
    echo "PASS $name ($tested methods)"
    exit 0
fi

# --bench: a sender in A blasts 60-byte UDP frames to B through the router.
frame="02000000000102000000000208004500002e000040004011"
frame+="4e87c0000202c6336402"          # 192.0.2.2 -> 198.51.100.2, checksum 4e87
frame+="3039dbba001a0000"              # UDP 12345 -> 56250, length 26
frame+="000000000000000000000000000000000000"
sender_conf="$work/sender.click"
cat >"$sender_conf" <<EOF
src :: InfiniteSource(DATA \\<$frame>, LIMIT -1, BURST 64, STOP false)
  -> Queue(2048) -> td :: ToDevice(eth0, METHOD MMAP, BURST 64);
Script(wait 5s, stop);
EOF
hz=$(getconf CLK_TCK)
printf '%-8s %5s %12s %14s %14s\n' METHOD run forwarded "pps/router-cpu" "pps/wall"
declare -A cpu_rates wall_rates
for m in $methods; do
    for r in $(seq 1 "$runs"); do
        if ! start_router "$m"; then
            echo "  $m: router did not start: $(head -c 300 "$work/router.log")"
            stop_router
            continue 2
        fi
        c0=$(cpu_ticks "$router_pid")
        t0=$(date +%s.%N)
        A "$click" "$sender_conf" -h td.count >"$work/sender.log" 2>&1
        t1=$(date +%s.%N)
        sleep 0.3
        c1=$(cpu_ticks "$router_pid")
        stop_router
        fwd=$(hval td1.count)
        [[ "$fwd" =~ ^[0-9]+$ ]] || { cat "$work/router.log"; fail "$m: no td1.count"; }
        cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz }')
        pc=$(awk -v n="$fwd" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? n / c : 0) }')
        pw=$(awk -v n="$fwd" -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", n / (b - a) }')
        printf '%-8s %5s %12s %14s %14s   (sent %s, router cpu %ss, %s)\n' "$m" "$r" "$fwd" "$pc" "$pw" \
            "$(grep -E '^[0-9]+$' "$work/sender.log" | tail -n 1)" "$cpu" \
            "drops $(hval fd0.kernel_drops) ring_full $(hval td1.ring_full) oversize $(hval fd0.oversize)"
        cpu_rates[$m]+="$pc "
        wall_rates[$m]+="$pw "
    done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
echo "median of $runs runs:"
printf '%-8s %14s %14s\n' METHOD "pps/router-cpu" "pps/wall"
for m in $methods; do
    [ -n "${cpu_rates[$m]:-}" ] || continue
    printf '%-8s %14s %14s\n' "$m" "$(echo "${cpu_rates[$m]}" | median)" "$(echo "${wall_rates[$m]}" | median)"
done
