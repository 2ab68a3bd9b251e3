"""What an export would ship that is not final: rows whose submission still needs review, rows
with no student to match (a submission filed under no one, or a student the loaded roster does
not list), no roster at all (an LMS then matches nobody), grades not yet published. The exports
page shows these before a download, the CSV endpoints send them in a header, and a caller can
leave the rows out (`rows=final`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from graders.results import Status

if TYPE_CHECKING:  # the CLI imports this module at start: it stays light
    from app.db.models import RosterStudent
    from app.submissions.service import ScoredSubmission

# `all`: every row, warned about; `final`: rows still in review or without a student left out.
Rows = Literal["all", "final"]
_UNDECIDED = frozenset(
    {Status.NEEDS_REVIEW.value, Status.GRADER_ERROR.value, Status.PENDING.value})


@dataclass(frozen=True)
class ExportCheck:
    roster_loaded: bool
    published: bool
    in_review: tuple[str, ...]  # students whose counting submission still needs a decision
    no_student: tuple[str, ...]  # rows no LMS can match

    @property
    def left_out(self) -> frozenset[str]:
        """The rows `rows=final` leaves out."""
        return frozenset(self.in_review) | frozenset(self.no_student)

    def warnings(self, rows: Rows = "all") -> list[str]:
        out = []
        if not self.roster_loaded:
            out.append("No roster is loaded: the ID and SIS columns are empty and an LMS "
                       "matches no row (gradeformer roster import).")
        if rows == "final" and self.left_out:
            out.append(f"{len(self.left_out)} row(s) left out: still in review or without a "
                       "student.")
        elif self.in_review:
            out.append(f"{len(self.in_review)} row(s) still need review: their totals hold the "
                       "machine's suggestions, not final grades.")
        if self.no_student and rows == "all":
            why = "have no student or are not on the roster" if self.roster_loaded \
                else "have no student"
            out.append(f"{len(self.no_student)} row(s) {why}: an LMS cannot match them.")
        if not self.published:
            out.append("Grades are not published: students do not see them yet.")
        return out

    def header(self, rows: Rows = "all") -> str:
        """The warnings for an HTTP header (ASCII, counts only: no student names)."""
        return " | ".join(self.warnings(rows)).encode("ascii", "replace").decode("ascii")


def check(counted: Mapping[str, ScoredSubmission], roster: Mapping[str, RosterStudent],
          published: bool) -> ExportCheck:
    in_review = tuple(sorted(k for k, s in counted.items() if s.score.status in _UNDECIDED))
    no_student = tuple(sorted(
        k for k, s in counted.items()
        if s.submission.student is None or (roster and k not in roster)))
    return ExportCheck(bool(roster), published, in_review, no_student)


def kept(student: str, found: ExportCheck, rows: Rows) -> bool:
    return rows == "all" or student not in found.left_out
