"""Text rules shared by the checks and the publisher (one reading of Markdown)."""
