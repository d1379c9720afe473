"""Asking the finished book (`book ask`, `book mcp`): read-only over the committed files.

- `corpus`: what of the book may be read: the chapters whose file is committed (a valid marker),
  the glossary, the repository map's definitions; the book's revision.
- `index`: those as passages in an SQLite FTS5 index under output/.book/, rebuilt only when
  its inputs change; BM25 search.
- `source`: source lines at the book's revision (the safe reader; `git show` when the work tree
  has moved on), and the citation checks of evidence/ over them.
- `answer`: the extractive answer (offline) and the written one (a model), every citation
  checked before it is printed; `record`: the questions and answers kept in output/asked/.
- `service`: one call for the CLI and the MCP server; `server`: the MCP server (stdio).

Nothing here writes the book: the index and output/asked/ are the only files written, each
atomically, and no lock is taken, so a run may update the book meanwhile."""
