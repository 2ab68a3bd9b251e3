"""The `choice` grader kind: multiple choice (one or several correct choices, optional partial
credit per choice) and exact match of short strings, as LMS quiz exports need."""
