# syntax=docker/dockerfile:1
# Subflow API: FastAPI + the built web UI. Build from the repository root:
#   docker build -f docker/backend.Dockerfile -t subflow-backend .
# At start it runs `alembic upgrade head`, loads the example scenarios (idempotent),
# then serves on :8000.

FROM node:22-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json ./
RUN npm install --no-audit --no-fund --loglevel=error
COPY frontend/ ./
RUN npm run build

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
RUN pip install --no-deps ./lib ./backend
COPY alembic.ini ./
COPY migrations/ migrations/
COPY examples/ examples/
COPY --from=frontend /src/frontend/dist/ frontend/dist/

RUN useradd --system --uid 10001 --home-dir /data subflow && mkdir -p /data && chown subflow /data
ENV SUBFLOW_DATA_DIR=/data \
    FRONTEND_DIST=/app/frontend/dist
USER subflow
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4).status == 200 else 1)"]
# X-Forwarded-For is trusted only from FORWARDED_ALLOW_IPS (uvicorn's default: 127.0.0.1), so a client
# cannot fake its address to get round the sign-in rate limit; behind a reverse proxy, set
# FORWARDED_ALLOW_IPS to the proxy's address (never '*' on a published port).
CMD ["sh", "-c", "alembic upgrade head && { subflow-seed /app/examples || echo 'some examples were not loaded' >&2; } && exec uvicorn subflow_backend.main:app --host 0.0.0.0 --port 8000"]
