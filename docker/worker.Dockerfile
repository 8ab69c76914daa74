# syntax=docker/dockerfile:1
# Subflow Celery worker: runs comparisons through the emulator agent. Build from the repository root:
#   docker build -f docker/worker.Dockerfile -t subflow-worker .

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY requirements.txt ./
RUN pip install -r requirements.txt
COPY lib/ lib/
COPY backend/ backend/
COPY worker/ worker/
RUN pip install --no-deps ./lib ./backend ./worker

RUN useradd --system --uid 10001 --home-dir /data subflow && mkdir -p /data && chown subflow /data
ENV SUBFLOW_DATA_DIR=/data \
    WORKER_CONCURRENCY=2
USER subflow
# answers only if the worker is connected to the broker and consuming
HEALTHCHECK --interval=30s --timeout=15s --start-period=30s --retries=3 \
  CMD celery -A subflow_worker.celery_app inspect ping --timeout 10 -d "subflow@$HOSTNAME" >/dev/null || exit 1
CMD ["sh", "-c", "exec celery -A subflow_worker.celery_app worker --loglevel=INFO --concurrency=\"$WORKER_CONCURRENCY\" --hostname=\"subflow@$HOSTNAME\""]
