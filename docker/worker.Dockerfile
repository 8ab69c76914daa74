# Subflow Celery worker: runs comparisons through the emulator agent. Build from the repository root:
#   docker build -f docker/worker.Dockerfile -t subflow-worker .
# Build arguments and the CA secret: as in docker/agent.Dockerfile.
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
COPY backend/ backend/
COPY worker/ worker/
RUN --mount=type=secret,id=cacert --mount=type=cache,target=/root/.cache/pip \
    if [ -s /run/secrets/cacert ]; then export PIP_CERT=/run/secrets/cacert; fi; \
    pip install --no-deps ./lib ./backend ./worker

RUN useradd --system --uid 10001 --home-dir /data subflow && mkdir -p /data && chown subflow /data
ENV SUBFLOW_DATA_DIR=/data \
    WORKER_CONCURRENCY=2
# numba compiles the planning and engine kernels on first use and caches them (cache=True): somewhere writable
ENV NUMBA_CACHE_DIR=/tmp/numba-cache
USER subflow
# answers only if the worker is connected to the broker and consuming
HEALTHCHECK --interval=30s --timeout=15s --start-period=30s --retries=3 \
  CMD celery -A subflow_worker.celery_app inspect ping --timeout 10 -d "subflow@$HOSTNAME" >/dev/null || exit 1
CMD ["sh", "-c", "exec celery -A subflow_worker.celery_app worker --loglevel=INFO --concurrency=\"$WORKER_CONCURRENCY\" --hostname=\"subflow@$HOSTNAME\""]
