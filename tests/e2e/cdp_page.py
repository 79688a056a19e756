# cdp_page.py — one page in a fresh headless Chromium, driven over the DevTools
# protocol (--remote-debugging-pipe: fd 3 in, fd 4 out, NUL-separated JSON).
#
#   python3 cdp_page.py CHROMIUM URL WIDTHxHEIGHT[m] WAIT_JS EVAL_JS PNG TIMEOUT_S
#
# Sets the viewport (a trailing "m": a phone, mobile emulation with touch), opens
# URL, polls WAIT_JS until it is truthy, polls until the charts stop changing,
# evaluates EVAL_JS (an expression whose value is JSON-serialisable) and prints
# {"value": ..., "waited_ms": N, "settled": B, "console": [...]} on stdout: waited_ms is the real
# time from navigating to WAIT_JS first true (e2e_year's first-paint figure),
# console lists every console message and uncaught exception of the page; writes a PNG screenshot of the
# viewport to PNG (unless "-"). Every read has a deadline; exit 1 on timeout.
# Used by tests/e2e/e2e_dashboard.sh and tests/e2e/e2e_year.sh. Loopback URLs only (the caller's choice).
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import base64

chromium, url, size, wait_js, eval_js, png, budget = sys.argv[1:8]
budget = float(budget)
mobile = size.endswith("m")
width, height = (int(v) for v in size.rstrip("m").split("x"))
prof = tempfile.mkdtemp(prefix="cdp-profile.")
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()


def child():
    a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
    os.dup2(a, 3)
    os.dup2(b, 4)


proc = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
     "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
     "--user-data-dir=" + prof, "--window-size=%d,%d" % (width, height),
     "--remote-debugging-pipe", "about:blank"],
    preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chrome_r)
os.close(from_chrome_w)
deadline = time.time() + budget
pending = b""
next_id = 0
console = []


def note_event(m):
    method = m.get("method", "")
    p = m.get("params", {})
    if method == "Runtime.consoleAPICalled":
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        console.append("console.%s: %s" % (p.get("type"), args))
    elif method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        console.append("exception: %s %s" % (d.get("text", ""),
                                               d.get("exception", {}).get("description", "")))
    elif method == "Log.entryAdded":
        e = p.get("entry", {})
        console.append("log.%s: %s %s" % (e.get("level"), e.get("text"), e.get("url", "")))


def call(method, params=None, session=None):
    global next_id, pending
    next_id += 1
    msg = {"id": next_id, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    os.write(to_chrome_w, json.dumps(msg).encode() + b"\0")
    while True:
        while b"\0" in pending:
            raw, pending = pending.split(b"\0", 1)
            m = json.loads(raw)
            if m.get("id") == next_id:
                if "error" in m:
                    raise SystemExit("cdp_page: %s: %s" % (method, m["error"]))
                return m["result"]
            note_event(m)
        left = deadline - time.time()
        if left <= 0:
            raise SystemExit("cdp_page: timed out waiting for %s" % method)
        ready, _, _ = select.select([from_chrome_r], [], [], left)
        if ready:
            chunk = os.read(from_chrome_r, 1 << 16)
            if not chunk:
                raise SystemExit("cdp_page: chromium closed the pipe")
            pending += chunk


def evaluate(expr, session):
    r = call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                  "awaitPromise": True}, session)
    if "exceptionDetails" in r:
        raise SystemExit("cdp_page: %s threw: %s" % (expr[:80], r["exceptionDetails"]))
    return r["result"].get("value")


try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Page.enable", {}, session)
    call("Runtime.enable", {}, session)
    call("Log.enable", {}, session)
    call("Emulation.setDeviceMetricsOverride",
         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}, session)
    if mobile:
        call("Emulation.setTouchEmulationEnabled", {"enabled": True}, session)
    t0 = time.time()
    call("Page.navigate", {"url": url}, session)
    # the page may not exist yet right after navigating: a throw counts as "not yet";
    # bounded by the budget (every call() has the deadline) and by a count
    polls = 0
    while not evaluate("(() => { try { return Boolean(%s); } catch (e) { return false; } })()"
                       % wait_js, session):
        polls += 1
        if polls > budget / 0.02:
            raise SystemExit("cdp_page: WAIT_JS never became true")
        time.sleep(0.02)
    waited_ms = int((time.time() - t0) * 1000)
    # the charts' animation (250 ms) is over when every canvas shows the same pixels on
    # two frames 50 ms apart: a readiness poll in the page, bounded by 3 s (then the
    # page is read as it is; "settled" in the output says which)
    still = evaluate("""new Promise((resolve) => {
      const t0 = performance.now();
      const snap = () => Array.from(document.querySelectorAll('canvas'))
        .map((c) => { try { return c.toDataURL(); } catch (e) { return ''; } }).join('|');
      let last = snap();
      const again = () => setTimeout(() => requestAnimationFrame(() => {
        const now = snap();
        if (now === last) return resolve(true);
        if (performance.now() - t0 > 3000) return resolve(false);
        last = now;
        again();
      }), 50);
      again();
    })""", session)
    value = evaluate(eval_js, session)
    if png != "-":
        shot = call("Page.captureScreenshot", {"format": "png"}, session)
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    print(json.dumps({"value": value, "waited_ms": waited_ms, "settled": bool(still),
                      "console": console}))
finally:
    try:
        os.write(to_chrome_w, json.dumps({"id": 999999, "method": "Browser.close"}).encode() + b"\0")
        proc.wait(10)
    except Exception:
        proc.kill()
        proc.wait()
    shutil.rmtree(prof, ignore_errors=True)
