#!/usr/bin/env bash
# End-to-end test of `rclick rfc2544 --quick`: the RFC 2544 benchmark on a
# namespace testbed of its own (rclick-rfc-h0, rclick-rfc-r, rclick-rfc-h1;
# never the default rclick-h0/rclick-r the other tests use).
#
# Checks: the run succeeds; report.json, report.md and report.html exist;
# the JSON parses (python3) and says rclick forwarded at a nonzero
# zero-loss rate for 64-byte frames, below or at the generator's ceiling,
# with latency percentiles in order; the HTML has its SVG plots; the
# testbed is gone afterwards. Then a second run is interrupted with SIGINT
# after a few seconds: it must exit with a failure, and leave no namespace
# and no router process behind.
#
# Skips (exit 0 with a SKIP line) when not root or when network namespaces
# cannot be created. Needs target/release/rclick and target/release/click
# (or RCLICK_BIN). The reference Click at ../shared/reference/click/bin/click
# is tested too when it is there.
set -uo pipefail
name=rfc2544
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="${RCLICK_BIN:-$root/target/release}"
rclick="$bin/rclick"
prefix=rclick-rfc

skip() { echo "SKIP $name: $*"; exit 0; }
fail() { echo "FAIL $name: $*"; [ -s "$dir/run.log" ] && tail -n 40 "$dir/run.log"; exit 1; }

cd "$root" || exit 1
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces and packet sockets)"
for p in ip python3 taskset; do
    command -v "$p" >/dev/null 2>&1 || skip "'$p' is missing (scripts/test installs it)"
done
[ -x "$rclick" ] && [ -x "$bin/click" ] || fail "build first: cargo build --release"
probe=rclick-probe-$$
ip netns add "$probe" >/dev/null 2>&1 || skip "cannot create network namespaces here"
ip netns del "$probe" >/dev/null 2>&1
dir=$(mktemp -d)
trap '"$rclick" testbed down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$dir"' EXIT

no_testbed() {
    local ns
    for ns in $(ip netns list | awk '{print $1}'); do
        case $ns in "$prefix"-*) return 1 ;; esac
    done
    return 0
}

start=$(date +%s)
timeout 600 "$rclick" rfc2544 --quick --out "$dir/report" >"$dir/summary.txt" 2>"$dir/run.log" \
    || fail "rclick rfc2544 --quick exited with $?"
took=$(($(date +%s) - start))
for f in report.json report.md report.html; do
    [ -s "$dir/report/$f" ] || fail "$f is missing or empty"
done
python3 - "$dir/report/report.json" <<'PY' || fail "report.json does not say what it should"
import json, sys
r = json.load(open(sys.argv[1]))
duts = {d["name"]: d for d in r["duts"]}
assert "rclick" in duts and "kernel" in duts, list(duts)
ours = duts["rclick"]
assert ours["error"] is None, ours["error"]
t64 = [t for t in ours["throughput"] if t["size"] == 64][0]
ceiling = [c for c in r["generator"] if c["size"] == 64][0]["fps"]
assert t64["ndr_fps"] > 0, t64
assert t64["ndr_fps"] <= ceiling * 1.02, (t64["ndr_fps"], ceiling)
assert t64["pdr_fps"] >= t64["ndr_fps"], t64
lat = [l for l in ours["latency"] if l["size"] == 64][0]["summary"]
assert lat["min_ns"] <= lat["p50_ns"] <= lat["p99_ns"] <= lat["p999_ns"] <= lat["max_ns"], lat
assert ours["restart"]["start_ms"] > 0, ours["restart"]
assert len(r["targets"]) >= 4
# Every loss point says where its frames were lost (from the router
# namespace's interface counters).
for d in duts.values():
    pts = [p for c in d["frame_loss"] for p in c["points"]]
    pts += (d["overload"] or {}).get("points", [])
    for p in pts:
        w = p["where_lost"]
        assert w is not None, (d["name"], p)
        assert min(w.values()) >= 0, w
print("  rclick 64 B: NDR %.0f fps (ceiling %.0f), restart %.1f ms; devices: %s" % (
    t64["ndr_fps"], ceiling, ours["restart"]["start_ms"], ", ".join(
        "%s%s" % (n, "" if d["error"] is None else " (error)") for n, d in duts.items())))
PY
[ "$(grep -c '<svg ' "$dir/report/report.html")" -ge 1 ] || fail "report.html has no SVG plot"
grep -q '^## Throughput' "$dir/report/report.md" || fail "report.md has no throughput section"
no_testbed || fail "the testbed is still there after the run"
echo "  --quick took ${took} s"

# Interrupted: everything goes.
"$rclick" rfc2544 --quick --dut rclick --no-transfers --out "$dir/report2" >/dev/null 2>"$dir/run.log" &
pid=$!
sleep 4
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" -ne 0 ] || fail "an interrupted run exited with 0"
no_testbed || fail "the testbed is still there after SIGINT"
if pgrep -f "$root/conf/iprouter-linux.click" >/dev/null; then
    fail "a router process survived SIGINT: $(pgrep -af "$root/conf/iprouter-linux.click")"
fi
echo "PASS $name"
