# Subflow emulator agent with the kernel engines: `linux` (network namespaces, veth, HTB, kernel
# TCP/MPTCP, iperf3, tcpdump for packet capture) and, where the host has mac80211_hwsim and Mininet-WiFi, `mininet-wifi`.
# It must run privileged on the host's network and PID namespace (see the `kernel` profile of
# docker-compose.yml); it runs as root because it creates network namespaces.
#   docker build -f docker/agent-kernel.Dockerfile -t subflow-agent-kernel .
# Build arguments and the CA secret: as in docker/agent.Dockerfile.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBIAN_FRONTEND=noninteractive \
    PATH=/opt/venv/bin:$PATH
RUN apt-get update \
 && apt-get install -y --no-install-recommends iproute2 iptables iperf3 mptcpd kmod tcpdump \
 && rm -rf /var/lib/apt/lists/*
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
# On the host's network: it listens on AGENT_HOST only (default 127.0.0.1; docker-compose.yml sets the
# docker bridge's gateway address, which is what host.docker.internal resolves to in the other containers).
ENV AGENT_PORT=8011 \
    NUMBA_CACHE_DIR=/tmp/numba-cache
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; h = os.environ.get('AGENT_HOST', '127.0.0.1'); h = '127.0.0.1' if h in ('', '0.0.0.0') else h; sys.exit(0 if urllib.request.urlopen('http://' + h + ':' + os.environ.get('AGENT_PORT', '8011') + '/health', timeout=4).status == 200 else 1)"]
CMD ["python", "-m", "subflow_agent"]
