"""Active grading of one written item (issue #29): the machine asks, the instructor decides."""
