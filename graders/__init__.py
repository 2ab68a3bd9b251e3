"""gradeformer's grading core: documents in, item results out. No web, no database."""
