#!/usr/bin/env bash
# Start the whole Subflow service on embedded defaults (SQLite, filesystem Celery broker):
# emulator agent, Celery worker and the API serving the web UI. Loads the example scenarios.
# Environment: SUBFLOW_PORT (8000), AGENT_PORT (8001), SUBFLOW_DATA_DIR (.subflow), DATABASE_URL,
# CELERY_BROKER_URL (set these two to use PostgreSQL and Redis instead), SUBFLOW_SKIP_BOOTSTRAP=1,
# AGENT_TOKEN (default: a random token generated once per data dir, kept in $SUBFLOW_DATA_DIR/agent-token,
# mode 600, and handed to the agent, the worker and the API; the agent refuses placeholders).
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
    (umask 077 && "$BIN/python" -m subflow.secrets >"$TOKEN_FILE")
  fi
  AGENT_TOKEN="$(cat "$TOKEN_FILE")"
fi
export AGENT_TOKEN

PIDS=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

wait_http() {  # url name pid
  for _ in $(seq 120); do
    if "$BIN/python" -c "import httpx,sys; sys.exit(0 if httpx.get('$1', timeout=1).status_code == 200 else 1)" 2>/dev/null; then
      return 0
    fi
    kill -0 "$3" 2>/dev/null || { echo "$2 exited; see $LOGS" >&2; tail -n 30 "$LOGS/$2.log" >&2; exit 1; }
    sleep 0.5
  done
  echo "$2 did not answer at $1" >&2; exit 1
}

"$BIN/alembic" upgrade head >"$LOGS/migrate.log" 2>&1 || { cat "$LOGS/migrate.log" >&2; exit 1; }
"$BIN/python" -m subflow_backend.seed examples

AGENT_HOST=127.0.0.1 AGENT_PORT="$AGENT_PORT" "$BIN/python" -m subflow_agent >"$LOGS/agent.log" 2>&1 &
PIDS+=($!); wait_http "http://127.0.0.1:$AGENT_PORT/health" agent "${PIDS[-1]}"
"$BIN/celery" -A subflow_worker.celery_app worker --loglevel=INFO --pool=threads --concurrency=2 \
  --hostname "subflow@%h-$PORT" >"$LOGS/worker.log" 2>&1 &
PIDS+=($!)
"$BIN/uvicorn" subflow_backend.main:app --host "${SUBFLOW_HOST:-127.0.0.1}" --port "$PORT" >"$LOGS/backend.log" 2>&1 &
PIDS+=($!); wait_http "http://127.0.0.1:$PORT/api/health" backend "${PIDS[-1]}"

CRED="$SUBFLOW_DATA_DIR/admin-credentials"
echo
echo "Subflow is running: http://127.0.0.1:$PORT/   (API docs: http://127.0.0.1:$PORT/docs; logs: $LOGS)"
if [ -f "$CRED" ]; then
  echo "Sign in as '$(cut -d: -f1 "$CRED")' with the password in $CRED (mode 600: cut -d: -f2- \"$CRED\");"
  echo "create API tokens for scripts with POST /api/users/me/tokens (see README)."
fi
echo "Press Ctrl-C to stop."
wait -n "${PIDS[@]}" || true
echo "a Subflow process exited; stopping the others (logs: $LOGS)" >&2
exit 1
