"""Doc comments of any language turned into clean, safe Markdown.

A docstring is written for a documentation tool (Sphinx, JSDoc, godoc, rustdoc), not for a
book: its roles (`:class:`Foo``), field lists (`:param x:`), Google and NumPy sections,
directives (`.. versionadded::`), RST underlines, doctests and intra-doc links would leak into
prose as markup. `parse` reads one doc comment into parts (summary, paragraphs, parameters,
result, exceptions, examples, notes); `to_markdown` renders them; `inline` converts one line of
prose. Whatever the source says, the result cannot break the book's validation: headings are
demoted to bold lines (never a `# ` line), marker-like comments are made inert and links that
point inside a documentation site (`/quickstart/`, `api.rst`) are reduced to their text."""

from __future__ import annotations

import re
import textwrap

from .docparts import LABELS, Block, DocParts, Item, render_blocks, render_items  # noqa: F401  (re-exported)
from .markdown import fence, markup_leaks, prose_only, safe  # noqa: F401  (re-exported: one import for callers)
from .markup import _single_backtick_refs, doxygen, first_sentence, html_doc, inline, strip_comment  # noqa: F401

# ---------------------------------------------------------------- block parser

_SECTIONS = {
    "args": "params", "arguments": "params", "parameters": "params", "params": "params", "parameter": "params",
    "keyword args": "params", "keyword arguments": "params", "kwargs": "params", "other parameters": "params",
    "returns": "returns", "return": "returns", "yields": "returns", "yield": "returns",
    "raises": "raises", "raise": "raises", "exceptions": "raises", "throws": "raises", "errors": "raises",
    "panics": "raises",
    "example": "examples", "examples": "examples", "usage": "examples",
    "note": "note", "notes": "note", "warning": "warning", "warnings": "warning", "warns": "warning",
    "see also": "see also", "references": "drop", "attributes": "params_attr", "todo": "drop",
    "methods": "drop", "safety": "warning",
}
_FIELD_RE = re.compile(r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except|exception|"
                       r"yields?|ytype|var|ivar|cvar|vartype|meta)\b\s*([^:]*?)\s*:(?:\s+(.*))?$")
_DIRECTIVE_RE = re.compile(r"^\.\.\s+([\w:-]+)::\s*(.*)$")
_UNDERLINE_RE = re.compile(r"^([=\-~^\"'#*+_.:])\1{2,}\s*$")
_MD_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_LIST_RE = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
_JSDOC_TAG_RE = re.compile(r"^@(\w+)\b\s*(.*)$")
_REFDEF_RE = re.compile(r"^\[[^\]]+\]:\s*\S+")
_RUST_CODE_ATTRS = {"", "rust", "ignore", "no_run", "should_panic", "compile_fail", "edition2015", "edition2018",
                    "edition2021", "edition2024", "test_harness"}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _dedent(lines: list[str]) -> list[str]:
    ind = min((_indent(ln) for ln in lines if ln.strip()), default=0)
    return [ln[ind:] for ln in lines]


def _code_lang(info: str, doc_lang: str) -> str:
    info = info.strip().strip("{}").split(",")[0].strip().lstrip(".")
    if doc_lang == "rust" and info in _RUST_CODE_ATTRS:
        return "rust"
    return info or {"python": "python", "go": "go", "javascript": "js", "typescript": "ts"}.get(doc_lang, "text")


