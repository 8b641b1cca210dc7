#!/bin/sh
# Element packages: builds the example package (examples/packages/payload-xor)
# outside the workspace, runs a configuration that requires it over packets
# (found through RCLICK_PACKAGE_PATH and through CLICKPATH's lib/), checks
# the unknown-package error, then loads, creates, binds, unbinds, frees and
# unloads it through `rclick pmgr` on a running router under traffic, with
# every packet accounted for. Needs cargo and no privileges.
# Usage: tests/plugins/packages.sh [DIR-WITH-click-AND-rclick]   (default target/release)
set -eu
BIN=$(cd "${1:-target/release}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
passed=0
ok() { passed=$((passed+1)); }

# 1. Build the package on its own (its own Cargo.toml, its own workspace).
PKGT="$ROOT/target/packages"
CARGO_TARGET_DIR="$PKGT" nice -n 10 cargo build -q --release -j 2 \
    --manifest-path "$ROOT/examples/packages/payload-xor/Cargo.toml" || fail "building the example package"
SO="$PKGT/release/libpayload_xor.so"
[ -f "$SO" ] || fail "no $SO"
ok

# 2. require(package) over packets: bytes, handlers, two outputs.
CONF='require(package "payload-xor");
InfiniteSource(DATA \<00 01 02 03 04 05>, LIMIT 3, STOP true)
-> x :: PayloadXor(KEY 0xff, OFFSET 2) -> Print(x) -> s :: LengthSplit(6) -> short :: Counter -> Discard;
s[1] -> long :: Counter -> Discard;'
out=$(RCLICK_PACKAGE_PATH="$PKGT/release" "$BIN/click" -e "$CONF" -h x.count -h x.bytes -h long.count -h x.drops 2>&1) \
    || fail "running with the package: $out"
expect='x:    6 | 0001fdfc fbfa
x:    6 | 0001fdfc fbfa
x:    6 | 0001fdfc fbfa
x.count:
3

x.bytes:
12

long.count:
3

x.drops:
0
'
[ "$out" = "$(printf '%s' "$expect")" ] || fail "require(package) output:
$out"
ok
# Found in a CLICKPATH directory's lib/ under its file name.
mkdir -p "$T/cp/lib"
cp "$SO" "$T/cp/lib/"
out=$(CLICKPATH="$T/cp" "$BIN/click" -e "$CONF" -h x.count 2>/dev/null) || fail "CLICKPATH lib/"
echo "$out" | grep -qx 3 || fail "CLICKPATH lib/: $out"
ok
# A configuration error in a package class names the element, as Click's do.
err=$(RCLICK_PACKAGE_PATH="$PKGT/release" "$BIN/click" -e 'require(package "payload-xor"); Idle -> PayloadXor(KEY 300) -> Discard' 2>&1) \
    && fail "bad KEY accepted"
echo "$err" | grep -q "While configuring 'PayloadXor@2 :: PayloadXor':" \
    && echo "$err" | grep -q "  KEY: expected a byte, not '300'" \
    || fail "bad KEY: $err"
ok

# A panic inside the library is caught at the boundary: that packet is
# dropped and counted, the element goes on.
out=$(RCLICK_PACKAGE_PATH="$PKGT/release" "$BIN/click" -e 'require(package "payload-xor");
InfiniteSource(LIMIT 10, STOP true) -> p :: PanicEvery(3) -> c :: Counter -> Discard;' \
    -h c.count -h p.panics -h p.seen -h p.last_panic 2>/dev/null) || fail "PanicEvery run"
expect='c.count:
7

p.panics:
3

p.seen:
10

p.last_panic:
panicked: packet 9 is a multiple of 3
'
[ "$out" = "$(printf '%s' "$expect")" ] || fail "PanicEvery output:
$out"
ok

# 3. An unknown package is an error, in Click's words.
err=$(CLICKPATH="$T/cp" "$BIN/click" -e 'require(package "nosuch"); Idle -> Discard' 2>&1) \
    && fail "unknown package accepted"
echo "$err" | grep -q "^While loading package 'nosuch':" || fail "unknown package: $err"
echo "$err" | grep -q "can't find required package 'libnosuch.so'" || fail "unknown package: $err"
echo "$err" | grep -q "^requirement 'nosuch' not available" || fail "unknown package: $err"
ok

# 4. On a running router under traffic, through rclick pmgr.
cat > "$T/r.click" <<'CONF'
src :: RatedSource(DATA \<00000000>, RATE 20000, LIMIT -1) -> rr :: RoundRobinSwitch;
rr[0] -> UDPIPEncap(192.0.2.1, 1000, 198.51.100.1, 53) -> g :: FlowGate(sched);
rr[1] -> UDPIPEncap(192.0.2.2, 2000, 198.51.100.2, 80) -> g;
g -> CheckIPHeader -> cl :: Classifier(28/5a5a5a5a, 28/00000000, -);
cl[0] -> xored :: Counter -> c :: Counter -> Discard;
cl[1] -> plain :: Counter -> c;
cl[2] -> other :: Counter -> c;
pm :: PluginManager;
ControlSocket(unix, ctl.sock);
CONF
cd "$T"
RCLICK_PACKAGE_PATH="$PKGT/release" "$BIN/rclick" run r.click -H src.count -H c.count -H xored.count -H plain.count -H other.count > handlers.txt 2>&1 & PID=$!
i=0; while [ ! -S ctl.sock ]; do i=$((i+1)); [ $i -lt 100 ] || fail "no control socket"; sleep 0.05; done
P="$BIN/rclick pmgr -s ctl.sock"
err=$($P create PayloadXor KEY 1 2>&1) && fail "create before load accepted"
echo "$err" | grep -q "unknown element class 'PayloadXor'" || fail "create before load: $err"
err=$($P load nosuch 2>&1) && fail "load nosuch accepted"
echo "$err" | grep -q "can't find required package 'libnosuch.so'" || fail "load nosuch: $err"
out=$($P load "$SO") || fail "load: $out"
[ "$out" = "payload-xor: PayloadXor LengthSplit PanicEvery" ] || fail "load printed '$out'"
err=$($P load "$SO" 2>&1) && fail "second load accepted"
echo "$err" | grep -q "already loaded" || fail "second load: $err"
$P packages | grep -q "^payload-xor $SO: PayloadXor LengthSplit PanicEvery (0 elements)$" || fail "packages: $($P packages)"
I=$($P create PayloadXor KEY 0x11, OFFSET 28) || fail "create: $I"
[ "$I" = "PayloadXor@1" ] || fail "create printed '$I'"
# The package's write handler: a bad value changes nothing and says why.
err=$($P callwrite "$I.key" 300 2>&1) && fail "bad key accepted"
echo "$err" | grep -q "KEY: expected a byte, not '300'" || fail "bad key: $err"
$P callwrite "$I.key" 0x5a || fail "callwrite key"
[ "$($P call "$I.key")" = 90 ] || fail "key after write: $($P call "$I.key")"
$P bind sched "$I" '* 198.51.100.1 udp * 53 *' || fail "bind"
sleep 0.3
n=$($P call "$I.count")
[ "$n" -gt 0 ] || fail "no packets through the instance: $n"
err=$($P unload payload-xor 2>&1) && fail "unload in use accepted"
echo "$err" | grep -q "in use by PayloadXor@1" || fail "unload in use: $err"
$P packages | grep -q "(1 element)" || fail "packages while in use: $($P packages)"
$P unbind "$I" || fail "unbind"
through=$($P call "$I.count")
$P free "$I" || fail "free"
$P unload payload-xor || fail "unload"
[ -z "$($P packages)" ] || fail "packages after unload: $($P packages)"
err=$($P create PayloadXor KEY 1 2>&1) && fail "create after unload accepted"
# Loaded again, by name this time (on the router's RCLICK_PACKAGE_PATH).
out=$($P load payload-xor) || fail "reload: $out"
[ "$out" = "payload-xor: PayloadXor LengthSplit PanicEvery" ] || fail "reload printed '$out'"
$P unload payload-xor || fail "unload after reload"
sleep 0.1
kill -TERM "$PID"; wait "$PID" || fail "router exit status"; PID=
val() { awk -v h="$1:" '$0==h {getline; print; exit}' handlers.txt; }
sent=$(val src.count); arrived=$(val c.count); x=$(val xored.count); o=$(val other.count)
[ -n "$sent" ] && [ "$sent" -gt 0 ] || fail "no traffic: $(cat handlers.txt)"
[ "$arrived" = "$sent" ] || fail "lost packets: sent $sent, arrived $arrived"
[ "$x" = "$through" ] || fail "XORed packets at the sink $x, through the instance $through"
[ "$o" = 0 ] || fail "$o packets neither XORed nor plain"
ok
echo "packages: $passed passed, 0 failed ($sent packets, $through through the package instance)"
