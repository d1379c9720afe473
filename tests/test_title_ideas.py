"""Issue 35 item 1, the rules an idea title is held to: a docs heading is a chapter's title only
when its section covers the chapter's main definitions (not one detail of them); a chapter's
flow is one of its central names'; a module's own doc says its idea; a role's topic that only
repeats the module's names comes after every way that says an idea."""

from __future__ import annotations

from pathlib import Path

from orchestrator.authoring import project as project_mod
from orchestrator.authoring.ideas import covers, module_doc_title


def test_a_docs_section_about_one_detail_is_not_the_chapters_idea():
    key = ["echo", "format_filename", "get_app_dir", "open_file"]  # click's utils chapter
    detail = "Printing Filenames", "Use `format_filename` to print a path; `echo` it, and `format_filename` again."
    assert not covers(detail[0], detail[1], key, "click")
    # the section names many of the key names, one of the first two among them: it is the chapter's
    types = ["ParamType", "Choice", "IntRange", "DateTime", "FloatRange"]
    assert covers("Built-in Types Listing", "`Choice`, `IntRange`, `FloatRange` and `DateTime` ...", types)
    # or the heading says the central name's word and the section names it twice
    assert covers("Global Context Access", "`get_current_context()` ... `get_current_context`",
                  ["get_current_context", "push_context"])
    # not when the shared word is only the project's name ("Flask Extension Development" for app.py)
    assert not covers("Flask Extension Development", "Flask ... Flask ...", ["Flask", "ensure_sync"], "flask")
    # English-word names (`stdout`, `output`) are no evidence of the testing chapter's idea
    assert not covers("Unicode Output and Input", "stdout stderr output stdout", ["Result", "stdout", "stderr", "output"])


def test_a_modules_doc_says_its_idea():
    assert module_doc_title("Handle WebSocket connections.\n\n# Example") == "Handling WebSocket connections"
    assert module_doc_title("Server-Sent Events (SSE) responses.") == "Server-Sent Events responses"
    assert module_doc_title("Utilities for writing middleware") == "Writing middleware"
    assert module_doc_title("Route to services and handlers based on HTTP methods.") == "Routing to services and handlers"
    for kind in ("Handler future types.", "Rejection response types.", "Package cli provides a minimal framework.",
                 "HTTP body utilities.", "Internal macros"):
        assert module_doc_title(kind) == "", kind


GO_MOD = "module example.com/kit\n\ngo 1.22\n"


def _kit(root: Path) -> Path:
    """A client whose central type's methods are single verbs, and a helper function beside it
    (`createTextDecoder`) that is one detail of the module, not its idea."""
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "kit"}\n')
    body = "\n".join(f"  {m}(x) {{\n    return this.{n}(x) + this.{n}(x);\n  }}\n" for m, n in
                     (("fetch", "retry"), ("retry", "parse"), ("parse", "send"), ("send", "fetch")))
    (root / "client.js").write_text(
        "export class Client {\n" + body + "}\n"
        "export function createTextDecoder() {\n  return 1;\n}\n")
    return root


def test_a_flow_title_comes_from_the_central_names(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_titles

    p = project_mod.load(_kit(tmp_path / "kit"))
    [title] = flow_titles(p, [["client.js"]])
    # not the helper's "Creating a text decoder": the central type's own verbs
    assert title == "How a client fetches and retries", title
