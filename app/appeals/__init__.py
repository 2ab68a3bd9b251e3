"""Regrade requests: a student asks for a second look at one released item, staff answer."""
