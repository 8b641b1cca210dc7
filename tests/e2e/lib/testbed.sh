# Shared code of the end-to-end tests and scripts/e2e-compare; source it
# after setting `name` (the test's name, for SKIP/FAIL/PASS lines) and,
# optionally, `e2e_prefix` (the testbed's names, `rclick testbed --prefix`;
# default rclick: namespaces rclick-r, rclick-h0..).
#
#   e2e_init PROG...            cd to the repository, check root, the
#                               programs and network namespaces; else SKIP
#   e2e_up [TESTBED ARGS]       `rclick testbed up` (torn down on exit)
#   e2e_router CONF [DEFS] [-h H]...  run click CONF in rclick-r
#   e2e_ready NS=IP...          wait until each NS pings IP
#   e2e_ipv6_hosts              turn IPv6 on in the hosts: 2001:db8:I::2/64,
#                               default via 2001:db8:I::1 (I = host + 1)
#   e2e_stop_router             stop the router; its -h output is in $e2e_dir/router.log
#   e2e_bg NS PROG ARGS...      start a program in a namespace (stopped on exit)
#   e2e_iperf_tcp / e2e_iperf_udp / e2e_fetch / e2e_ping   measure and
#                               check a transfer; the result is in $e2e_result
#
# Call the measuring functions directly, not in $(...): a failure must end
# the test, not a subshell.
# Everything started here is stopped by PID and the testbed is removed on
# exit. Traffic stays inside the testbed's namespaces.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
e2e_prefix="${e2e_prefix:-rclick}"
bin="${RCLICK_BIN:-$root/target/release}"
click="$bin/click"
rclick="$bin/rclick"
e2e_pids=()
router_pid=""
e2e_dir=""
e2e_result=""
e2e_ping_lost=0

skip() { echo "SKIP $name: $*"; exit 0; }
fail() {
    echo "FAIL $name: $*"
    if [ -n "$e2e_dir" ] && [ -s "$e2e_dir/router.log" ]; then
        echo "--- router output:"
        tail -n 30 "$e2e_dir/router.log"
    fi
    exit 1
}

# The python3 that has pyftpdlib (Debian's python3-pyftpdlib installs it
# for /usr/bin/python3, which may not be the python3 first on PATH).
e2e_python() {
    local p
    for p in /usr/bin/python3 python3; do
        if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import pyftpdlib' 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    command -v python3 || true
}

e2e_cleanup() {
    local p
    for p in "${e2e_pids[@]}" $router_pid; do
        if kill -0 "$p" 2>/dev/null; then
            kill "$p" 2>/dev/null
            wait "$p" 2>/dev/null
        fi
    done
    "$rclick" testbed down --prefix "$e2e_prefix" >/dev/null 2>&1 \
        || "$rclick" testbed down --prefix "$e2e_prefix"
    [ -n "$e2e_dir" ] && rm -rf "$e2e_dir"
}

e2e_init() {
    cd "$root" || exit 1
    [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces and packet sockets)"
    local p
    for p in ip ping "$@"; do
        command -v "$p" >/dev/null 2>&1 || skip "'$p' is missing (scripts/test installs it)"
    done
    [ -x "$click" ] && [ -x "$rclick" ] || fail "build first: cargo build --release"
    local probe=rclick-probe-$$
    ip netns add "$probe" >/dev/null 2>&1 || skip "cannot create network namespaces here"
    ip netns del "$probe" >/dev/null 2>&1
    e2e_dir=$(mktemp -d)
    trap e2e_cleanup EXIT
    trap 'exit 1' INT TERM
}

e2e_up() {
    "$rclick" testbed down --prefix "$e2e_prefix" >/dev/null 2>&1
    "$rclick" testbed up --prefix "$e2e_prefix" "$@" >/dev/null \
        || fail "rclick testbed up --prefix $e2e_prefix $* failed"
}

# e2e_router CONF [NAME=VALUE...] [-h ELEMENT.HANDLER...]: `ip netns exec`
# execs click, so $! is the router's PID.
e2e_router() {
    ip netns exec "$e2e_prefix-r" "$click" "$@" >"$e2e_dir/router.log" 2>&1 &
    router_pid=$!
}

