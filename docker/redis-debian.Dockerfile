# Redis from Debian's own packages, for hosts that cannot pull the official `redis` image
# (docker-compose.yml uses redis:7.4-bookworm unless REDIS_IMAGE names another image). Like the
# official image it serves from /data as the `redis` user and, without a configuration file, turns
# protected mode off so that the other containers on the compose network can connect.
#   docker build -f docker/redis-debian.Dockerfile -t subflow-redis-debian .
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN if ! command -v redis-server >/dev/null; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
      && rm -rf /var/lib/apt/lists/*; fi \
 && mkdir -p /data && chown redis:redis /data
VOLUME /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["sh", "-c", "if [ \"$1\" = redis-server ]; then shift; set -- redis-server --protected-mode no \"$@\"; fi; exec setpriv --reuid=redis --regid=redis --init-groups \"$@\"", "redis"]
CMD ["redis-server"]
