"""The scale path: the same grading function in Celery workers (Redis broker, PostgreSQL)."""