# e2e_ipv6_hosts N: turns IPv6 on in hosts 0..N-1 (the testbed turns it off
# everywhere; the router namespace keeps it off, so its kernel never
# answers for the router's addresses): host I gets 2001:db8:(I+1)::2/64
# without duplicate address detection (accept_dad 0, so the address works
# at once) and no router advertisements, and a default route via
# 2001:db8:(I+1)::1. Skips when the kernel has no IPv6.
e2e_ipv6_hosts() {
    [ -e /proc/sys/net/ipv6 ] || skip "the kernel has no IPv6 (/proc/sys/net/ipv6 is missing)"
    local i ns
    for i in $(seq 0 $(($1 - 1))); do
        ns="$e2e_prefix-h$i"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
            net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0 \
            net.ipv6.conf.eth0.accept_dad=0 net.ipv6.conf.eth0.accept_ra=0 \
            || skip "IPv6 cannot be turned on in $ns (disabled in the kernel?)"
        ip -n "$ns" addr add "2001:db8:$((i + 1))::2/64" dev eth0 nodad \
            || fail "cannot add 2001:db8:$((i + 1))::2 in $ns"
        ip -n "$ns" -6 route add default via "2001:db8:$((i + 1))::1" dev eth0 \
            || fail "cannot add an IPv6 default route in $ns"
    done
}

# e2e_ready NS=IP...: wait up to 5 s until each namespace pings its address.
e2e_ready() {
    local pair ok
    for _ in $(seq 1 50); do
        if [ -n "$router_pid" ] && ! kill -0 "$router_pid" 2>/dev/null; then
            fail "the router exited"
        fi
        ok=1
        for pair in "$@"; do
            ip netns exec "${pair%%=*}" ping -n -c 1 -W 1 "${pair#*=}" >/dev/null 2>&1 || { ok=""; break; }
        done
        [ -n "$ok" ] && return 0
        sleep 0.1
    done
    fail "no answer to pings: $*"
}

# Stops the router with SIGTERM (click then prints its -h handlers).
e2e_stop_router() {
    [ -n "$router_pid" ] || return 0
    kill -0 "$router_pid" 2>/dev/null || fail "the router died"
    kill "$router_pid"
    wait "$router_pid" 2>/dev/null
    router_pid=""
}

# e2e_handler ELEMENT.HANDLER: its value from the stopped router's output
# (click -h prints "ELEMENT.HANDLER:" and the value on the next line when
# there are several).
e2e_handler() {
    awk -v h="$1:" '$0 == h { getline; print; exit }' "$e2e_dir/router.log"
}

# e2e_bg NS PROG ARGS...: run in the background, output to $e2e_dir/bg.N.log.
e2e_bg() {
    local ns=$1
    shift
    ip netns exec "$ns" "$@" >"$e2e_dir/bg.${#e2e_pids[@]}.log" 2>&1 &
    e2e_pids+=($!)
}

# e2e_listening NS PORT [udp]: wait up to 5 s for a listener.
e2e_listening() {
    local flag=-ltn
    [ "${3:-}" = udp ] && flag=-lun
    for _ in $(seq 1 50); do
        ip netns exec "$1" ss -H "$flag" "sport = :$2" 2>/dev/null | grep . >/dev/null && return 0
        sleep 0.1
    done
    fail "nothing listens on port $2 in $1"
}

