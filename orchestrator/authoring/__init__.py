"""The offline provider's authors (planner, researcher, writer), built on the repository map.

Each takes the context `agents.gather` built (it needs `source_root`; `state_db`, when given,
caches the parsed files) and returns Markdown in the book's language. The map is built once
per process and tree state (project.load); tree-sitter is imported only then. The provider calls
them from authors.py."""
