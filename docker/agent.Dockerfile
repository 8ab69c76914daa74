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
# Listens on AGENT_HOST (default 127.0.0.1: nothing outside the container); docker-compose.yml sets
# 0.0.0.0 for its agent, reachable only on the compose network (not published). AGENT_TOKEN is required.
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; h = os.environ.get('AGENT_HOST', '127.0.0.1'); h = '127.0.0.1' if h in ('', '0.0.0.0') else h; sys.exit(0 if urllib.request.urlopen('http://' + h + ':' + os.environ.get('AGENT_PORT', '8001') + '/health', timeout=4).status == 200 else 1)"]
CMD ["python", "-m", "subflow_agent"]
