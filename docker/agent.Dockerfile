# syntax=docker/dockerfile:1
# Subflow emulator agent (embedded `fluid` engine). Build from the repository root:
#   docker build -f docker/agent.Dockerfile -t subflow-agent .

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY requirements.txt ./
RUN pip install -r requirements.txt
COPY lib/ lib/
COPY engines/ engines/
COPY emulator-agent/ emulator-agent/
RUN pip install --no-deps ./lib ./engines ./emulator-agent

RUN useradd --system --uid 10001 subflow
USER subflow
EXPOSE 8001
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8001/health', timeout=4).status == 200 else 1)"]
CMD ["uvicorn", "subflow_agent.app:app", "--host", "0.0.0.0", "--port", "8001"]
