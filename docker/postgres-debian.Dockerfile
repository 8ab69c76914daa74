# PostgreSQL from Debian's own packages, for hosts that cannot pull the official `postgres` image
# (docker-compose.yml uses postgres:17-bookworm unless POSTGRES_IMAGE names another image; this one
# honours the same POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB variables, PGDATA and data volume).
#   docker build -f docker/postgres-debian.Dockerfile -t subflow-postgres-debian .
# DEBIAN_IMAGE: default debian:bookworm-slim; PostgreSQL is installed unless the image has it already
# (scripts/test_compose.sh builds on a local mmdebstrap image that does). The package's own cluster is
# removed: the one cluster is $PGDATA, on port 5432, and pg_isready / psql are the server's own (not
# Debian's wrappers, which would look for the removed cluster).
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql \
      && rm -rf /var/lib/apt/lists/*; fi \
 && ln -s "$(dirname "$(ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -1)")" /usr/local/lib/pgbin \
 && for tool in pg_isready psql; do ln -sf /usr/local/lib/pgbin/$tool /usr/local/bin/$tool; done \
 && rm -rf /etc/postgresql/*/main /var/lib/postgresql/*/main \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY docker/postgres-debian-entrypoint.sh /usr/local/bin/subflow-postgres
ENV PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/subflow-postgres"]
CMD ["postgres"]
