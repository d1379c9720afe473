"""EPUB and PDF exports of the published book.

The interface: `content.from_site(site, meta)` turns the publisher's `Site` (the same
published subset, rendered by the same Markdown renderer as the pages) into an `ExportBook`;
`epub.build(book)` and `pdf.build(book)` turn that into bytes, and `step.export(out_dir, kind,
book)` is the file-system step: its inputs hashed into a sidecar, the file written atomically,
redone only when the inputs change. WeasyPrint (PDF) is imported only when a PDF is built."""

from __future__ import annotations

KINDS = ("epub", "pdf")
