#!/usr/bin/env bash
# Install what Subflow needs, idempotently.
#   scripts/bootstrap.sh         Python venv + packages, frontend packages + build (enough to run the service)
#   scripts/bootstrap.sh --test  also PostgreSQL, Redis (installed and started if missing), Chromium, e2e packages
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WITH_TEST=0
[ "${1:-}" = "--test" ] && WITH_TEST=1

say() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*"; }
APT_UPDATED=0
apt_install() {
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  if [ "$APT_UPDATED" = 0 ]; then $SUDO apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# --- toolchains -------------------------------------------------------------------------------
command -v python3 >/dev/null || { say "installing python3"; apt_install python3 python3-venv python3-pip; }
python3 -c 'import venv, ensurepip' 2>/dev/null || { say "installing python3-venv"; apt_install python3-venv; }
command -v node >/dev/null && command -v npm >/dev/null || { say "installing nodejs"; apt_install nodejs npm; }

# --- Python -----------------------------------------------------------------------------------
if [ ! -x .venv/bin/python ]; then say "creating .venv"; python3 -m venv .venv; fi
STAMP=.venv/.subflow-installed
REQ_HASH="$(cat requirements.txt requirements-dev.txt constraints.txt lib/pyproject.toml engines/pyproject.toml emulator-agent/pyproject.toml \
  worker/pyproject.toml backend/pyproject.toml cli/pyproject.toml testbeds/pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$REQ_HASH" ]; then
  say "installing Python packages"
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt -r requirements-dev.txt -c constraints.txt
  .venv/bin/pip install -q --disable-pip-version-check --no-deps \
    -e lib -e engines -e emulator-agent -e backend -e worker -e cli -e testbeds
  echo "$REQ_HASH" > "$STAMP"
fi

# --- frontend ---------------------------------------------------------------------------------
if [ -f frontend/package.json ]; then
  FE_HASH="$(cat frontend/package.json frontend/package-lock.json | sha256sum | cut -c1-16)"
  if [ ! -d frontend/node_modules ] || [ "$(cat frontend/node_modules/.subflow-installed 2>/dev/null)" != "$FE_HASH" ]; then
    say "installing frontend packages"
    (cd frontend && npm ci --package-lock=true --no-audit --no-fund --loglevel=error)
    echo "$FE_HASH" > frontend/node_modules/.subflow-installed
  fi
  say "building frontend"
  (cd frontend && npm run --silent build >/dev/null)
fi

[ "$WITH_TEST" = 1 ] || exit 0

# --- test services: PostgreSQL and Redis --------------------------------------------------------
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if ! command -v pg_ctlcluster >/dev/null; then say "installing PostgreSQL"; apt_install postgresql; fi
  say "starting PostgreSQL"
  ver="$(ls /etc/postgresql | sort -V | tail -1)"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start 2>/dev/null || pg_ctlcluster "$ver" main start
  for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # tests connect as postgres over TCP without a password (trust), as on the project's machines
  hba="/etc/postgresql/$ver/main/pg_hba.conf"
  if ! grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main reload 2>/dev/null || pg_ctlcluster "$ver" main reload
  fi
fi
if ! (command -v redis-cli >/dev/null && redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG); then
  command -v redis-server >/dev/null || { say "installing Redis"; apt_install redis-server; }
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/subflow.log
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 ping 2>/dev/null | grep -q PONG && break; sleep 0.5; done
fi

# --- tools of the linux engine (network namespaces, real TCP/MPTCP): iperf3, iptables, mptcpize, tcpdump (capture) ---
for tool in iperf3:iperf3 iptables:iptables mptcpize:mptcpd tcpdump:tcpdump; do
  command -v "${tool%%:*}" >/dev/null || { say "installing ${tool##*:}"; apt_install "${tool##*:}"; }
done

# --- the Debian VM testbed (real 802.11 on mac80211_hwsim, which this host's kernel lacks): mmdebstrap, QEMU, cpio
for tool in mmdebstrap:mmdebstrap qemu-system-x86_64:qemu-system-x86 cpio:cpio; do
  command -v "${tool%%:*}" >/dev/null || { say "installing ${tool##*:}"; apt_install --no-install-recommends "${tool##*:}"; }
done

# --- browser and e2e packages ------------------------------------------------------------------
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || { say "installing Chromium"; apt_install chromium; }
if [ -f e2e/package.json ]; then
  E2E_HASH="$(cat e2e/package.json e2e/package-lock.json | sha256sum | cut -c1-16)"
  if [ ! -d e2e/node_modules ] || [ "$(cat e2e/node_modules/.subflow-installed 2>/dev/null)" != "$E2E_HASH" ]; then
    say "installing e2e packages"
    (cd e2e && npm ci --package-lock=true --no-audit --no-fund --loglevel=error)
    echo "$E2E_HASH" > e2e/node_modules/.subflow-installed
  fi
fi
