"""The state of a book, read from and written to its file tree: files, markers, the ledger, the scan."""
