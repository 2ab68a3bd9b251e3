"""The handout edition graded: staff's decision (per assignment, per student) over a student's."""
