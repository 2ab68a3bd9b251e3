# PostgreSQL 15 from Debian's own packages, on any bookworm base: the stack needs no registry
# but Debian's (scripts/docker-test.sh builds it on a locally made base). With a registry at hand
# the official postgres:15 image serves as well (set the same user, password and database).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY deploy/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
HEALTHCHECK --interval=2s --timeout=3s --retries=30 CMD pg_isready -h 127.0.0.1 -q
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]
