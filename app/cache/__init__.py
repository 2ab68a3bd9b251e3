"""Storage of the grading result cache (graders/cache) beside the database."""
