#!/usr/bin/env python3
"""The web view, /metrics and the HTTP API of a running router (`rclick run
--http`), driven the way a person and Prometheus would: a real headless
Chromium (Debian's, through Playwright) loads the page, sees the graph,
sees a counter advance, writes a handler through the page and sees the
router change, fails a hot swap (old router kept) and makes one; /metrics
is read by the Prometheus client's OpenMetrics parser.

Usage: tests/observe/web.py BIN-DIR [--screenshot FILE]
Skips (exit 0, with the reason) only when Chromium or the Python packages
are missing; scripts/test installs them.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CONF = """// The web view's test router: a rated source, a switch, a queue.
src :: RatedSource(RATE 200, LIMIT -1)
  -> c :: Counter
  -> sw :: Switch(0);
sw[0] -> q :: Queue(1000) -> u :: Unqueue -> d0 :: Counter -> Discard;
sw[1] -> d1 :: Counter -> Discard;
"""

FAILED = []


def check(cond, what):
    if cond:
        print(f"ok - {what}")
    else:
        print(f"not ok - {what}")
        FAILED.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(base, path, data=None, headers=None):
    req = urllib.request.Request(base + path, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def oversized_post(base, path, length):
    """POST announcing a LENGTH-byte body and return the status line's code.

    The server refuses on the Content-Length alone and closes the connection, so
    the body is sent only in small pieces while no answer has come: sending it all
    at once races the close (EPIPE or a reset that loses the answer)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                  f"Content-Length: {length}\r\nConnection: close\r\n\r\n".encode())
        s.settimeout(0.05)
        sent, reply = 0, b""
        while not reply and sent < length:
            try:
                reply = s.recv(4096)
                break
            except socket.timeout:
                pass
            try:
                s.sendall(b"x" * 65536)
                sent += 65536
            except OSError:
                break
        s.settimeout(10)
        try:
            while b"\r\n" not in reply:
                more = s.recv(4096)
                if not more:
                    break
                reply += more
        except OSError:
            pass
    line = reply.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


def api(base, path, data=None):
    status, _, body = http(base, path, data)
    return status, json.loads(body)


def metrics_checks(base):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    status, ctype, text = http(base, "/metrics")
    check(status == 200 and ctype.startswith("application/openmetrics-text"), f"/metrics served ({status} {ctype})")
    families = {f.name: f for f in text_string_to_metric_families(text)}
    pk = families.get("rclick_element_packets")
    check(pk is not None and pk.type == "counter", "rclick_element_packets is a counter")
    samples = {(s.labels.get("element"), s.labels.get("class")): s.value for s in (pk.samples if pk else [])}
    check(samples.get(("c", "Counter"), 0) > 0, f"c's packets counted: {samples.get(('c', 'Counter'))}")
    check(all(s.name == "rclick_element_packets_total" for s in pk.samples), "counter samples end in _total")
    cap = families.get("rclick_queue_capacity")
    check(cap is not None and cap.type == "gauge"
          and any(s.labels == {"element": "q", "class": "Queue"} and s.value == 1000 for s in cap.samples),
          "queue capacity gauge")
    check("rclick_thread_elements" in families, "per-thread metric present")
    # The plain Prometheus text parser reads it too.
    from prometheus_client.parser import text_string_to_metric_families as text_parser

    names = {f.name for f in text_parser(text.replace("# EOF\n", ""))}
    check("rclick_element_packets" in names, "Prometheus text parser reads the exposition")


def api_checks(base):
    status, r = api(base, "/api/elements/c/count")
    check(status == 200 and r["code"] == 200 and int(r["value"]) > 0, f"read c.count: {r}")
    status, r = api(base, "/api/elements/nosuch/count")
    check(status == 404 and r["code"] == 510 and r["message"] == "No element named 'nosuch'", f"unknown element: {r}")
    status, r = api(base, "/api/elements/c/nosuch")
    check(status == 404 and r["code"] == 511, f"unknown handler: {r}")
    status, r = api(base, "/api/elements/c/count", data=b"5")
    check(status == 403 and r["code"] == 530 and r["message"] == "Handler 'c.count' read-only", f"write a read-only handler: {r}")
    status, r = api(base, "/api/elements/sw/switch", data=b"banana")
    check(status == 400 and r["code"] == 520, f"bad write refused: {r}")
    status, r = api(base, "/api/handlers")
    check(status == 200 and any(e["element"] == "sw" and {"name": "switch", "read": True, "write": True} in e["handlers"] for e in r),
          "handler list names sw.switch read-write")
    status = oversized_post(base, "/api/elements/c/count", 5 << 20)
    check(status == 413, f"huge body refused ({status})")
    status, _, _ = http(base, "/api/graph", headers={"Host": "rebinding.example"})
    check(status == 403, "non-loopback Host refused")


