#!/usr/bin/env bash
# `make test-compose`: the production shape (docker-compose.yml) started for real.
#
# 1. Docker: installs Debian's docker.io, docker-compose and mmdebstrap if missing, and starts dockerd
#    (as root, in the background, log in /var/log/subflow-dockerd.log) if no daemon answers.
# 2. Base images, built locally because public image registries may be unreachable: Debian bookworm with
#    python3 + venv, PostgreSQL and Redis, and Debian trixie with Node.js >= 20.19 + npm (the web UI's
#    build), each made with mmdebstrap and `docker import`ed under a tag that hashes its package list
#    (built once per machine; SUBFLOW_BASE_REBUILD=1 rebuilds them).
# 3. The images of docker/*.Dockerfile on those bases (build arguments PYTHON_IMAGE, NODE_IMAGE,
#    DEBIAN_IMAGE; the official images stay the default for users). pip and npm inside the build reach
#    their registries with the host's CA bundle, handed over as the build secret `cacert`
#    (SUBFLOW_BUILD_CACERT, default /etc/ssl/certs/ca-certificates.crt; never stored in an image).
# 4. The stack under a unique project name, on a free port, with random secrets: waits until every
#    service is healthy, signs in as the first admin, runs a comparison through the REST API and checks
#    its result, starts a sweep, kills the worker container's main process (kill -9 from the host;
#    `restart: unless-stopped` brings it back) and checks that the sweep still ends (succeeded, or failed
#    with a reason) within SUBFLOW_COMPOSE_END_S seconds (default 300).
# 5. Tears the stack down on any exit (trap): no container, network or volume of the project is left
#    (checked). Built images stay, as a cache (`docker image prune` removes them).
# `scripts/test_compose.sh --bases-only` stops after step 2 (prepares a machine; mostly downloads).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$(date +%s)
say() { printf '\n\033[1m==> %s\033[0m  (%ss)\n' "$*" "$(( $(date +%s) - START ))"; }
die() { echo "test-compose: $*" >&2; exit 1; }

# --- 1. docker ------------------------------------------------------------------------------------
ensure_docker() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
    missing+=(docker-compose)
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "needs ${missing[*]} (install them as root: apt-get install ${missing[*]})"
    say "installing ${missing[*]} (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if ! docker info >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || die "no Docker daemon answers, and only root can start one here"
    say "starting dockerd (log: /var/log/subflow-dockerd.log)"
    nohup dockerd >>/var/log/subflow-dockerd.log 2>&1 &
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { tail -n 20 /var/log/subflow-dockerd.log >&2; die "dockerd did not start"; }
  fi
}
ensure_docker
# BuildKit (build secrets, cache mounts): a CLI with buildx, or Debian's docker.io CLI (built-in BuildKit);
# a newer CLI without the buildx plugin (e.g. a static one earlier on PATH) cannot build with secrets.
DOCKER=docker
if ! docker buildx version >/dev/null 2>&1 && [ -x /usr/bin/docker ]; then DOCKER=/usr/bin/docker; fi
export DOCKER_BUILDKIT=1
if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi

# --- 2. base images ---------------------------------------------------------------------------------
# base_image TAG_NAME SUITE PACKAGES: a Debian image made by mmdebstrap, tagged by the hash of its spec
base_image() {
  local name="$1" suite="$2" packages="$3" spec hash tag tar
  spec="mmdebstrap --variant=minbase --include=$packages $suite (v1)"
  hash="$(printf '%s' "$spec" | sha256sum | cut -c1-12)"
  tag="subflow-local/$name:$hash"
  if [ "${SUBFLOW_BASE_REBUILD:-0}" = 1 ] || ! docker image inspect "$tag" >/dev/null 2>&1; then
    say "building base image $tag ($suite: $packages) with mmdebstrap" >&2
    tar="$(mktemp --suffix=.tar)"
    mmdebstrap --quiet --mode=root --variant=minbase --include="$packages" \
      --aptopt='Acquire::Languages "none"' --dpkgopt='path-exclude=/usr/share/{doc,man,locale}/*' \
      "$suite" "$tar" >&2 || { rm -f "$tar"; die "mmdebstrap $suite failed"; }
    docker import "$tar" "$tag" >/dev/null
    rm -f "$tar"
  fi
  echo "$tag"
}
NODE_TAG_FILE="$(mktemp)"
base_image trixie-node trixie nodejs,npm,ca-certificates >"$NODE_TAG_FILE" &   # both at once: mostly downloads
NODE_PID=$!
BASE="$(base_image bookworm bookworm python3,python3-venv,ca-certificates,postgresql,redis-server)"
wait "$NODE_PID" || die "the Node.js base image was not built"
NODE_BASE="$(cat "$NODE_TAG_FILE")"; rm -f "$NODE_TAG_FILE"
[ -n "$BASE" ] && [ -n "$NODE_BASE" ] || die "a base image is missing"
if [ "${1:-}" = --bases-only ]; then echo "$BASE $NODE_BASE"; exit 0; fi

