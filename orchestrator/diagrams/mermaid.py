"""The Mermaid subset the book writes, renders and checks: `flowchart`/`graph`,
`sequenceDiagram` and `classDiagram`, read strictly.

A block is parsed into a Diagram (nodes, edges, members) or refused with MermaidError naming
the line. The subset is chosen so that what parses here also parses in Mermaid itself
(GitHub, mkdocs): labels with brackets or parentheses must be quoted, as Mermaid demands, and
what this module does not know (subgraphs, notes, loops, styling) is an error, not silently
dropped. `identifiers()` lists every text a reader takes for a name of the code (node labels,
participants, messages, classes and members): the checks hold each one to the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

KINDS = ("flowchart", "sequence", "class")
MAX_NODES = 60  # a diagram with more is unreadable on a page: refused, not squeezed


class MermaidError(ValueError):
    """A block that would not render; `line` is 1-based within the block."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class Node:
    id: str
    label: str          # what is shown; the id when no label was given
    shape: str = "rect"  # rect, round, stadium, subroutine, circle, rhombus, hexagon
    line: int = 0


@dataclass
class Edge:
    src: str
    dst: str
    label: str = ""
    style: str = "solid"    # solid, dotted, thick
    arrow: str = "arrow"     # arrow, none, cross, open (sequence), and for classes:
    # inherit, compose, aggregate, realize, depend, assoc
    line: int = 0


@dataclass
class Diagram:
    kind: str
    direction: str = "TB"
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    members: dict[str, list[str]] = field(default_factory=dict)  # class id -> member lines
    source: str = ""

    def node(self, nid: str, line: int, label: str | None = None, shape: str | None = None) -> Node:
        n = self.nodes.get(nid)
        if n is None:
            if len(self.nodes) >= MAX_NODES:
                raise MermaidError(line, f"more than {MAX_NODES} nodes: split the diagram")
            n = self.nodes[nid] = Node(nid, label if label is not None else nid, shape or "rect", line)
        elif label is not None:
            n.label, n.shape = label, shape or n.shape
        return n

    def identifiers(self) -> list[tuple[int, str, str]]:
        """(line, what, name) of every name the diagram shows: what is `node`, `participant`,
        `message`, `edge`, `class` or `member`. A message to a participant that is a type names
        its method (`Store` + `get()` → `Store.get`; `Store()` is the type itself); a member is
        `Class.member`; a trailing argument list is dropped."""
        what = {"flowchart": "node", "sequence": "participant", "class": "class"}[self.kind]
        out = [(n.line, what, bare(n.label)) for n in self.nodes.values()]
        for e in self.edges:
            if not e.label:
                continue
            name = bare(e.label)
            if self.kind == "sequence":
                target = bare(self.nodes[e.dst].label)
                if not is_path(target) and "." not in name:
                    name = target if name == target.rsplit(".", 1)[-1] else f"{target}.{name}"
                out.append((e.line, "message", name))
            else:
                out.append((e.line, "edge", name))
        for cid, members in self.members.items():
            for m in members:
                name = member_name(m)
                if name:
                    out.append((self.nodes[cid].line, "member", f"{cid}.{name}"))
        return out


_SOURCE_EXTS = frozenset(("py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "rs", "c", "h", "cc", "cpp",
                          "hpp", "hh", "cxx", "java", "kt", "rb", "php", "md", "toml", "json", "yaml", "yml",
                          # the languages read since issue 33, and those read by their lines
                          "cs", "kts", "swift", "scala", "sc", "ex", "exs", "lua", "zig", "hs", "dart", "erl", "jl"))


def is_path(text: str) -> bool:
    """A label that names a file or directory (`src/app.py`, `minikv/`), not a definition."""
    return "/" in text or (text.rsplit(".", 1)[-1] in _SOURCE_EXTS and "." in text)


def bare(text: str) -> str:
    """`get(key)` → `get`; `Flask.wsgi_app()` → `Flask.wsgi_app`; `a::b` → `a.b`."""
    text = re.sub(r"\s*\([^()]*\)\s*$", "", text.strip())
    return text if is_path(text) else text.replace("::", ".")