class _Parser:
    def __init__(self, lines: list[str], lang: str, parts: DocParts):
        self.lines, self.lang, self.parts, self.i = lines, lang, parts, 0

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.lines[j] if j < len(self.lines) else ""

    def underlined(self, j: int) -> bool:
        """Line j is an RST title: the next line is a rule of one punctuation character, as long
        as the title (a `~~~` shorter than its title is more likely a code fence)."""
        if j + 1 >= len(self.lines):
            return False
        title, rule = self.lines[j].strip(), self.lines[j + 1].strip()
        if not title or _UNDERLINE_RE.match(title) or not _UNDERLINE_RE.match(rule):
            return False
        return len(rule) >= (len(title) if rule[0] == "~" else min(len(title), 3)) and len(rule) >= 3

    def indented_body(self, base: int) -> list[str]:
        """The lines after the current one indented deeper than `base` (blank lines included)."""
        out = []
        while self.i < len(self.lines):
            ln = self.lines[self.i]
            if ln.strip() and _indent(ln) <= base:
                break
            out.append(ln)
            self.i += 1
        while out and not out[-1].strip():
            out.pop()
        return out

    def run(self) -> None:
        while self.i < len(self.lines):
            self.step()

    def add_code(self, code: list[str], lang: str, example: bool = False) -> None:
        text = "\n".join(_dedent(code)).strip("\n")
        if not text.strip():
            return
        block = Block("code", text, lang)
        last = self.parts.blocks[-1] if self.parts.blocks else None
        if example and last is not None and last.kind == "p" and last.text.rstrip().endswith(":"):
            example = False  # "Here is an example:" introduces it: it stays after its sentence
        (self.parts.examples if example else self.parts.blocks).append(block)

    def step(self) -> None:  # noqa: C901 - one dispatch over the kinds of line
        ln = self.peek()
        s = ln.strip()
        base = _indent(ln)
        if not s or _REFDEF_RE.match(s):  # a blank line, or a link reference definition (rustdoc, Markdown)
            self.i += 1
            return
        if s.startswith(("```", "~~~")):
            fence, info = s[:3], s.lstrip("`~")
            self.i += 1
            code = []
            while self.i < len(self.lines) and not self.peek().strip().startswith(fence):
                code.append(self.peek())
                self.i += 1
            self.i += 1
            lang = _code_lang(info, self.lang)
            if lang == "rust":  # rustdoc hides `# ` lines: they are scaffolding, not the example
                code = [c for c in code if not re.match(r"^\s*#(\s|$)", c)]
            self.add_code(code, lang, example=True)
            return
        if s.startswith(">>>"):
            code = []
            while self.i < len(self.lines):
                cur = self.peek()
                nxt = self.peek(1).strip()
                if not cur.strip():
                    if nxt.startswith(">>>"):  # one example, even when the doctest has blank lines
                        code.append("")
                        self.i += 1
                        continue
                    break
                if _indent(cur) < base:
                    break
                code.append(cur)
                self.i += 1
            self.add_code(code, "python", example=True)
            return
        if self.underlined(self.i):
            title = s
            self.i += 2
            key = title.lower().rstrip(":")
            if key in _SECTIONS:  # a NumPy section
                self.section(_SECTIONS[key], base, numpy=True)
            else:
                self.parts.blocks.append(Block("heading", inline(title)))
            return
        if _UNDERLINE_RE.match(s):  # an overline, or a stray rule: never prose
            self.i += 1
            return
        m = _MD_HEADING_RE.match(s)
        if m and (self.lang != "python" or s.startswith("#" * 1 + " ")):
            key = m.group(1).lower().rstrip(":")
            self.i += 1
            if key in _SECTIONS and _SECTIONS[key] == "examples":
                return  # the code blocks that follow are the examples
            if key in _SECTIONS and _SECTIONS[key] in ("raises", "warning", "note"):
                body = []
                while self.i < len(self.lines) and not _MD_HEADING_RE.match(self.peek().strip()):
                    body.append(self.peek())
                    self.i += 1
                sub = _body("\n".join(body), self.lang)
                label = "safety" if key == "safety" else _SECTIONS[key]
                text = " ".join(b.text for b in sub.blocks if b.kind in ("p", "list"))
                snippets = [b for b in sub.blocks if b.kind == "code"] + sub.examples
                if text and label == "raises":
                    self.parts.raises.append(Item("", "", text))
                elif text:
                    self.parts.notes.append(Item(label, "", text, snippets))
                    snippets = []
                self.parts.deprecated = sub.deprecated or self.parts.deprecated
                self.parts.examples += snippets
                return
            self.parts.blocks.append(Block("heading", inline(m.group(1))))
            return
        m = _DIRECTIVE_RE.match(s)
        if m:
            self.i += 1
            self.directive(m.group(1).lower(), m.group(2), self.indented_body(base))
            return
        if s.startswith(".."):  # a comment or a link target: not for the reader
            self.i += 1
            self.indented_body(base)
            return
        m = _FIELD_RE.match(s)
        if m:
            self.i += 1
            body = self.indented_body(base)
            self.field(m.group(1), m.group(2).strip(), self.sub_text([m.group(3) or ""] + _dedent(body)))
            return
        m = re.match(r"^([A-Za-z][A-Za-z ]{1,20}):\s*$", s)
        if m and m.group(1).lower() in _SECTIONS and (not self.peek(1).strip() or _indent(self.peek(1)) > base
                                                      or self.peek(1).strip().startswith(">>>")):
            self.i += 1
            self.section(_SECTIONS[m.group(1).lower()], base)
            return
        m = _JSDOC_TAG_RE.match(s)
        # (YARD's own tags may have a prefix: liquid's `@liquid_summary`, `@liquid_public_docs`)
        if m and self.lang in _TAG_DOCS and (m.group(1).isalpha() or (self.lang == "ruby" and m.group(1)[:1].isalpha())):
            self.i += 1
            body = []
            while self.i < len(self.lines) and not _JSDOC_TAG_RE.match(self.peek().strip()) and not (
                    m.group(1) != "example" and self.peek().strip().startswith("```")):  # a fence after a tag is its own
                body.append(self.peek())
                self.i += 1
            self.jsdoc(m.group(1), m.group(2), body)
            return
        if base > 0 and self.lang in ("go", "ruby"):  # godoc's and RDoc's indented lines are verbatim code
            self.add_code(self.indented_body(base - 1), self.lang)
            return
        if base >= 4 and self.lang == "python" and self.i and not self.lines[self.i - 1].strip() and \
                self.parts.blocks and self.parts.blocks[-1].text.rstrip().endswith(":"):
            # a Markdown docstring's indented block after "For example:" (Python-Markdown's `Registry`): code
            self.add_code(self.indented_body(base - 1), "python")
            return
        if _LIST_RE.match(s):
            items = []
            while self.i < len(self.lines) and self.peek().strip():
                cur = self.peek()
                if _LIST_RE.match(cur.strip()) and _indent(cur) <= base:
                    items.append(inline(_single_backtick_refs(cur.strip())))
                elif items:
                    items[-1] += " " + inline(_single_backtick_refs(cur.strip()))
                else:
                    break
                self.i += 1
            self.parts.blocks.append(Block("list", "\n".join("- " + _LIST_RE.sub("", it, count=1) for it in items)))
            return
        # a paragraph: up to a blank line or the start of something else
        para: list[str] = []
        while self.i < len(self.lines):
            cur = self.peek().strip()
            if not cur or (para and (cur.startswith((">>>", "```", "~~~", ".. ")) or _FIELD_RE.match(cur)
                                     or _UNDERLINE_RE.match(cur) or _JSDOC_TAG_RE.match(cur) and self.lang != "python"
                                     or self.underlined(self.i))):
                break
            if para and _indent(self.peek()) > base and para[-1].endswith("::"):
                break
            para.append(cur)
            self.i += 1
        text = " ".join(" ".join(para).split())
        literal = text.endswith("::")
        if literal:
            text = text[:-2].rstrip() + (":" if not text[:-2].rstrip().endswith(":") else "")
            text = "" if text == ":" else text
        if text.startswith("Deprecated:") and self.lang == "go":
            self.parts.deprecated = inline(text[len("Deprecated:"):].strip())
        elif text:
            self.parts.blocks.append(Block("p", inline(_single_backtick_refs(text))))
        if literal:
            while self.i < len(self.lines) and not self.peek().strip():
                self.i += 1
            if self.i < len(self.lines) and _indent(self.peek()) > base:
                code_lang = "python" if self.lang in ("python", "") else _code_lang("", self.lang)
                self.add_code(self.indented_body(base), code_lang)

    def sub_text(self, lines: list[str]) -> str:
        """The text of a nested body (a field's, an item's) as one paragraph: its own directives
        and lists are read, not copied; its code goes to the examples."""
        sub = _body("\n".join(lines), self.lang)
        words = [b.text.replace("\n- ", "; ").removeprefix("- ") for b in sub.blocks if b.kind in ("p", "list")]
        words += [f"({LABELS['en'][n.name]} {n.type})".replace(" )", ")") for n in sub.notes if n.name in ("added", "changed")]
        self.parts.examples += [b for b in sub.blocks if b.kind == "code"] + sub.examples
        return " ".join(" ".join(words).split())

    def directive(self, name: str, arg: str, body: list[str]) -> None:
        name = name.split(":")[-1]
        text = " ".join(b.strip() for b in body if b.strip())
        if name in ("code-block", "code", "sourcecode", "doctest", "testcode"):
            body = [b for b in body if not re.match(r"^\s*:\w[\w-]*:", b)]  # the directive's options
            self.add_code(body, arg.strip() or ("python" if name in ("doctest", "testcode") else "text"), example=True)
        elif name in ("versionadded", "versionchanged", "deprecated"):
            version, _, rest = arg.partition(" ")
            desc = inline(_single_backtick_refs(" ".join([rest, text]).strip()))
            if name == "deprecated":
                self.parts.deprecated = (f"{version}: {desc}" if desc else version).strip(": ")
            else:
                self.parts.notes.append(Item("added" if name == "versionadded" else "changed", version, desc))
        elif name in ("note", "warning", "tip", "important", "caution", "danger", "attention", "hint", "seealso",
                      "admonition"):
            kind = {"seealso": "see also", "tip": "note", "hint": "note", "important": "note", "caution": "warning",
                    "danger": "warning", "attention": "warning", "admonition": "note"}.get(name, name)
            sub = _body("\n".join(_dedent(body)), self.lang)
            words = " ".join(b.text for b in sub.blocks if b.kind in ("p", "list"))
            full = " ".join(x for x in [inline(_single_backtick_refs(arg)), words] if x).strip()
            code = [b for b in sub.blocks if b.kind == "code"] + sub.examples
            if full:
                self.parts.notes.append(Item(kind, "", full, code))
            else:
                self.parts.examples += code
        # anything else (autoclass, toctree, image, include, ...) is for the documentation tool

    def field(self, kind: str, arg: str, text: str) -> None:
        if kind in ("param", "parameter", "arg", "argument", "key", "keyword", "var", "ivar", "cvar"):
            words = arg.split()
            name, typ = (words[-1], " ".join(words[:-1])) if words else ("", "")
            name = name.split("=")[0]  # `:param echo=False:`
            existing = next((p for p in self.parts.params if p.name == name), None)
            if existing:
                existing.text = text or existing.text
                existing.type = existing.type or typ
            else:
                self.parts.params.append(Item(name, typ, text))
        elif kind in ("type", "vartype"):
            p = next((p for p in self.parts.params if p.name == arg), None)
            if p:
                p.type = text.strip("`")
            else:
                self.parts.params.append(Item(arg, text.strip("`"), ""))
        elif kind in ("returns", "return", "yields", "yield"):
            self.parts.returns.append(Item("", "", text))
        elif kind in ("rtype", "ytype"):
            if self.parts.returns:
                self.parts.returns[-1].type = text.strip("`")
            else:
                self.parts.returns.append(Item("", text.strip("`"), ""))
        elif kind in ("raises", "raise", "except", "exception"):
            self.parts.raises.append(Item(arg, "", text))

    def section(self, kind: str, base: int, numpy: bool = False) -> None:
        body = self.indented_body(base) if not numpy else self.numpy_body(base)
        if kind == "drop":
            return
        lines = _dedent(body)
        if kind == "examples" and self.lang in _INDENTED_CODE and \
                not any(ln.strip().startswith(("```", "~~~", ">>>")) for ln in body):
            # Go marks code by indenting it, and so do Express-style JSDoc comments (`Examples:`
            # then `    res.send('<p>some html</p>');`): what is indented under `Example:` is the
            # example (read as a doc of its own, dedented, it would be taken for a paragraph)
            self.add_code(body, _code_lang("", self.lang), example=True)
            return
        if kind in ("examples", "note", "warning", "see also"):
            sub = _body("\n".join(lines), self.lang)
            code = [b for b in sub.blocks if b.kind == "code"] + sub.examples
            if kind == "examples":
                self.parts.examples += code
                self.parts.blocks += [b for b in sub.blocks if b.kind != "code"]
            else:
                text = " ".join(b.text for b in sub.blocks if b.kind in ("p", "list"))
                if text:
                    self.parts.notes.append(Item(kind, "", text, code))
                else:
                    self.parts.examples += code
            return
        items: list[list[str]] = []
        for ln in lines:
            if not ln.strip():
                continue
            if _indent(ln) == 0 or not items:
                items.append([ln.strip()])
            else:
                items[-1].append(ln.strip())
        for it in items:
            head, rest = it[0], it[1:]
            if numpy:
                name, _, typ = head.partition(" : ") if " : " in head else (head, "", "")
                if kind == "returns" and not typ:
                    name, typ = "", name
                item = Item(name.strip(), typ.strip(), " ".join(rest))
            else:
                m = re.match(r"^\*{0,2}([\w.\[\], |]+?)\*{0,2}\s*(?:\(([^)]*)\))?\s*:\s*(.*)$", head)
                if m and (kind != "returns" or m.group(2) or " " not in m.group(1).strip()):
                    item = Item(m.group(1).strip(), (m.group(2) or "").strip(), " ".join([m.group(3)] + rest).strip())
                    if kind == "returns":
                        item = Item("", item.name if not item.type else item.type, item.text)
                    if kind == "raises":
                        item = Item(item.name, "", item.text)
                else:
                    item = Item("", "", " ".join(it))
            item.text = inline(_single_backtick_refs(item.text))
            target = {"params": self.parts.params, "params_attr": self.parts.params, "returns": self.parts.returns,
                      "raises": self.parts.raises}[kind]
            target.append(item)

    def numpy_body(self, base: int) -> list[str]:
        """A NumPy section runs to the next section header (a line underlined) or the end."""
        out = []
        while self.i < len(self.lines):
            if self.underlined(self.i):
                break
            out.append(self.peek())
            self.i += 1
        while out and not out[-1].strip():
            out.pop()
        return out

    def jsdoc(self, tag: str, rest: str, body: list[str]) -> None:
        text = " ".join([rest.strip()] + [b.strip() for b in body if b.strip()]).strip()
        tag = tag.lower()
        if "_" in tag and self.lang == "ruby":  # a tool's tag (`@liquid_type`), unless it is a summary or description
            tag = tag.rsplit("_", 1)[1] if tag.endswith(("_summary", "_description")) else "internal"
        if self.lang in ("php", "ruby"):  # PHPDoc's `@param Type $name …`, YARD's `@param name [Type] …`: as JSDoc writes them
            if self.lang == "php" and tag in ("return", "returns", "throws", "var"):
                text = re.sub(r"^([^\s{$]+)", r"{\1}", text)  # `@return Type …`: the type comes first
            text = re.sub(r"^([^\s$]+)\s+\$(\w+)", r"{\1} \2", text) if self.lang == "php" else \
                re.sub(r"^(\w+)\s+\[([^\]]*)\]", r"{\2} \1", re.sub(r"^\[([^\]]*)\]", r"{\1}", text))
        if tag in ("param", "arg", "argument", "property", "prop"):
            m = re.match(r"^(?:\{(.*?)\}\s*)?(\[[^\]]*\]|[\w.$]+)\s*(?:-\s*)?(.*)$", text)
            if m:
                name = m.group(2).strip("[]").split("=")[0]
                self.parts.params.append(Item(name, m.group(1) or "", inline(m.group(3))))
        elif tag in ("returns", "return"):
            m = re.match(r"^(?:\{(.*?)\}\s*)?(?:-\s*)?(.*)$", text)
            self.parts.returns.append(Item("", (m.group(1) or "") if m else "", inline(m.group(2) if m else text)))
        elif tag in ("throws", "throw", "exception"):
            m = re.match(r"^(?:\{(.*?)\}\s*)?(?:-\s*)?(.*)$", text)
            self.parts.raises.append(Item((m.group(1) or "") if m else "", "", inline(m.group(2) if m else text)))
        elif tag == "example":
            lines = [rest] + body if rest.strip() else body
            joined = "\n".join(lines).strip("\n")
            if "```" in joined:
                sub = _body(joined, self.lang)
                self.parts.examples += sub.examples
            else:
                self.add_code(lines, _code_lang("", self.lang), example=True)
        elif tag == "deprecated":
            self.parts.deprecated = inline(text) or "deprecated"
        elif tag in ("note", "warning"):  # Doxygen's \note and \warning (docstrings.doxygen)
            if text:
                self.parts.notes.append(Item(tag, "", inline(text)))
        elif tag in ("see", "since"):
            if text:
                self.parts.notes.append(Item("see also" if tag == "see" else "added", "", inline(text)))
        elif tag in ("remarks", "description", "summary"):  # (a body indented under its tag is its text, not code)
            sub = _body("\n".join([rest] + textwrap.dedent("\n".join(body)).splitlines()), self.lang)
            self.parts.blocks += sub.blocks
            self.parts.examples += sub.examples
        # @template, @typedef, @internal, @private, @default, @category ...: for tools, not readers


