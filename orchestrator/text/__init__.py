"""Text rules: Markdown, and docstrings turned into Markdown."""
