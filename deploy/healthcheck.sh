#!/bin/bash
# healthcheck — the container image's HEALTHCHECK: GET /healthz on loopback and
# succeed only on HTTP 200. The runtime image has no curl; bash's /dev/tcp is
# enough for one HTTP/1.0 request, so nothing is added to the image for it.
#
# usage: healthcheck [PORT]   (default: $SPOTLEDGER_HEALTHCHECK_PORT, else 8080)
# exit:  0 healthy; 1 unhealthy (refused, timed out, not 200); 2 bad usage
set -u
port=${1:-${SPOTLEDGER_HEALTHCHECK_PORT:-8080}}
case $port in
'' | *[!0-9]*)
  echo "healthcheck: bad port '$port'" >&2
  exit 2
  ;;
esac
# a refused connection fails the redirection; bash then returns non-zero here
if ! exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  exit 1
fi
printf 'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
status=
IFS= read -r -t 5 status <&3 || true
exec 3<&-
case $status in
"HTTP/1."[01]" 200 "* | "HTTP/1."[01]" 200"$'\r') exit 0 ;;
esac
echo "healthcheck: /healthz answered '${status%$'\r'}'" >&2
exit 1