_INDENTED_CODE = frozenset({"go", "javascript", "typescript", "tsx", "c", "cpp"})
# doc comments whose `@param x …`, `@return …` lines are tags (JSDoc, Javadoc, KDoc, PHPDoc, Scaladoc, YARD, LDoc)
_TAG_DOCS = frozenset({"javascript", "typescript", "tsx", "java", "c", "cpp", "", "kotlin", "scala", "php", "ruby",
                       "lua", "csharp"})  # (C#'s XML `<param>` is read as `@param`: repo.lang_rules.tidy_doc)
# Languages whose doc comments are HTML (Javadoc and its heirs). Elsewhere `<p>` in a doc is
# content: Express documents `res.send('<p>some html</p>')`, and `inline` shows such tags as code.
_HTML_DOCS = frozenset({"java", "kotlin", "scala", "groovy"})


def parse(doc: str, lang: str = "") -> DocParts:
    """A doc comment (with or without its comment syntax) read into parts. `lang` is the
    source's language (python, go, rust, javascript, typescript, ...): it decides what an
    indented block or a `# ` line means."""
    parts = DocParts()
    if not doc or not doc.strip():
        return parts
    text = strip_comment(doc).replace("\t", "    ")
    if lang in _HTML_DOCS:  # Javadoc: `<p>`, `<pre>{@code …}</pre>`, `&lt;` are markup, not text
        text = html_doc(text, lang)
    elif lang in ("c", "cpp"):  # Doxygen: `\brief`, `@param[in] x`, `\code … \endcode`
        text = doxygen(text, lang)
    _Parser(text.splitlines(), lang, parts).run()
    return parts


