#!/usr/bin/env bash
# Start the whole Subflow service on embedded defaults (SQLite, filesystem Celery broker):
# emulator agent, Celery worker and the API serving the web UI. Loads the example scenarios.
# Environment: SUBFLOW_PORT (8000), AGENT_PORT (8001), SUBFLOW_DATA_DIR (.subflow), DATABASE_URL,
# CELERY_BROKER_URL (set these two to use PostgreSQL and Redis instead), SUBFLOW_SKIP_BOOTSTRAP=1,
# SUBFLOW_WORKER_CONCURRENCY (2: worker threads; tasks mostly wait for the agent),
# SUBFLOW_API_WORKERS (1: API processes; on PostgreSQL give the number of cores, see README),
# AGENT_TOKEN (default: a random token generated once per data dir, kept in $SUBFLOW_DATA_DIR/agent-token,
# mode 600, and handed to the agent, the worker and the API; the agent refuses placeholders).
# Each process is supervised: if one dies (a crash, kill -9, out of memory) it is started again
# after SUBFLOW_RESTART_DELAY_S (1) seconds and the others keep running; its pid is in
# $SUBFLOW_DATA_DIR/run/<name>.pid. Logs are appended to $SUBFLOW_DATA_DIR/logs/<name>.log.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ "${SUBFLOW_SKIP_BOOTSTRAP:-0}" = 1 ] || scripts/bootstrap.sh

PORT="${SUBFLOW_PORT:-8000}"
AGENT_PORT="${AGENT_PORT:-8001}"
export SUBFLOW_DATA_DIR="${SUBFLOW_DATA_DIR:-$ROOT/.subflow}"
export AGENT_URL="${AGENT_URL:-http://127.0.0.1:$AGENT_PORT}"
mkdir -p "$SUBFLOW_DATA_DIR/logs"
LOGS="$SUBFLOW_DATA_DIR/logs"
BIN="$ROOT/.venv/bin"
if [ -z "${AGENT_TOKEN:-}" ]; then
  TOKEN_FILE="$SUBFLOW_DATA_DIR/agent-token"
  if [ ! -s "$TOKEN_FILE" ]; then
    (umask 077 && "$BIN/python" -m subflow.service.secrets >"$TOKEN_FILE")
  fi
  AGENT_TOKEN="$(cat "$TOKEN_FILE")"
fi
export AGENT_TOKEN

RUN="$SUBFLOW_DATA_DIR/run"
mkdir -p "$RUN"
rm -f "$RUN/stopping"
SUPERVISORS=()
cleanup() {
  trap - EXIT INT TERM
  touch "$RUN/stopping"
  for pid in "${SUPERVISORS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for name in backend worker agent; do
    [ -s "$RUN/$name.pid" ] && kill "$(cat "$RUN/$name.pid")" 2>/dev/null || true
  done
  for pid in "${SUPERVISORS[@]}"; do wait "$pid" 2>/dev/null || true; done
  for name in backend worker agent; do
    if [ -s "$RUN/$name.pid" ]; then
      pid="$(cat "$RUN/$name.pid")"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
      rm -f "$RUN/$name.pid"
    fi
  done
}
trap cleanup EXIT INT TERM

supervise() {  # name command... : run the command, start it again whenever it exits, until stopped
  local name="$1"; shift
  local rc child
  while [ ! -e "$RUN/stopping" ]; do
    # its own process group, so what it started (the API's worker processes) goes with it
    setsid "$@" >>"$LOGS/$name.log" 2>&1 &
    child=$!
    echo "$child" >"$RUN/$name.pid"
    rc=0; wait "$child" || rc=$?
    kill -9 -- "-$child" 2>/dev/null || true  # orphans of a killed process would hold its port
    [ -e "$RUN/stopping" ] && break
    echo "$(date -u +%FT%TZ) $name (pid $child) exited with status $rc; starting it again in ${SUBFLOW_RESTART_DELAY_S:-1} s" \
      | tee -a "$LOGS/$name.log" >&2
    sleep "${SUBFLOW_RESTART_DELAY_S:-1}"
  done
}

wait_http() {  # url name
  for _ in $(seq 120); do
    if "$BIN/python" -c "import httpx,sys; sys.exit(0 if httpx.get('$1', timeout=1).status_code == 200 else 1)" 2>/dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "$2 did not answer at $1; see $LOGS/$2.log" >&2; tail -n 30 "$LOGS/$2.log" >&2; exit 1
}

"$BIN/alembic" upgrade head >>"$LOGS/migrate.log" 2>&1 || { tail -n 40 "$LOGS/migrate.log" >&2; exit 1; }
"$BIN/python" -m subflow_backend.seed examples

AGENT_HOST=127.0.0.1 AGENT_PORT="$AGENT_PORT" supervise agent "$BIN/python" -m subflow_agent &
SUPERVISORS+=($!); wait_http "http://127.0.0.1:$AGENT_PORT/health" agent
supervise worker "$BIN/celery" -A subflow_worker.celery_app worker --loglevel=INFO --pool=threads \
  --concurrency="${SUBFLOW_WORKER_CONCURRENCY:-2}" \
  --hostname "subflow@%h-$PORT" &
SUPERVISORS+=($!)
API_WORKERS="${SUBFLOW_API_WORKERS:-1}"
if [ "$API_WORKERS" -gt 1 ]; then  # several API processes: Prometheus metrics add up all of them
  export PROMETHEUS_MULTIPROC_DIR="$RUN/prometheus"
  rm -rf "$PROMETHEUS_MULTIPROC_DIR"; mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
fi
supervise backend "$BIN/uvicorn" subflow_backend.main:app --host "${SUBFLOW_HOST:-127.0.0.1}" --port "$PORT" \
  --workers "$API_WORKERS" &
SUPERVISORS+=($!); wait_http "http://127.0.0.1:$PORT/api/health" backend

CRED="$SUBFLOW_DATA_DIR/admin-credentials"
echo
echo "Subflow is running: http://127.0.0.1:$PORT/   (API docs: http://127.0.0.1:$PORT/docs; logs: $LOGS)"
if [ -f "$CRED" ]; then
  echo "Sign in as '$(cut -d: -f1 "$CRED")' with the password in $CRED (mode 600: cut -d: -f2- \"$CRED\");"
  echo "create API tokens for scripts with POST /api/users/me/tokens (see README)."
fi
echo "A process that dies is started again (pids in $RUN). Press Ctrl-C to stop."
wait "${SUPERVISORS[@]}" || true
