"""The service's domain errors. Services raise these; one handler turns them into problem+json."""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    status: ClassVar[int] = 400
    title: ClassVar[str] = "Bad request"
    slug: ClassVar[str] = "bad-request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidInput(DomainError):
    status = 422
    title = "Invalid input"
    slug = "invalid-input"


class UnreadableUpload(InvalidInput):
    title = "Unreadable upload"
    slug = "unreadable-upload"


class UnknownEdition(InvalidInput):
    """A declared handout edition the assignment's rubric does not grade; `allowed` lists
    those it does (empty: the rubric has no editions)."""

    title = "Unknown handout edition"
    slug = "unknown-handout"


class PayloadTooLarge(DomainError):
    status = 413
    title = "Upload too large"
    slug = "payload-too-large"


class UnsupportedEncoding(DomainError):
    status = 415
    title = "Unsupported content encoding"
    slug = "unsupported-content-encoding"


class NotAuthenticated(DomainError):
    status = 401
    title = "Not authenticated"
    slug = "not-authenticated"


class NotPermitted(DomainError):
    status = 403
    title = "Not permitted"
    slug = "not-permitted"


class NotFound(DomainError):
    status = 404
    title = "Not found"
    slug = "not-found"


class Conflict(DomainError):
    status = 409
    title = "Conflict"
    slug = "conflict"


class Unavailable(DomainError):
    status = 503
    title = "Service unavailable"
    slug = "unavailable"


class SubmissionRefused(DomainError):
    """An upload the assignment's schedule or limits do not allow; `detail` says what to do."""

    status = 403
    title = "Submission refused"
    slug = "submission-refused"


class NotOpenYet(SubmissionRefused):
    title = "Not open yet"
    slug = "not-open-yet"


class PastCutOff(SubmissionRefused):
    title = "Past the deadline"
    slug = "past-cut-off"


class SubmissionLimitReached(SubmissionRefused):
    status = 409
    title = "Submission limit reached"
    slug = "submission-limit-reached"


class RegradeRefused(Conflict):
    """A regrade request the item's state does not allow (not released, not the submission
    that counts, one already open); `detail` says why."""

    title = "Regrade request refused"
    slug = "regrade-request-refused"


class RegradeLimitReached(RegradeRefused):
    title = "Regrade request limit reached"
    slug = "regrade-request-limit-reached"