def _body(text: str, lang: str) -> DocParts:
    """A nested body (a section's, a note's), already without comment syntax: read as it is,
    since `strip_comment`'s cleandoc would dedent every line after the first and turn the code
    under a `Note: call it so::` into prose."""
    parts = DocParts()
    _Parser(text.splitlines(), lang, parts).run()
    return parts


def to_markdown(doc: str, lang: str = "", language: str = "en") -> str:
    """The whole doc comment as safe Markdown: description, parameters, result, exceptions,
    notes and examples, labelled in the book's language."""
    p = parse(doc, lang)
    lab = LABELS.get(language, LABELS["en"])
    out = render_blocks(p.blocks)
    if p.deprecated:
        out.append(f"**{lab['deprecated']}**: {p.deprecated}")
    for key, items in (("params", p.params), ("returns", p.returns), ("raises", p.raises)):
        if items:
            out.append(f"**{lab[key]}**\n\n" + "\n".join(render_items(items)))
    for n in p.notes:
        label = lab.get(n.name, n.name)
        ver = f" {n.type}" if n.type else ""
        out.append(safe(f"**{label}{ver}**" + (f": {n.text}" if n.text else "")))
        out += [fence(c.text, c.lang or "text") for c in n.code]
    for ex in p.examples:
        out.append(fence(ex.text, ex.lang or "text"))
    return "\n\n".join(x for x in out if x.strip())
