#!/usr/bin/env bash
# Run every Subflow test: unit tests and doctests, integration tests on real PostgreSQL, Redis,
# Celery worker and agent processes, frontend unit tests and type-check, and Playwright in Chromium
# against the whole service started on embedded defaults.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh --test || { echo "bootstrap failed" >&2; exit 1; }

FAILED=()
PASSED_N=0
FAILED_N=0
LOG="$(mktemp)"
step() {  # name command...
  local name="$1"; shift
  local started=$SECONDS
  printf '\n\033[1m==> %s\033[0m\n' "$name"
  if "$@" 2>&1 | tee "$LOG"; [ "${PIPESTATUS[0]}" = 0 ]; then
    echo "--> $name: ok ($((SECONDS - started)) s)"
  else
    echo "--> $name: FAILED ($((SECONDS - started)) s)"; FAILED+=("$name")
  fi
  # count tests from the runners' closing lines (pytest, vitest, Playwright)
  local clean p f
  clean="$(sed 's/\x1b\[[0-9;]*m//g' "$LOG")"
  p="$(printf '%s\n' "$clean" | grep -E '^ *(Tests +)?[0-9]+ passed|^=* ?[0-9]+ (passed|failed)' | tail -1 | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || true)"
  f="$(printf '%s\n' "$clean" | grep -E '^ *(Tests +)?[0-9]+ (passed|failed)|^=* ?[0-9]+ (passed|failed)' | tail -1 | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+' || true)"
  PASSED_N=$((PASSED_N + ${p:-0}))
  FAILED_N=$((FAILED_N + ${f:-0}))
}

step "python unit tests + doctests" .venv/bin/python -m pytest -q tests/unit lib/subflow engines/subflow_engines/draws.py \
  engines/subflow_engines/sources.py engines/subflow_engines/fluid/cbr.py testbeds/subflow_testbeds/multibottleneck.py \
  engines/subflow_engines/vm/image.py
step "integration tests (PostgreSQL, Redis, Celery worker, agent)" .venv/bin/python -m pytest -q --durations=15 -m integration tests/integration
step "linux engine tests (network namespaces, kernel TCP/MPTCP; root)" .venv/bin/python -m pytest -q --durations=15 --reruns 1 --reruns-delay 2 tests/linux \
  engines/subflow_engines/linux/iperf3.py engines/subflow_engines/linux/sockets.py
step "Debian VM: real 802.11 association and roam (mac80211_hwsim, hostapd, wpa_supplicant; QEMU)" \
  .venv/bin/python -m pytest -q -s tests/vm
if [ -f frontend/package.json ]; then
  step "frontend: API types match the backend's OpenAPI, type-check, unit tests (vitest)" bash -c 'cd frontend && npm run --silent api:check && npm test --silent'
  step "frontend: the production bundle has no test hook, the e2e build has it" bash -c 'cd frontend && npm run --silent check:bundle'
fi

# The service under test serves the e2e test build (frontend/dist-e2e: `vite build --mode e2e`, with
# the test hook window.__subflowCy); `make run` keeps serving the production build in frontend/dist.
run_e2e() {
  local data port agent pid rc
  data="$(mktemp -d)"; port="${E2E_PORT:-18765}"; agent="${E2E_AGENT_PORT:-18766}"
  (cd frontend && npm run --silent build:e2e >"$data/build-e2e.log" 2>&1) || { cat "$data/build-e2e.log"; rm -rf "$data"; return 1; }
  SUBFLOW_SKIP_BOOTSTRAP=1 SUBFLOW_DATA_DIR="$data" SUBFLOW_PORT=$port AGENT_PORT=$agent \
    FRONTEND_DIST="$ROOT/frontend/dist-e2e" DATABASE_URL= CELERY_BROKER_URL= scripts/serve.sh >"$data/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 120); do
    grep -q "Subflow is running" "$data/serve.log" && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.5
  done
  if ! grep -q "Subflow is running" "$data/serve.log"; then
    cat "$data/serve.log"; kill $pid 2>/dev/null; return 1
  fi
  (cd e2e && SUBFLOW_BASE_URL="http://127.0.0.1:$port" SUBFLOW_ADMIN_CREDENTIALS="$data/admin-credentials" npx playwright test)
  rc=$?
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  rm -rf "$data"
  return $rc
}
if [ -f e2e/package.json ]; then
  step "end-to-end tests (Playwright, Chromium)" run_e2e
fi

rm -f "$LOG"
echo
if [ ${#FAILED[@]} -ne 0 ]; then
  printf 'failed suites: %s\n' "${FAILED[*]}"
  [ "$FAILED_N" -gt 0 ] || FAILED_N=${#FAILED[@]}
fi
echo "total: $PASSED_N passed, $FAILED_N failed"
[ ${#FAILED[@]} -eq 0 ]
