# syntax=docker/dockerfile:1
# Subflow emulator agent with the kernel engines: `linux` (network namespaces, veth, HTB, kernel
# TCP/MPTCP, iperf3) and, where the host has mac80211_hwsim and Mininet-WiFi, `mininet-wifi`.
# It must run privileged on the host's network and PID namespace (see the `kernel` profile of
# docker-compose.yml); it runs as root because it creates network namespaces.
#   docker build -f docker/agent-kernel.Dockerfile -t subflow-agent-kernel .

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends iproute2 iptables iperf3 mptcpd kmod \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt ./
RUN pip install -r requirements.txt
COPY lib/ lib/
COPY engines/ engines/
COPY emulator-agent/ emulator-agent/
RUN pip install --no-deps ./lib ./engines ./emulator-agent
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('AGENT_PORT', '8011') + '/health', timeout=4).status == 200 else 1)"]
CMD ["sh", "-c", "exec uvicorn subflow_agent.app:app --host 0.0.0.0 --port ${AGENT_PORT:-8011}"]
