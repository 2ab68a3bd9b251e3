"""Service configuration, read from GRADEFORMER_* environment variables.

A plain pydantic model that reads them itself, as pydantic-settings' BaseSettings would with
this configuration (a prefix, names in any case, values given to the constructor first, then
the environment, then the defaults, defaults validated too): pydantic-settings imports asyncio,
ssl, argparse and python-dotenv, a tenth of an offline command's start (docs/benchmarks.md,
cli_startup section).
"""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graders.rubric import BUNDLED_RUBRICS

MIB = 1024 * 1024
ENV_PREFIX = "gradeformer_"


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_default=True)

    database_url: str = "sqlite:///./var/gradeformer.db"
    rubrics_dir: Path = BUNDLED_RUBRICS
    max_upload_bytes: int = Field(default=2 * MIB, gt=0)
    # A parsed submission with more located answers than this is rejected as garbage.
    max_answers: int = Field(default=200, gt=0)
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, gt=0)
    executor: Literal["local", "celery"] = "local"
    celery_broker_url: str = "redis://127.0.0.1:6379/0"
    allow_insecure_sandbox: bool = False
    # The sandbox for student code (graders/sandbox/policy.py; unset: its defaults, which
    # `gradeformer doctor` prints): limits per job and per zygote, sandbox processes per grading
    # process, and the layers required (below them code is refused unless insecure mode is
    # allowed) or not set up at all, as comma-separated names.
    sandbox_timeout_s: float | None = Field(default=None, gt=0, le=600)
    sandbox_memory_mb: int | None = Field(default=None, gt=0, le=1 << 20)
    sandbox_nproc: int | None = Field(default=None, gt=0, le=1024)
    sandbox_nofile: int | None = Field(default=None, gt=0, le=65536)
    sandbox_output_keep: int | None = Field(default=None, gt=0, le=1 << 30)
    sandbox_output_kill: int | None = Field(default=None, gt=0, le=1 << 34)
    sandbox_result_bytes: int | None = Field(default=None, gt=0, le=1 << 34)
    sandbox_salvage_elements: int | None = Field(default=None, gt=0, le=1 << 30)
    sandbox_cgroup_memory_mb: int | None = Field(default=None, gt=0, le=1 << 20)
    sandbox_cgroup_pids: int | None = Field(default=None, gt=0, le=4096)
    sandbox_zygotes: int = Field(default=1, gt=0, le=64)
    sandbox_required_layers: str | None = None
    sandbox_disabled_layers: str | None = None

    @field_validator("sandbox_required_layers", "sandbox_disabled_layers")
    @classmethod
    def _known_layers(cls, value: str | None) -> str | None:
        if value is not None:
            layer_names(value)
        return value
    review_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    # Grading processes run at this niceness so the API stays responsive while they work.
    worker_nice: int = Field(default=10, ge=0, le=19)
    # Rows written per transaction by bulk regrades: big enough to amortise commits on SQLite.
    regrade_batch: int = Field(default=200, gt=0)
    # The HTTP edge. Bodies of other routes than uploads are small JSON or forms.
    max_request_bytes: int = Field(default=256 * 1024, gt=0)
    # A body that stops arriving for this long is dropped (slow clients hold no connection).
    body_read_timeout: float = Field(default=30.0, gt=0)
    # A whole body must arrive by a deadline: an anonymous request's (a sign-in form, or junk)
    # within these seconds; one with a credential within body_read_timeout plus a second for
    # every body_min_rate bytes (a body dripped a byte at a time holds no connection for long).
    anonymous_body_seconds: float = Field(default=10.0, gt=0)
    body_min_rate: int = Field(default=1000, gt=0)
    # `gradeformer serve`: open connections at most (more get 503), idle keep-alive seconds.
    max_connections: int = Field(default=512, gt=0)
    keep_alive_seconds: int = Field(default=5, gt=0)
    # A request head (the request line and headers) must arrive whole within this long of the
    # connection, or of its first byte on a kept-alive one (app/heads.py); else it is closed.
    request_head_seconds: float = Field(default=10.0, gt=0)
    # Per student (staff are exempt): uploads per minute after a burst, and bytes stored.
    uploads_per_minute: float = Field(default=20.0, gt=0)
    upload_burst: int = Field(default=10, gt=0)
    # Per student: uploads in progress at once (arriving, read, stored, then waiting for grading
    # or being graded: app/submissions/admission.py; more get 429).
    uploads_in_progress: int = Field(default=4, gt=0)
    # A student's upload that arrives while that many of theirs wait for grading is held back
    # this long for one of them to be graded, then refused (429).
    upload_turn_seconds: float = Field(default=30.0, ge=0, le=600)
    student_quota_bytes: int = Field(default=50 * MIB, gt=0)
    # Web sign-in attempts per minute (and the burst) from one address (a class behind one
    # campus address signs in together), and with one token.
    sign_ins_per_minute: float = Field(default=120.0, gt=0)
    sign_in_burst: int = Field(default=60, gt=0)
    sign_ins_per_token_per_minute: float = Field(default=20.0, gt=0)
    # Reading a PDF or notebook upload happens in a child process with these bounds.
    decode_seconds: float = Field(default=10.0, gt=0)
    decode_max_pages: int = Field(default=100, gt=0)
    decode_memory_bytes: int = Field(default=1024 * MIB, gt=0)
    decode_concurrency: int = Field(default=2, gt=0)
    # Reading and grading one document in a grading process; past it: needs_review. Reading
    # (finding the answers) has its own, shorter share of that.
    document_seconds: float = Field(default=120.0, gt=0)
    parse_seconds: float = Field(default=10.0, gt=0)
    # A running regrade job whose runner wrote no heartbeat for this long may be taken over.
    regrade_stale_seconds: int = Field(default=600, gt=0)
    # Sentence embeddings of answers already seen, on disk, so a regrade of stored submissions
    # (or a restarted server) embeds nothing twice. Default: `embedding-cache` beside a SQLite
    # database file, else ./var/embedding-cache.
    embedding_cache_dir: Path | None = None
    # The written grader (graders.written.settings): "on" compares an answer with the
    # references when the patterns leave the decision open, "always" compares every answer
    # (slower, for audits), "off" patterns only. Unset bounds: the grader's defaults.
    written_similarity: Literal["on", "always", "off"] = "on"
    embedding_max_tokens: int | None = Field(default=None, ge=8, le=512)
    written_max_embedded_chars: int | None = Field(default=None, gt=0, le=1_000_000)
    written_max_embedded_sentences: int | None = Field(default=None, gt=0, le=10_000)
    # Code questions draw their test inputs from this secret (HMAC over the question and the
    # program), so a regrade reproduces them and no student can predict them. Unset: a random
    # secret kept in `code-input-secret` beside a SQLite database file (else ./var), made on
    # first use.
    code_input_secret: str | None = None
    # Regrades reuse what did not change (graders/cache): located answers, sandbox runs and
    # grader results, in one SQLite file. Default: `result-cache.sqlite` beside a SQLite
    # database file, else ./var/result-cache.sqlite. Off: everything is recomputed.
    result_cache: bool = True
    result_cache_path: Path | None = None
    result_cache_mib: int = Field(default=512, gt=0)
    # Reliability. A grading attempt whose worker died is retried, alone, with backoff; a
    # submission that killed this many attempts becomes grader_error with the reason.
    max_grading_attempts: int = Field(default=3, gt=0)
    # The longest one grading may take (a Celery task's hard time limit; the broker redelivers
    # an unacknowledged message after a little more than this).
    grading_deadline_seconds: int = Field(default=300, gt=0)
    # How long a queued or grading submission belongs to its holder before the sweeper hands it
    # out again. Holders that are alive renew it; it only runs out when one died or a broker
    # lost the message.
    grading_lease_seconds: int = Field(default=600, gt=0)
    sweep_interval_seconds: float = Field(default=30.0, gt=0)
    # SIGTERM: jobs still running after this are returned (queued again for the next start).
    shutdown_grace_seconds: float = Field(default=20.0, ge=0)
    # Publishing a job to the broker gives up after this; the sweeper publishes it later.
    publish_timeout_seconds: float = Field(default=2.0, gt=0)
    # /healthz reports unhealthy below this much free space beside the database and caches.
    min_free_disk_bytes: int = Field(default=64 * MIB, ge=0)
    # Regrade requests a student may make per assignment (open and answered ones; those closed
    # by a withdrawal of the grades do not count). 0: students cannot ask.
    regrade_requests_per_assignment: int = Field(default=3, ge=0, le=1000)

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, given: Any) -> Any:
        """GRADEFORMER_<FIELD> (any case) for each field not given to the constructor."""
        if not isinstance(given, dict):
            return given
        found = {}
        for name, value in os.environ.items():
            key = name.lower()
            if key.startswith(ENV_PREFIX) and key[len(ENV_PREFIX) :] in cls.model_fields:
                found[key[len(ENV_PREFIX) :]] = value
        return {**found, **given}

    def resolved_embedding_cache_dir(self) -> Path:
        if self.embedding_cache_dir is not None:
            return self.embedding_cache_dir
        database = sqlite_file(self.database_url)
        if database is not None:
            return Path(database).parent / "embedding-cache"
        return Path("var") / "embedding-cache"

    def resolved_result_cache_path(self) -> Path:
        if self.result_cache_path is not None:
            return self.result_cache_path
        return self.resolved_embedding_cache_dir().parent / "result-cache.sqlite"

    def resolved_code_input_secret(self) -> str | None:
        if self.code_input_secret:
            return self.code_input_secret
        path = self.resolved_embedding_cache_dir().parent / "code-input-secret"
        try:
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w") as handle:
                    handle.write(secrets.token_hex(32))
            return path.read_text().strip() or None
        except OSError:  # another process made it first, or no writable place: see below
            try:
                return path.read_text().strip() or None
            except OSError:
                return None  # the grader then draws a secret per process

    def grading_options(self) -> dict[str, Any]:
        """What a grader process is told about the operator's choices."""
        options: dict[str, Any] = {
            "allow_insecure_sandbox": self.allow_insecure_sandbox,
            "max_answers": self.max_answers,
            "worker_nice": self.worker_nice,
            "document_seconds": self.document_seconds,
            "parse_seconds": self.parse_seconds,
            "max_pages": self.decode_max_pages,
            "embedding_cache_dir": str(self.resolved_embedding_cache_dir().resolve()),
            # Where a stored rubric's code batteries are (beside its file in this folder).
            "rubrics_dir": str(self.rubrics_dir.resolve()),
        }
        if self.result_cache:
            options["result_cache_path"] = str(self.resolved_result_cache_path().resolve())
            options["result_cache_bytes"] = self.result_cache_mib * MIB
        if self.review_threshold is not None:
            options["review_threshold"] = self.review_threshold
        # Only what differs from the written grader's defaults: the options name the cache keys.
        if self.written_similarity != "on":
            options["written_similarity"] = self.written_similarity
        for name in ("embedding_max_tokens", "written_max_embedded_chars",
                     "written_max_embedded_sentences"):
            if getattr(self, name) is not None:
                options[name] = getattr(self, name)
        # The sandbox's limits, by this class's own fields (importing the sandbox here would
        # load it, and NumPy, into processes that never run code: a points-only regrade).
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name.startswith("sandbox_") and not name.endswith("_layers") and value is not None:
                options[name] = value
        for which in ("required", "disabled"):
            layers = getattr(self, f"sandbox_{which}_layers")
            if layers is not None:
                options[f"sandbox_{which}_layers"] = sorted(layer_names(layers))
        secret = self.resolved_code_input_secret()
        if secret:
            options["code_input_secret"] = secret
        return options


def sqlite_file(database_url: str) -> str | None:
    """The file of a SQLite database URL as SQLAlchemy reads it (`sqlite:///relative.db`,
    `sqlite:////absolute.db`, `sqlite+pysqlite:///...?mode=ro`); None for another backend or an
    in-memory database. Read here, not by SQLAlchemy: the offline commands never import it."""
    scheme, separator, rest = database_url.partition("://")
    if not separator or scheme.split("+", 1)[0] != "sqlite":
        return None
    _host, slash, database = rest.partition("/")
    if not slash:
        return None
    database = unquote(database.split("?", 1)[0])
    return None if database in ("", ":memory:") else database


def layer_names(text: str) -> frozenset[str]:
    """Comma-separated sandbox layer names, each one `gradeformer doctor` lists."""
    from graders.sandbox.policy import LAYERS  # imported only when layers are configured

    names = frozenset(n.strip() for n in text.split(",") if n.strip())
    unknown = sorted(names - set(LAYERS))
    if unknown:
        raise ValueError(f"unknown sandbox layers {unknown}; the layers are {', '.join(LAYERS)}")
    return names


@lru_cache
def get_settings() -> Settings:
    return Settings()