# --- 3. images ---------------------------------------------------------------------------------------
CACERT="${SUBFLOW_BUILD_CACERT:-/etc/ssl/certs/ca-certificates.crt}"
SECRET=()
[ -s "$CACERT" ] && SECRET=(--secret "id=cacert,src=$CACERT")
TAG="${SUBFLOW_IMAGE_TAG:-compose-test}"
BUILD_LOG="$(mktemp)"
build() {  # dockerfile image [build args...]
  local file="$1" image="$2" t0; shift 2
  t0=$(date +%s)
  "$DOCKER" build --progress=plain -f "$file" -t "$image:$TAG" "${SECRET[@]}" "$@" . >"$BUILD_LOG" 2>&1 \
    || { tail -n 40 "$BUILD_LOG" >&2; die "build of $file failed"; }
  echo "  built $image:$TAG in $(( $(date +%s) - t0 )) s ($(grep -c ' CACHED$' "$BUILD_LOG") steps cached)"
}
say "building the images"
build docker/postgres-debian.Dockerfile subflow-postgres-debian --build-arg "DEBIAN_IMAGE=$BASE"
build docker/redis-debian.Dockerfile subflow-redis-debian --build-arg "DEBIAN_IMAGE=$BASE"
build docker/agent.Dockerfile subflow-agent --build-arg "PYTHON_IMAGE=$BASE"
build docker/worker.Dockerfile subflow-worker --build-arg "PYTHON_IMAGE=$BASE"
build docker/backend.Dockerfile subflow-backend --build-arg "PYTHON_IMAGE=$BASE" --build-arg "NODE_IMAGE=$NODE_BASE"
rm -f "$BUILD_LOG"

# --- 4. the stack ------------------------------------------------------------------------------------
PROJECT="subflow-ct-$$-$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export COMPOSE_PROJECT_NAME="$PROJECT" SUBFLOW_PORT="$PORT" SUBFLOW_IMAGE_TAG="$TAG" \
  POSTGRES_IMAGE="subflow-postgres-debian:$TAG" REDIS_IMAGE="subflow-redis-debian:$TAG" \
  POSTGRES_PASSWORD="$(head -c18 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
  AGENT_TOKEN="$(head -c24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
dc() { "${COMPOSE[@]}" -p "$PROJECT" -f docker-compose.yml "$@"; }
teardown() {
  local rc=$? left
  trap - EXIT INT TERM
  if [ $rc -ne 0 ]; then
    echo "--- logs of the failed run (tail) ---" >&2
    dc logs --no-color --tail=40 >&2 2>&1 || true
  fi
  say "tearing down $PROJECT"
  dc down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1 || true
  left="$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")$(docker network ls -q --filter "label=com.docker.compose.project=$PROJECT")$(docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT")"
  if [ -n "$left" ]; then
    echo "test-compose: left behind: $left" >&2; rc=1
  else
    echo "no container, network or volume of $PROJECT is left"
  fi
  echo "test-compose: $([ $rc = 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - START )) s"
  exit $rc
}
trap teardown EXIT INT TERM

say "starting the stack $PROJECT on 127.0.0.1:$PORT"
dc up -d --no-build
say "waiting until every service is healthy"
deadline=$(( $(date +%s) + 240 ))
while :; do
  states="$(for c in $(dc ps -q); do docker inspect -f '{{.Name}} {{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$c"; done)"
  echo "$states" | grep -qvE ' healthy$' || break
  [ "$(date +%s)" -lt $deadline ] || { echo "$states" >&2; die "services not healthy after 240 s"; }
  sleep 3
done
echo "$states"
[ "$(echo "$states" | wc -l)" -ge 5 ] || die "expected 5 services, got: $states"
BASE_URL="http://127.0.0.1:$PORT"
python3 scripts/compose_check.py health "$BASE_URL"

CRED="$(docker exec "$(dc ps -q backend)" cat /data/admin-credentials)"
ADMIN="${CRED%%:*}"; PASSWORD="${CRED#*:}"
say "comparison through the REST API (signed in as $ADMIN)"
python3 scripts/compose_check.py compare "$BASE_URL" "$ADMIN" "$PASSWORD"

say "sweep; the worker container is killed while it runs"
SWEEP="$(python3 scripts/compose_check.py submit "$BASE_URL" "$ADMIN" "$PASSWORD")"
WORKER="$(dc ps -q worker)"
for _ in $(seq 120); do
  done_units="$(python3 - "$BASE_URL" "$ADMIN" "$PASSWORD" "$SWEEP" <<'PY'
import sys; sys.path.insert(0, "scripts")
from compose_check import Api
api = Api(*sys.argv[1:4]); print(api.call("GET", sys.argv[4])["units_done"])
PY
)"
  [ "$done_units" -ge 1 ] && break
  sleep 0.5
done
echo "  $done_units unit(s) done; kill -9 of the worker's main process"
kill -9 "$(docker inspect -f '{{.State.Pid}}' "$WORKER")"
for _ in $(seq 60); do
  [ "$(docker inspect -f '{{.RestartCount}}' "$WORKER")" -ge 1 ] && [ "$(docker inspect -f '{{.State.Running}}' "$WORKER")" = true ] && break
  sleep 1
done
echo "  worker restarted by Docker (restart count $(docker inspect -f '{{.RestartCount}}' "$WORKER"))"
python3 scripts/compose_check.py wait "$BASE_URL" "$ADMIN" "$PASSWORD" "$SWEEP" "${SUBFLOW_COMPOSE_END_S:-300}"
say "all checks passed"
