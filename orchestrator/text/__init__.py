"""Text rules: Markdown as the checks and the publisher read it, and docstrings turned into Markdown."""
