"""book: write a technical book about a codebase with a team of LLM agents.

The file system is the state: every output file ends with a completion marker, and
everything the tool knows can be rebuilt from the files (see README.md)."""

__version__ = "0.1.0"
