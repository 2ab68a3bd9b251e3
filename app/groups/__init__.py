"""Answer groups: an item's answers clustered, one decision grading a whole group (#15)."""