# e2e_json FILE EXPR: a value from a JSON file (python expression on `j`).
e2e_json() {
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# e2e_iperf_tcp NS DST SECONDS [-R]: e2e_result is the Gbit/s received;
# fails unless bytes were received.
e2e_iperf_tcp() {
    local ns=$1 dst=$2 t=$3 out="$e2e_dir/iperf.json"
    shift 3
    ip netns exec "$ns" iperf3 -c "$dst" -t "$t" -J "$@" >"$out" 2>&1 \
        || fail "iperf3 TCP to $dst from $ns $*: $(head -c 400 "$out")"
    local bytes
    bytes=$(e2e_json "$out" 'j["end"]["sum_received"]["bytes"]')
    [ "${bytes:-0}" -gt 0 ] || fail "iperf3 TCP to $dst $*: no bytes received"
    e2e_result=$(e2e_json "$out" '"%.2f" % (j["end"]["sum_received"]["bits_per_second"] / 1e9)')
}

# e2e_iperf_udp NS DST SECONDS RATE LEN [-R]: e2e_result is
# "LOST/TOTAL PERCENT%";
# fails unless datagrams arrived.
e2e_iperf_udp() {
    local ns=$1 dst=$2 t=$3 rate=$4 len=$5 out="$e2e_dir/iperf.json"
    shift 5
    ip netns exec "$ns" iperf3 -c "$dst" -u -t "$t" -b "$rate" -l "$len" -J "$@" >"$out" 2>&1 \
        || fail "iperf3 UDP to $dst from $ns $*: $(head -c 400 "$out")"
    local s
    s=$(e2e_json "$out" '"%d %d %.2f" % (j["end"]["sum"]["packets"], j["end"]["sum"]["lost_packets"], j["end"]["sum"]["lost_percent"])')
    local total lost pct
    read -r total lost pct <<<"$s"
    [ "${total:-0}" -gt 0 ] && [ "$lost" -lt "$total" ] || fail "iperf3 UDP to $dst $*: nothing arrived ($s)"
    e2e_result="$lost/$total $pct%"
}

# e2e_ping NS DST COUNT INTERVAL: COUNT pings (-i INTERVAL seconds);
# e2e_result is "MIN/AVG/MAX" round trip in ms, e2e_ping_lost the number
# of pings without reply; fails if none came back.
e2e_ping() {
    local out
    out=$(ip netns exec "$1" ping -n -q -c "$3" -i "$4" -W 2 "$2" 2>&1)
    local sent recv
    read -r sent recv < <(awk '/packets transmitted/ { print $1, $4 }' <<<"$out")
    [ "${recv:-0}" -gt 0 ] || fail "ping $2 from $1: no reply ($out)"
    e2e_ping_lost=$((sent - recv))
    e2e_result=$(awk -F'[ /]' '/^rtt / { print $7 "/" $8 "/" $9 }' <<<"$out")
}

# e2e_fetch NS URL FILE: downloads URL with curl in NS and compares its
# sha256 with FILE's; e2e_result is the transfer time in seconds.
e2e_fetch() {
    local ns=$1 url=$2 file=$3 got="$e2e_dir/fetched" t
    rm -f "$got"
    t=$(ip netns exec "$ns" curl -sS --connect-timeout 5 --max-time 30 -o "$got" -w '%{time_total}' "$url" 2>"$e2e_dir/curl.err") \
        || fail "curl $url from $ns: $(cat "$e2e_dir/curl.err")"
    local want have
    want=$(sha256sum <"$file" | cut -d' ' -f1)
    have=$(sha256sum <"$got" | cut -d' ' -f1)
    [ "$want" = "$have" ] || fail "$url: sha256 $have, expected $want ($(stat -c %s "$got") of $(stat -c %s "$file") bytes)"
    e2e_result=$t
}

# e2e_bigfile DIR MB: a file of MB megabytes of random bytes, DIR/big.
e2e_bigfile() {
    mkdir -p "$1"
    head -c "$(($2 * 1024 * 1024))" /dev/urandom >"$1/big"
}

# e2e_http_server NS ADDR DIR: Python's http.server on ADDR:8080.
e2e_http_server() {
    e2e_bg "$1" python3 -m http.server 8080 --bind "$2" --directory "$3"
    e2e_listening "$1" 8080
}

# e2e_ftp_server NS ADDR DIR: pyftpdlib (anonymous, read-only) on ADDR:2121.
e2e_ftp_server() {
    local py
    py=$(e2e_python)
    "$py" -c 'import pyftpdlib' 2>/dev/null || skip "pyftpdlib is missing (apt-get install python3-pyftpdlib)"
    e2e_bg "$1" "$py" -m pyftpdlib -i "$2" -p 2121 -d "$3"
    e2e_listening "$1" 2121
}

# e2e_rx_packets NS DEV: packets the device has received.
e2e_rx_packets() {
    ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"
}

# e2e_csum_errors NS: TCP and UDP segments the namespace's kernel received
# with bad checksums (InCsumErrors in /proc/net/snmp).
e2e_csum_errors() {
    ip netns exec "$1" cat /proc/net/snmp | awk '
        $1 == "Tcp:" || $1 == "Udp:" {
            if (!($1 in hdr)) { for (i = 2; i <= NF; i++) col[$1, $i] = i; hdr[$1] = 1; next }
            n += $(col[$1, "InCsumErrors"])
        }
        END { print n + 0 }'
}

# e2e_udp_rcvbuf_errors NS: UDP datagrams the namespace's kernel dropped
# because the receiving socket's buffer was full (RcvbufErrors).
e2e_udp_rcvbuf_errors() {
    ip netns exec "$1" cat /proc/net/snmp | awk '
        $1 == "Udp:" {
            if (!hdr) { for (i = 2; i <= NF; i++) col[$i] = i; hdr = 1; next }
            print $(col["RcvbufErrors"]) + 0
        }'
}

# e2e_cpu_ticks PID: user+system clock ticks the process has used.
e2e_cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}
