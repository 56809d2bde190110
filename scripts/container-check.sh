#!/usr/bin/env bash
# Builds deploy/Containerfile and runs the image it makes, as docs/deploy.md tells an operator to.
#
# Usage: bash scripts/container-check.sh NODE_BINARY
#   NODE_BINARY: a Node >= 22 binary for linux-x64 (CI passes the Node 24 it installed from npm).
#
# Our machines reach the npm registry and Debian's mirrors, not a container registry, so `node:24-slim` cannot be
# pulled. The base is made the way that image is: a minimal Debian (debootstrap --variant=minbase) with the Node
# binary in /usr/local/bin, imported as localhost/node-base:24 and put in place of the FROM line with `--from`.
# Everything after the FROM line is the Containerfile as shipped.
#
# The sandbox lets buildah build and run the image with chroot isolation, but no OCI runtime can start it (crun
# and runc both fail to set RLIMIT_NPROC without CAP_SYS_RESOURCE). So the image runs under `buildah run
# --isolation chroot`: its own root file system, its user, its environment and its command, on the host's network.
# What is checked: the build succeeds; the image's user is probe (uid 10001) and cannot write the code; its health
# check command exits 0 while the server serves and 1 when it does not; /readyz answers; and an MCP tools/call of
# probe over Streamable HTTP (2026-07-28) reaches a stand-in API on the host and comes back checked.
#
# Exit: 0 all checked; 1 a check failed; 3 the machine cannot build images (missing tools), said on stderr.
set -euo pipefail

node_binary=${1:?usage: bash scripts/container-check.sh NODE_BINARY}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/container-check.XXXXXX)
image=localhost/openapi-probe-check:latest
base=localhost/node-base:24
container=''
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$container" ]; then buildah rm "$container" >/dev/null 2>&1 || true; fi
  buildah rmi -f "$image" "$base" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "container-check: FAIL: $*" >&2
  exit 1
}

for tool in buildah debootstrap curl; do
  command -v "$tool" >/dev/null || {
    echo "container-check: NOT RUN: $tool is not installed (apt-get install buildah debootstrap curl)" >&2
    exit 3
  }
done

echo "container-check: base image: debootstrap bookworm minbase + $("$node_binary" --version)"
debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
  { tail -5 "$work/debootstrap.log" >&2; echo "container-check: NOT RUN: debootstrap failed" >&2; exit 3; }
cp "$node_binary" "$work/rootfs/usr/local/bin/node"
rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
tar -C "$work/rootfs" -cf "$work/rootfs.tar" .
scratch=$(buildah from scratch)
buildah add --quiet "$scratch" "$work/rootfs.tar" / >/dev/null
buildah commit --quiet "$scratch" "$base" >/dev/null
buildah rm "$scratch" >/dev/null

cd "$root"
[ -f dist/probe-server.mjs ] || npm run build >/dev/null
echo "container-check: building deploy/Containerfile"
buildah bud --quiet --isolation chroot --format docker --from "$base" -f deploy/Containerfile -t "$image" . >/dev/null ||
  fail "buildah bud of deploy/Containerfile"

user=$(buildah inspect --format '{{.Docker.Config.User}}' "$image")
[ "$user" = probe ] || fail "the image's user is '$user', not probe"
health=$(buildah inspect --format '{{.Docker.Config.Healthcheck}}' "$image")
case "$health" in *healthz*) ;; *) fail "the image has no health check on /healthz: $health" ;; esac
echo "container-check: ok image user=$user health check present"

container=$(buildah from "$image")
run() { buildah run --isolation chroot "$@"; }
id_line=$(run "$container" -- id 2>&1)
case "$id_line" in uid=10001\(probe\)*) ;; *) fail "runs as '$id_line', not uid 10001 (output of id in the image)" ;; esac
if run "$container" -- sh -c 'touch /srv/openapi-probe/probe-server.mjs' 2>/dev/null; then
  fail "the image's user can write its own code"
fi
echo "container-check: ok $id_line, code not writable"

# The stand-in API on the host (the image shares the host's network under chroot isolation).
api_port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
probe_port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
PORT=$api_port API_KEY=container-check-key-0123 node --import tsx stand-in-api.ts >"$work/stand-in.log" 2>&1 &
pids+=($!)

# The health check, read from the image, pointed at the port this run serves on.
health_command() {
  local js
  js=$(buildah inspect --format '{{index .Docker.Config.Healthcheck.Test 3}}' "$image")
  run "$container" -- node -e "${js//127.0.0.1:8787/127.0.0.1:$probe_port}"
}
if health_command 2>/dev/null; then fail "the health check passed before the server started"; fi

run --env API_BASE_URL="http://127.0.0.1:$api_port/v2" --env API_KEY=container-check-key-0123 \
  --env PROBE_HTTP_LISTEN="127.0.0.1:$probe_port" "$container" -- \
  node /srv/openapi-probe/probe-server.mjs serve >"$work/server.out" 2>"$work/server.log" &
pids+=($!)
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$probe_port/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
[ "$(curl -fsS "http://127.0.0.1:$probe_port/readyz" 2>/dev/null)" = ready ] ||
  { cat "$work/server.log" >&2; fail "/readyz did not answer ready"; }
health_command || fail "the health check failed while the server serves"
echo "container-check: ok /readyz ready, health check exit 0"

answer=$(curl -fsS "http://127.0.0.1:$probe_port/mcp" \
  -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: probe' \
  --data '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe","arguments":{"path":"/meters"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}') ||
  fail "tools/call over HTTP"
echo "$answer" | node -e '
  let text = ""; process.stdin.on("data", (c) => (text += c)).on("end", () => {
    const result = JSON.parse(text).result;
    const content = result?.structuredContent;
    if (!content || content.status !== 200 || content.validated !== true) {
      console.error("container-check: FAIL: probe answer " + text.slice(0, 400)); process.exit(1);
    }
    if (text.includes("container-check-key-0123")) { console.error("container-check: FAIL: the key is in the answer"); process.exit(1); }
    console.log("container-check: ok probe GET /meters through the image: status " + content.status + ", validated " + content.validated);
  });' || exit 1

kill "${pids[1]}" 2>/dev/null || true
wait "${pids[1]}" 2>/dev/null || true
pkill -f "node /srv/openapi-probe/probe-server.mjs serve" 2>/dev/null || true
sleep 0.5
if health_command 2>/dev/null; then fail "the health check passed after the server stopped"; fi
echo "container-check: ok health check exit 1 once the server stopped"
echo "container-check: passed"
