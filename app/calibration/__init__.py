"""Risk control and exemplars learned from the instructor's grades (issue #13)."""
