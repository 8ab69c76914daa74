# Subflow emulator agent (embedded `fluid` engine). Build from the repository root:
#   docker build -f docker/agent.Dockerfile -t subflow-agent .
# Build arguments: PYTHON_IMAGE, the base (default the official python:3.11-slim-bookworm; any
# Debian-like image with python3 and its venv module will do, e.g. one built with mmdebstrap, see
# scripts/test_compose.sh). Behind a TLS-intercepting proxy, hand pip the proxy's CA bundle as a
# build secret: --secret id=cacert,src=/etc/ssl/certs/ca-certificates.crt (used only while building).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
# the same first layers in every Python image of Subflow (agent, worker, backend): built once, shared
RUN python3 -m venv /opt/venv
WORKDIR /app
COPY requirements.txt constraints.txt ./
RUN --mount=type=secret,id=cacert --mount=type=cache,target=/root/.cache/pip \
    if [ -s /run/secrets/cacert ]; then export PIP_CERT=/run/secrets/cacert; fi; \
    pip install -r requirements.txt -c constraints.txt
COPY lib/ lib/
COPY engines/ engines/
COPY emulator-agent/ emulator-agent/
RUN --mount=type=secret,id=cacert --mount=type=cache,target=/root/.cache/pip \
    if [ -s /run/secrets/cacert ]; then export PIP_CERT=/run/secrets/cacert; fi; \
    pip install --no-deps ./lib ./engines ./emulator-agent

RUN useradd --system --uid 10001 subflow
# numba compiles the planning and engine kernels on first use and caches them (cache=True): somewhere writable
ENV NUMBA_CACHE_DIR=/tmp/numba-cache
USER subflow
EXPOSE 8001
# Listens on AGENT_HOST (default 127.0.0.1: nothing outside the container); docker-compose.yml sets
# 0.0.0.0 for its agent, reachable only on the compose network (not published). AGENT_TOKEN is required.
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; h = os.environ.get('AGENT_HOST', '127.0.0.1'); h = '127.0.0.1' if h in ('', '0.0.0.0') else h; sys.exit(0 if urllib.request.urlopen('http://' + h + ':' + os.environ.get('AGENT_PORT', '8001') + '/health', timeout=4).status == 200 else 1)"]
CMD ["python", "-m", "subflow_agent"]
