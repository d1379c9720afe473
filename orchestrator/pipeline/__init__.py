"""Running a book: the plan and its walk, one node at a time (generate, validate, commit), gates,
revisions, derived files and publishing, the session around a run, and recovery."""
