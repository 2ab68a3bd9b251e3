# Redis from Debian's own packages (see postgres.Dockerfile for why). The broker keeps nothing
# the database does not: the submissions table is the outbox, so Redis runs without persistence
# and a restart that loses the queue loses no submission (the API's sweeper publishes again).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/*
USER redis
EXPOSE 6379
HEALTHCHECK --interval=2s --timeout=3s --retries=30 CMD redis-cli ping | grep -q PONG
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", \
     "--appendonly", "no"]
