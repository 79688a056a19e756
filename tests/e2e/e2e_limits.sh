#!/bin/sh
# Connection and request limits of the real binary with its default settings
# (README "Limits"), on loopback only:
#  1. 1,100 slow clients from one address (127.0.0.2), each holding a half-sent
#     request head and trickling a byte a second: the connections over the
#     per-client cap (128) are refused at once, a fresh client from another
#     address (127.0.0.1) is answered in under 1 s, and every trickling connection
#     is cut by the 10 s receive deadline (+ 2 s of slack) although it keeps
#     sending (libmicrohttpd's idle timeout alone is reset by every byte).
#  2. 1,000 query parameters (a 6.9 KB URL) are answered at once with a JSON 4xx
#     (414: the URL is over 4096 bytes), not held until the idle timeout; 100 of
#     them in a short URL get the JSON 400 too_many_parameters.
# Every wait is bounded; python3 drives the sockets.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_limits
pid=
on_exit_stop pid

"$ledger" --no-kube --listen 127.0.0.1:0 --db "$dir/x.db" --web-dir "$root/web" >"$dir/out" 2>"$dir/err" &
pid=$!
wait_ledger "$dir/out" "$dir/err"
port=${base##*:}

python3 - "$port" <<'EOF' || fail "slow clients: see above"
import resource, socket, sys, time

port = int(sys.argv[1])
N, CAP, DEADLINE = 1100, 128, 10.0
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = N + 200
if soft < want:
    if hard != resource.RLIM_INFINITY and hard < want:
        print(f"e2e_limits: need {want} open files, the hard limit is {hard}")
        sys.exit(1)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

def fail(msg):
    print("e2e_limits: " + msg)
    sys.exit(1)

socks = []
t0 = time.monotonic()
for i in range(N):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    except OSError:
        pass  # refused at once is fine
    socks.append(s)
opened = time.monotonic() - t0

def closed_by_server(s):
    """True when the server has closed the socket (EOF or reset)."""
    s.setblocking(False)
    try:
        return s.recv(64) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True

# the excess is refused promptly: within 2 s, at most CAP connections stay open
end = time.monotonic() + 2.0
while True:
    alive = [s for s in socks if not closed_by_server(s)]
    if len(alive) <= CAP or time.monotonic() > end:
        break
    time.sleep(0.05)
if len(alive) > CAP:
    fail(f"{len(alive)} connections from one address still open 2 s after opening, cap {CAP}")
print(f"e2e_limits: {N} slow clients from 127.0.0.2 opened in {opened:.2f} s, "
      f"{len(alive)} held (cap {CAP}), {N - len(alive)} refused")

# a fresh client from another address is answered in < 1 s
t = time.monotonic()
c = socket.create_connection(("127.0.0.1", port), timeout=1.0)
c.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
reply = b""
try:
    while b"\r\n\r\n" not in reply:
        chunk = c.recv(4096)
        if not chunk:
            break
        reply += chunk
except socket.timeout:
    pass
took = time.monotonic() - t
c.close()
if not reply.startswith(b"HTTP/1.1 200") or took >= 1.0:
    fail(f"fresh client: {reply[:40]!r} after {took:.3f} s (want 200 in < 1 s)")
print(f"e2e_limits: fresh client answered 200 in {took * 1000:.1f} ms")

# the held ones trickle a byte a second; all are cut by the receive deadline
end = t0 + DEADLINE + 2.0
while alive and time.monotonic() < end:
    still = []
    for s in alive:
        try:
            s.setblocking(True)
            s.settimeout(0.5)
            s.send(b"X")
            if not closed_by_server(s):
                still.append(s)
        except OSError:
            pass
    alive = still
    time.sleep(1.0)
if alive:
    fail(f"{len(alive)} trickling connections still open {DEADLINE + 2:.0f} s after they "
         "started (receive deadline 10 s)")
print(f"e2e_limits: every trickling connection cut after "
      f"{time.monotonic() - t0:.1f} s (deadline {DEADLINE:.0f} s)")
for s in socks:
    s.close()
EOF

# many query parameters: a prompt JSON error (N, status, code)
params() {
  q=$(i=0; while [ $i -lt "$1" ]; do printf 'a%d=1&' $i; i=$((i + 1)); done)
  start=$(date +%s)
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 \
    "http://127.0.0.1:$port/api/v1/summary?${q}window=7d") || code=000
  took=$(($(date +%s) - start))
  [ "$code" = "$2" ] || fail "$1 parameters: HTTP $code, want $2 (took ${took} s): $(head -c 200 "$dir/body")"
  jq -e --arg c "$3" '.error.code == $c' "$dir/body" >/dev/null ||
    fail "$1 parameters: not the JSON error $3: $(head -c 200 "$dir/body")"
  [ "$took" -le 2 ] || fail "$1 parameters: answered after ${took} s"
  echo "e2e_limits: $1 parameters: $2 $3 in <= $took s"
}
params 1000 414 uri_too_long
params 100 400 too_many_parameters
kill -0 "$pid" 2>/dev/null || fail "the process died: $(tail -5 "$dir/err")"
echo "e2e_limits: ok: per-client cap, receive deadline and parameter cap hold"