def page_checks(base, chromium, shot):
    from playwright.sync_api import sync_playwright

    # Playwright gives the browser a new empty profile of its own.
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"],
        )
        page = browser.new_page(viewport={"width": 1400, "height": 820})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        page.wait_for_selector('#graph .node[data-name="c"]', timeout=10000)
        names = page.eval_on_selector_all("#graph .node", "ns => ns.map(n => n.getAttribute('data-name'))")
        check({"src", "c", "sw", "q", "u", "d0", "d1"} <= set(names), f"graph drawn: {names}")
        edges = page.eval_on_selector_all("#graph path.edge", "es => es.length")
        check(edges == 8, f"8 connections drawn ({edges})")

        def count_shown(name):
            t = page.text_content(f'#graph .node[data-name="{name}"] text.stat') or ""
            m = re.search(r"count (\d+)", t)
            return int(m.group(1)) if m else -1

        page.wait_for_function("""() => /count \\d+/.test(document.querySelector('#graph .node[data-name="c"] text.stat').textContent)""", timeout=10000)
        a = count_shown("c")
        time.sleep(2.5)
        b = count_shown("c")
        check(a >= 0 and b > a, f"c's counter advances on the page ({a} -> {b})")
        page.wait_for_function("""() => /pps/.test(document.querySelector('#graph .node[data-name="c"] text.stat').textContent)""", timeout=10000)
        check(True, "c's rate shown")

        # Write sw.switch through the page.
        d1_before = int(api(base, "/api/elements/d1/count")[1]["value"])
        page.click('#graph .node[data-name="sw"]')
        page.wait_for_selector('#handlers tr[data-handler="switch"] input', timeout=10000)
        page.wait_for_function("""() => document.querySelector('#handlers tr[data-handler="switch"] pre').textContent.trim() === '0'""", timeout=10000)
        check(page.is_visible("#source div.hl"), "the declaration is highlighted in the configuration text")
        page.fill('#handlers tr[data-handler="switch"] input', "1")
        page.click('#handlers tr[data-handler="switch"] button.write')
        page.wait_for_function("""() => /200 Write handler 'sw.switch' OK/.test(document.querySelector('#handlers tr[data-handler="switch"] .msg').textContent)""", timeout=10000)
        check(True, "the page wrote sw.switch")
        check(api(base, "/api/elements/sw/switch")[1]["value"].strip() == "1", "the router's switch is now 1")
        time.sleep(1.0)
        d1_after = int(api(base, "/api/elements/d1/count")[1]["value"])
        check(d1_after > d1_before, f"packets now go to d1 ({d1_before} -> {d1_after})")
        page.wait_for_function("""() => /count [1-9]/.test(document.querySelector('#graph .node[data-name="d1"] text.stat').textContent)""", timeout=10000)
        check(True, "the page shows d1 counting")
        if shot:
            time.sleep(1.2)
            page.screenshot(path=shot)

        # A failing hot swap keeps the old router and shows the error.
        page.fill("#newconfig", "Idle -> NoSuchClass;")
        page.click("#install")
        page.wait_for_function("() => /kept/.test(document.querySelector('#swapmsg').textContent)", timeout=20000)
        msg = page.text_content("#swapmsg")
        check("520" in msg and "NoSuchClass" in msg, f"hot swap error shown: {msg!r}")
        check(api(base, "/api/elements/c/count")[0] == 200, "old router kept")

        # A good one replaces the graph on the open page.
        page.fill("#newconfig", "RatedSource(RATE 100, LIMIT -1) -> fresh :: Counter -> Discard;")
        page.click("#install")
        page.wait_for_selector('#graph .node[data-name="fresh"]', timeout=20000)
        check(not page.query_selector('#graph .node[data-name="sw"]'), "hot swap redrew the graph")
        check(not errors, f"no script errors: {errors}")
        browser.close()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    bindir = os.path.abspath(sys.argv[1])
    shot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("SKIP: web view test: no chromium (apt-get install chromium)")
        return 0
    try:
        import playwright  # noqa: F401
        import prometheus_client  # noqa: F401
    except ImportError as e:
        print(f"SKIP: web view test: {e} (pip install playwright prometheus_client)")
        return 0
    tmp = tempfile.mkdtemp()
    conf = os.path.join(tmp, "web.click")
    with open(conf, "w") as f:
        f.write(CONF)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(tmp, "router.log"), "w+")
    router = subprocess.Popen([os.path.join(bindir, "rclick"), "run", "--http", f"127.0.0.1:{port}", conf],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                if http(base, "/api/graph")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        time.sleep(1.0)
        metrics_checks(base)
        api_checks(base)
        page_checks(base, chromium, shot)
    finally:
        router.terminate()
        try:
            router.wait(timeout=10)
        except subprocess.TimeoutExpired:
            router.kill()
        log.seek(0)
        out = log.read()
        shutil.rmtree(tmp, ignore_errors=True)
    check(router.returncode == 0, f"router stopped cleanly ({router.returncode}): {out[-500:]}")
    print(f"{len(FAILED) == 0 and 'PASS' or 'FAIL'}: web view ({len(FAILED)} failed)")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
