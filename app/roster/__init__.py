"""The class roster: who is in the course, and the identifiers an LMS knows them by."""