_ID = r"[A-Za-z_]\w*"
_QUOTED = r'"[^"\n]*"'
_PLAIN = r'[^\[\](){}"|<>;\n]+'
# opener -> (closer, shape); the longest opener is tried first
_SHAPES = [("([", "])", "stadium"), ("[[", "]]", "subroutine"), ("((", "))", "circle"), ("{{", "}}", "hexagon"),
           ("[", "]", "rect"), ("(", ")", "round"), ("{", "}", "rhombus")]
# flowchart links: text -> (style, arrow)
_LINKS = [("-.->", "dotted", "arrow"), ("-.-", "dotted", "none"), ("==>", "thick", "arrow"), ("===", "thick", "none"),
          ("-->", "solid", "arrow"), ("---", "solid", "none"), ("--x", "solid", "cross"), ("--o", "solid", "circle")]
_DIRECTIONS = {"TB", "TD", "BT", "LR", "RL"}
_FLOW_HEAD = re.compile(r"^(?:flowchart|graph)(?:\s+(\w+))?\s*;?$")


def parse(text: str) -> Diagram:
    """The diagram of one Mermaid block's text (the fence's content), or MermaidError."""
    lines = text.replace("\r\n", "\n").split("\n")
    body = [(i, _strip_comment(ln)) for i, ln in enumerate(lines, 1)]
    body = [(i, ln) for i, ln in body if ln]
    if not body:
        raise MermaidError(1, "the diagram is empty")
    first, head = body[0]
    if head.startswith("---") or head.startswith("%%{"):
        raise MermaidError(first, "front matter and directives are not supported: start with the diagram type")
    m = _FLOW_HEAD.match(head)
    if m:
        direction = (m.group(1) or "TB").upper()
        if direction not in _DIRECTIONS:
            raise MermaidError(first, f"unknown flowchart direction {m.group(1)!r} (TB, TD, BT, LR or RL)")
        d = Diagram("flowchart", "TB" if direction == "TD" else direction, source=text)
        for i, ln in body[1:]:
            for stmt in _split_statements(ln, i):
                _flow_statement(d, stmt, i)
    elif head == "sequenceDiagram":
        d = Diagram("sequence", "LR", source=text)
        for i, ln in body[1:]:
            _sequence_statement(d, ln, i)
    elif head == "classDiagram":
        d = Diagram("class", "TB", source=text)
        _class_body(d, body[1:])
    else:
        raise MermaidError(first, f"unsupported diagram type {head.split()[0]!r}: "
                                  "use flowchart, graph, sequenceDiagram or classDiagram")
    if not d.nodes:
        raise MermaidError(first, "the diagram has no nodes")
    return d


def _strip_comment(ln: str) -> str:
    s = ln.strip()
    return "" if s.startswith("%%") and not s.startswith("%%{") else s


def _split_statements(ln: str, i: int) -> list[str]:
    """A flowchart line may hold several statements separated by `;` (outside quotes)."""
    out: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in ln:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if quoted:
        raise MermaidError(i, "a quoted label is never closed")
    out.append("".join(cur).strip())
    return [s for s in out if s]


def _label(text: str, i: int) -> str:
    text = text.strip()
    if text.startswith('"'):
        if not (len(text) >= 2 and text.endswith('"')) or '"' in text[1:-1]:
            raise MermaidError(i, f"a label must be one quoted string: {text[:60]}")
        text = text[1:-1].strip()
    elif not re.fullmatch(_PLAIN, text):
        raise MermaidError(i, f"the label {text[:60]!r} has brackets, quotes or `|`: quote it (\"...\")")
    if not text:
        raise MermaidError(i, "an empty label")
    if "#" in text or "`" in text:
        raise MermaidError(i, f"`#` and backquotes in labels are Mermaid markup: {text[:60]!r}")
    return text


def _node_at(d: Diagram, s: str, pos: int, i: int) -> int:
    """Read one node (`id`, `id["label"]`, `id(label)` …) at s[pos:]; return where it ends."""
    m = re.compile(_ID).match(s, pos)
    if not m:
        raise MermaidError(i, f"a node id is expected at {s[pos:pos + 30]!r}")
    nid = m.group(0)
    if nid in ("end", "subgraph", "style", "classDef", "class", "click", "linkStyle", "direction"):
        raise MermaidError(i, f"`{nid}` is not in the subset rendered here (no subgraphs or styling)")
    pos = m.end()
    for opener, closer, shape in _SHAPES:
        if s.startswith(opener, pos):
            end = _closing(s, pos + len(opener), closer, i)
            d.node(nid, i, _label(s[pos + len(opener):end], i), shape)
            return end + len(closer)
    d.node(nid, i)
    return pos


