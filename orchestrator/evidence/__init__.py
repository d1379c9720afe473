"""Evidence: what a book's claims about the code rest on, checked without a model.

- `revision`: the revision of the source (git commit and remote web URL, else a tree hash).
- `cite`: citations `[label](source:PATH#Lm-Ln)` in Markdown, the blocks and sentences they back.
- `resolve`: citations resolved against the source tree; a chapter's coverage.
- `annotate`: citations written from the repository map (the offline writer).
- `claims`: a chapter's claims as data beside it, and their health at a new revision."""
