# Subflow API: FastAPI + the built web UI. Build from the repository root:
#   docker build -f docker/backend.Dockerfile -t subflow-backend .
# Build arguments: PYTHON_IMAGE as in docker/agent.Dockerfile; NODE_IMAGE, the image that builds the
# web UI (default the official node:22-bookworm-slim; any image with Node.js >= 20.19 and npm). The CA
# secret `cacert` (see docker/agent.Dockerfile) serves npm as well as pip.
# At start it runs `alembic upgrade head`, loads the example scenarios (idempotent),
# then serves on :8000.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN --mount=type=secret,id=cacert \
    if [ -s /run/secrets/cacert ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/cacert; fi; \
    npm ci --package-lock=true --no-audit --no-fund --loglevel=error
COPY frontend/ ./
RUN npm run build

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
COPY backend/ backend/
RUN --mount=type=secret,id=cacert --mount=type=cache,target=/root/.cache/pip \
    if [ -s /run/secrets/cacert ]; then export PIP_CERT=/run/secrets/cacert; fi; \
    pip install --no-deps ./lib ./backend
COPY alembic.ini ./
COPY migrations/ migrations/
COPY examples/ examples/
COPY --from=frontend /src/frontend/dist/ frontend/dist/

RUN useradd --system --uid 10001 --home-dir /data subflow && mkdir -p /data && chown subflow /data
ENV SUBFLOW_DATA_DIR=/data \
    FRONTEND_DIST=/app/frontend/dist
# numba compiles the planning and engine kernels on first use and caches them (cache=True): somewhere writable
ENV NUMBA_CACHE_DIR=/tmp/numba-cache
USER subflow
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4).status == 200 else 1)"]
# X-Forwarded-For is trusted only from FORWARDED_ALLOW_IPS (uvicorn's default: 127.0.0.1), so a client
# cannot fake its address to get round the sign-in rate limit; behind a reverse proxy, set
# FORWARDED_ALLOW_IPS to the proxy's address (never '*' on a published port).
# SUBFLOW_API_WORKERS API processes (uvicorn --workers); with more than one, Prometheus metrics add up all of
# them through PROMETHEUS_MULTIPROC_DIR (emptied at each start)
ENV SUBFLOW_API_WORKERS=1
CMD ["sh", "-c", "alembic upgrade head && { subflow-seed /app/examples || echo 'some examples were not loaded' >&2; } && if [ \"$SUBFLOW_API_WORKERS\" -gt 1 ]; then export PROMETHEUS_MULTIPROC_DIR=/tmp/subflow-prometheus; rm -rf \"$PROMETHEUS_MULTIPROC_DIR\"; mkdir -p \"$PROMETHEUS_MULTIPROC_DIR\"; fi && exec uvicorn subflow_backend.main:app --host 0.0.0.0 --port 8000 --workers \"$SUBFLOW_API_WORKERS\""]