def _closing(s: str, start: int, closer: str, i: int) -> int:
    k = start
    if s.startswith('"', k):
        q = s.find('"', k + 1)
        if q < 0:
            raise MermaidError(i, "a quoted label is never closed")
        k = q + 1
    end = s.find(closer, k)
    if end < 0:
        raise MermaidError(i, f"`{closer}` expected to close the label")
    return end


def _flow_statement(d: Diagram, s: str, i: int) -> None:
    if s in ("end",) or s.startswith(("subgraph", "style ", "classDef", "class ", "click ", "linkStyle")):
        raise MermaidError(i, f"{s.split()[0]!r} is not in the subset rendered here (no subgraphs or styling)")
    if s.startswith("direction"):
        raise MermaidError(i, "`direction` belongs to subgraphs, which are not supported")
    pos = _skip(s, _node_at(d, s, 0, i))
    prev = _last_id(s)
    while pos < len(s):
        for link, style, arrow in _LINKS:  # noqa: B007  (the link found is the one drawn)
            if s.startswith(link, pos):
                pos += len(link)
                break
        else:
            raise MermaidError(i, f"a link (-->, ---, -.->, ==>) is expected at {s[pos:pos + 30]!r}")
        pos = _skip(s, pos)
        label = ""
        if s.startswith("|", pos):
            end = s.find("|", pos + 1)
            if end < 0:
                raise MermaidError(i, "a link label `|...|` is never closed")
            label = _label(s[pos + 1:end], i)
            pos = _skip(s, end + 1)
        start = pos
        pos = _skip(s, _node_at(d, s, pos, i))
        dst = _last_id(s[start:])
        d.edges.append(Edge(prev, dst, label, style, arrow, i))
        prev = dst


def _last_id(s: str) -> str:
    m = re.match(_ID, s)
    return m.group(0) if m else ""


def _skip(s: str, pos: int) -> int:
    while pos < len(s) and s[pos] in " \t":
        pos += 1
    return pos


# ------------------------------------------------------------------ sequence diagrams

_SEQ_ARROWS = [("-->>", "dotted", "arrow"), ("->>", "solid", "arrow"), ("--x", "dotted", "cross"),
               ("-x", "solid", "cross"), ("--)", "dotted", "open"), ("-)", "solid", "open"),
               ("-->", "dotted", "none"), ("->", "solid", "none")]
_PARTICIPANT = re.compile(r"^(participant|actor)\s+(\w+)(?:\s+as\s+(.+))?$")
_MESSAGE = re.compile(r"^(\w+)\s*(-->>|->>|--x|-x|--\)|-\)|-->|->)\s*[+-]?\s*(\w+)\s*:\s*(.*)$")
_SEQ_TEXT = re.compile(r'^[^;#<>"\n]+$')


def _sequence_statement(d: Diagram, s: str, i: int) -> None:
    if s == "autonumber":
        return
    m = _PARTICIPANT.match(s)
    if m:
        label = (m.group(3) or m.group(2)).strip()
        if not _SEQ_TEXT.match(label):
            raise MermaidError(i, f"the participant label {label!r} has `;`, `#`, `<`, `>` or quotes")
        d.node(m.group(2), i, label, "actor" if m.group(1) == "actor" else "rect")
        return
    m = re.match(r"^(activate|deactivate)\s+(\w+)$", s)
    if m:
        if m.group(2) not in d.nodes:
            raise MermaidError(i, f"{m.group(1)} names {m.group(2)!r}, which is no participant yet")
        return
    m = _MESSAGE.match(s)
    if not m:
        word = s.split()[0]
        if word in ("Note", "loop", "alt", "else", "opt", "par", "and", "rect", "end", "critical", "break", "box"):
            raise MermaidError(i, f"`{word}` is not in the subset rendered here (participants, messages, activate)")
        raise MermaidError(i, f"not a participant or a message: {s[:60]!r}")
    src, arrow_text, dst, text = m.groups()
    text = text.strip()
    if not text:
        raise MermaidError(i, "a message needs its text after `:`")
    if not _SEQ_TEXT.match(text):
        raise MermaidError(i, f"the message {text[:60]!r} has `;`, `#`, `<`, `>` or quotes")
    style, arrow = next((st, ar) for a, st, ar in _SEQ_ARROWS if a == arrow_text)
    d.node(src, i)
    d.node(dst, i)
    d.edges.append(Edge(src, dst, text, style, arrow, i))


# ------------------------------------------------------------------ class diagrams

# relation text -> (arrow kind, style, whether the marker sits at the left end)
_CLASS_RELS = [("<|--", "inherit", "solid", True), ("--|>", "inherit", "solid", False),
               ("<|..", "realize", "dotted", True), ("..|>", "realize", "dotted", False),
               ("*--", "compose", "solid", True), ("--*", "compose", "solid", False),
               ("o--", "aggregate", "solid", True), ("--o", "aggregate", "solid", False),
               ("<--", "assoc", "solid", True), ("-->", "assoc", "solid", False),
               ("<..", "depend", "dotted", True), ("..>", "depend", "dotted", False),
               ("--", "link", "solid", False), ("..", "link", "dotted", False)]
_CLASS_ID = r"[A-Za-z_]\w*"
_RELATION = re.compile(rf"^({_CLASS_ID})\s*(<\|--|--\|>|<\|\.\.|\.\.\|>|\*--|--\*|o--|--o|<--|-->|<\.\.|\.\.>|--|\.\.)"
                       rf"\s*({_CLASS_ID})\s*(?::\s*(.+))?$")
_MEMBER = re.compile(r"^[+\-#~]?[A-Za-z_$][\w$]*(?:\([^(){}\n]*\))?(?:\s*[\w\[\],.<>*&$ ]*)?$")
_CLASS_TEXT = re.compile(r'^[^;#<>"{}\n]+$')


def member_name(m: str) -> str:
    """`+get(key) str` → `get`; `-count int` → `count`."""
    hit = re.match(r"^[+\-#~]?([A-Za-z_$][\w$]*)", m.strip())
    return hit.group(1) if hit else ""


def _class_body(d: Diagram, body: list[tuple[int, str]]) -> None:
    open_class: str | None = None
    opened_at = 0
    for i, s in body:
        if open_class is not None:
            if s == "}":
                open_class = None
                continue
            _member(d, open_class, s, i)
            continue
        if re.match(r"^direction\s+(TB|BT|LR|RL)$", s):
            d.direction = s.split()[1]
            continue
        m = re.match(rf"^class\s+({_CLASS_ID})\s*(\{{)?\s*$", s)
        if m:
            d.node(m.group(1), i)
            d.members.setdefault(m.group(1), [])
            if m.group(2):
                open_class, opened_at = m.group(1), i
            continue
        if s.startswith("class "):
            raise MermaidError(i, f"a class is `class Name` or `class Name {{` (no generics or labels here): {s[:60]!r}")
        m = re.match(rf"^({_CLASS_ID})\s*:\s*(.+)$", s)
        if m and not _RELATION.match(s):
            d.node(m.group(1), i)
            _member(d, m.group(1), m.group(2), i)
            continue
        m = _RELATION.match(s)
        if not m:
            word = s.split()[0]
            if word in ("note", "namespace", "style", "classDef", "cssClass", "click", "link", "callback"):
                raise MermaidError(i, f"`{word}` is not in the subset rendered here (classes, members, relations)")
            raise MermaidError(i, f"not a class, a member or a relation: {s[:60]!r}")
        left, rel, right, label = m.groups()
        arrow, style, at_left = next((a, st, lft) for r, a, st, lft in _CLASS_RELS if r == rel)
        label = (label or "").strip()
        if label and not _CLASS_TEXT.match(label):
            raise MermaidError(i, f"the relation label {label[:60]!r} has markup characters")
        for c in (left, right):
            d.node(c, i)
            d.members.setdefault(c, [])
        # stored pointing at the marked end: the parent of `Base <|-- Child` is dst
        src, dst = (right, left) if at_left else (left, right)
        d.edges.append(Edge(src, dst, label, style, arrow, i))
    if open_class is not None:
        raise MermaidError(opened_at, f"the body of class {open_class} is never closed with `}}`")


def _member(d: Diagram, cid: str, text: str, i: int) -> None:
    text = text.strip()
    if not _MEMBER.match(text):
        raise MermaidError(i, f"not a member (`+name(args) Type`): {text[:60]!r}")
    d.members.setdefault(cid, []).append(text)
