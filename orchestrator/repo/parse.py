"""One source file → its FileMap: definitions, imports and the names it references.

The map is name-based, as in Aider's repository map: a file "references" every identifier it
uses outside the names it defines, and the ranking (rank.py) links a reference to the files
that define that name. Nothing here resolves types or scopes; that keeps every language to
a few queries (languages.py) and a little per-language tidying below.

tree_sitter is imported only through languages.grammar(), on first use.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from . import commonjs, lang_rules
from .aliases import other_names
from .definitions import Definition, Source, clean_comment, comment_block, definition, docstring
from .languages import SUPPORTED, grammar, query_cursor

__all__ = ["PARSER_VERSION", "Definition", "FileMap", "parse_source"]

# Bump when what parse_source extracts changes: cached FileMaps of another version are ignored.
PARSER_VERSION = 31  # 31: a Kotlin `val x by lazy { … }` of a class is a method; 30: a Kotlin call of a function named `dynamic` parsed as a call; 29: a JS/TS function written in parentheses, or cast (`const f = (…) => … as F`); 28: the `this.x = function` members of a constructor function assigned to its name (`a.X = function (…) {…}`); 27: a JS/TS module's `export { _Object_ as Object }` names `_Object_`; 26: the methods of C# 14's `extension(T x) { … }` blocks, a C# `#if` without `#else` blanked; 25: a bodiless declaration's signature past its annotation lines (`@Throws(…)⏎ fun execute()`); 24: the function members of a JS module's own `const t = { … }` are t's methods; 23: a licence banner above a doc comment is no part of it; 22: the body of a JS factory whose call the module exports (`export default createDOMPurify()`); 21: a C# pointer's `*` (`*(pointer - 1)`) blanked for the grammar; 20: a Go interface's methods (`Renderer.RenderNode`); 19: a Python class body's `_parse = _parseNoCache` names the method; 18: the members of `X.prototype = { … }` are X's methods; 17: a Ruby class's `alias x new` names its `initialize`; 16: a Ruby method's `alias`/`alias_method` names, a JS module wrapper's (UMD, IIFE) declarations; 15: a Ruby directive (`# :nocov:`) is no doc; 14: a Kotlin nested class whose constructor starts the next line; 13: the members of ESM's `export default { … }`; 12: a JS declaration exported by its name (module.exports.load = load); 11: C# read with the first branch of each #if, TS overload declarations merged; 9: C#, Ruby, Kotlin, PHP, Swift, Scala, Elixir, Lua; CommonJS exports; 10: a TS class exported under an alias, a Java package's doc, a class field holding a function

@dataclass
class FileMap:
    language: str | None
    definitions: list[Definition] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)
    references: dict[str, int] = field(default_factory=dict)
    imported: dict[str, str] = field(default_factory=dict)  # local name → module it comes from
    doc: str = ""                # module docstring, Rust //!, Go package comment
    lexical: bool = False        # read by its lines (repo/lexical.py): no grammar reads its language
    has_main: bool = False       # an entry point: __main__ guard, Go package main, fn main ...
    lines: int = 0
    error: str | None = None     # why the file could not be read or parsed (then it is empty)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileMap:
        defs = [Definition(**d) for d in data.get("definitions", [])]
        return cls(**{**data, "definitions": defs})


_IGNORED_REFS = frozenset({"self", "cls", "this", "super", "_"})
# Python's builtins are never the repository's own names, even where it defines one alike.
_PY_BUILTINS = frozenset(n for n in dir(__import__("builtins")) if not n.startswith("_"))
def parse_source(source: bytes | str, lang: str) -> FileMap:
    """Parse one file's text in ``lang``. Never raises: a failure gives an empty map with ``error``."""
    try:
        data = source.encode("utf-8") if isinstance(source, str) else source
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode("utf-8")  # strict: a file that is not UTF-8 text is reported, not guessed
    except (UnicodeDecodeError, UnicodeEncodeError) as exc:
        return FileMap(language=lang, error=f"not UTF-8 text ({exc.reason} at byte {exc.start})")
    if lang not in SUPPORTED:
        from .lexical import read_lines

        defs, imports, refs, doc = read_lines(text)
        return FileMap(language=lang, definitions=defs, imports=imports, references=refs, doc=doc, lexical=True,
                       lines=text.count("\n") + (0 if text.endswith("\n") or not text else 1),
                       has_main=text.startswith("#!") or any(d.name == "main" for d in defs))
    try:
        return _extract(Source(data, lang))
    except Exception as exc:  # a grammar or extraction bug must not stop the whole map
        return FileMap(language=lang, error=f"parse failed: {type(exc).__name__}: {exc}")


# C/C++ macros the grammar cannot expand and that break the declaration they stand in:
# `FMT_BEGIN_NAMESPACE` alone on a line, `FMT_CONSTEXPR auto f()`, `REDIS_API int g()`. A macro
# name (capitals with an underscore) alone on a line or right before a keyword is blanked for
# the parser only (with spaces: byte offsets, and so the code shown, stay the source's own).
_C_MACRO_WORDS = re.compile(
    rb"(?m)^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*$"
    rb"|\b[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?(?=[ \t]+(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+)*(?:auto|void|inline|static"
    rb"|constexpr|explicit|virtual|friend|bool|int|char|unsigned|signed|long|short|double|float|const|struct"
    rb"|class|enum|union|typename|template|size_t|std::)\b)")


_KT_DYNAMIC_CALL = re.compile(rb"(?<![\w.`])dynamic(?=\s*\()")
_CS_DEREF = re.compile(rb"(?<=[(\[,=!&|?:;{}\s])\*(?=[(A-Za-z_])")


def _masked(src: Source) -> bytes:
    if src.lang == "csharp":  # (and an unsafe pointer's `*` blanked: the grammar loses all of Cronos'
        # CronParser.cs, a root ERROR, at `ToUpper(*(pointer - 1))`)
        return _CS_DEREF.sub(b" ", _first_branches(src.data))
    if src.lang == "kotlin":  # (and a call of a function named `dynamic`, a word the grammar takes for the JS type only:
        # konform's `= dynamic(this, this, init)` loses all of its ValidationBuilder.kt; the call is spelt `dynami_`)
        return _KT_DYNAMIC_CALL.sub(b"dynami_", _kotlin_headers(src.data))
    if src.lang not in ("c", "cpp"):
        return src.data
    return _C_MACRO_WORDS.sub(lambda m: b" " * len(m.group(0)), src.data)


# a class inside a class whose constructor starts the next line (kotlinpoet's `public class Builder⏎
# internal constructor(⏎ …`): the Kotlin grammar loses the whole outer class on it
_KT_CTOR_LINE = re.compile(rb"(?m)^[ \t]+(?:(?:public|internal|private|protected|data|open|abstract|sealed|inner|"
                           rb"final)[ \t]+)*class[ \t]+\w+(?:<[^>\n]*>)?[ \t]*(\n[ \t]*)(?:@\w+[ \t]+)*"
                           rb"(?:(?:public|internal|private|protected)[ \t]+)?constructor\b")


def _kotlin_headers(data: bytes) -> bytes:
    """Kotlin with such a constructor moved up onto its class's line, for the parser only: the line break
    before it becomes spaces, and the next line's first indentation character a line break (every byte
    and every later line stay where they are)."""
    out = bytearray(data)
    for m in _KT_CTOR_LINE.finditer(data):
        nxt = re.compile(rb"\n[ \t]").search(data, m.end())
        if nxt is None:
            continue
        out[m.start(1):m.end(1)] = b" " * (m.end(1) - m.start(1))
        out[nxt.start() + 1] = ord("\n")
    return bytes(out)


_CS_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|elif|else|endif)\b")


def _first_branches(data: bytes) -> bytes:
    """C# with only the first branch of each `#if`: markdig's `#if NET … for (…) { … #else for (…) {
    … #endif` opens a brace in each branch, and a grammar that reads both sees one too many and
    loses the class. The directives and the other branches are blanked for the parser only (spaces,
    line breaks kept): it reads the code one build compiles. A directive alone is blanked too:
    RestSharp's `#if NET⏎ if (…) {⏎ #endif` inside a method loses the grammar its whole class."""
    if b"#if" not in data:
        return data
    out: list[bytes] = []
    stack: list[bool] = []  # per open `#if`: is its current branch blanked
    for line in data.splitlines(keepends=True):
        m = _CS_DIRECTIVE.match(line)
        word = m.group(1) if m else None
        if word == b"if":
            stack.append(bool(stack and stack[-1]))  # inside a blanked branch, all of it is blanked
        elif word in (b"elif", b"else") and stack:
            stack[-1] = True
        blank = word is not None or bool(stack and stack[-1])  # the directives too: the parser sees plain code
        if word == b"endif" and stack:
            stack.pop()
        out.append(re.sub(rb"[^\r\n]", b" ", line) if blank else line)
    return b"".join(out)


def _extract(src: Source) -> FileMap:
    g = grammar(src.lang)
    tree = g.parser.parse(_masked(src))
    root = tree.root_node
    fm = FileMap(language=src.lang, lines=src.data.count(b"\n") + (0 if src.data.endswith(b"\n") else 1))
    if not src.data:
        fm.lines = 0

    found: dict[tuple[int, int], tuple[int, Definition]] = {}
    overloads: set[int] = set()  # id() of the Definitions of `@overload` stubs
    name_nodes: set[int] = set()
    for _pattern, caps in query_cursor(g.defs).matches(root):
        kind_key = next((k for k in caps if k.startswith("def.")), None)
        if kind_key is None or "name" not in caps:
            continue
        node, name_node = caps[kind_key][0], caps["name"][0]
        made = definition(src, node, name_node, kind_key[4:].replace("_", " "))
        if made is None:
            continue
        made_def, name_start = made
        if src.lang == "python" and _is_overload(src, node):
            overloads.add(id(made_def))
        if src.lang in ("typescript", "tsx") and node.type == "function_signature":
            overloads.add(id(made_def))  # `export function marked(src: string): string;`: an overload's declaration
        if made_def.kind != "impl":  # the type an impl names is a use of that type
            name_nodes.add(name_start)
        key = (node.start_byte, node.end_byte)
        # One node can match two patterns (a top-level `const f = () => …` is a function and
        # a constant): the more specific kind wins.
        rank = 1 if made_def.kind in ("constant", "variable") else 0
        if key not in found or rank < found[key][0]:
            found[key] = (rank, made_def)
    fm.definitions = sorted((d for _, d in found.values()), key=lambda d: (d.start_line, d.end_line))
    if src.lang in ("elixir", "haskell"):
        fm.definitions = _merge_clauses(fm.definitions)
    if overloads:
        fm.definitions = _merge_overloads(fm.definitions, overloads)
    other_names(src, fm.definitions)

    imports: list[str] = []
    for n in sorted(query_cursor(g.imports).captures(root).get("import", []), key=lambda n: n.start_byte):
        text = src.text(n).strip().strip("\"'`<>")
        if src.lang == "scala":  # the whole `import a.b.{C => D}`: its path, and the names it binds
            text = " ".join(text.split()).removeprefix("import ").strip()
            for local in re.findall(r"=>\s*(\w+)|(\w+)\s*(?=[,}])|\.(\w+)$", text):
                fm.imported.setdefault(next(x for x in local if x), text)
            text = re.sub(r"\.?\{.*$|\._$|\.\*$", "", text)
        if text and text not in imports:
            imports.append(text)
        if text and n.parent is not None and src.lang in ("python", "javascript", "typescript", "tsx", "rust"):
            for local in _bound_names(src, n.parent):
                fm.imported.setdefault(local, text)
        elif text and src.lang in ("kotlin", "php", "elixir", "csharp"):
            alias = _alias(src, n)  # `import a.B as C`, `use A\\B as C`, `alias Plug.Conn.Utils`
            if alias:
                fm.imported.setdefault(alias, text)
    fm.imports = imports

    foreign = _go_package_names(src, root) if src.lang == "go" else set()
    counts: Counter[bytes] = Counter()
    for nodes in query_cursor(g.refs).captures(root).values():
        for n in nodes:
            if n.start_byte in name_nodes:
                continue
            if foreign and _is_foreign(n, foreign, src):
                continue  # `http.Handler`: another package's name, not one defined here
            counts[src.data[n.start_byte:n.end_byte]] += 1
    if src.lang in ("c", "cpp"):
        counts.update(_macro_body_names(src, root))
    refs = {k.decode("utf-8", "replace"): v for k, v in counts.items()}
    ignored = _IGNORED_REFS | _PY_BUILTINS if src.lang == "python" else \
        _IGNORED_REFS | lang_rules.IGNORED_REFS.get(src.lang, frozenset())
    fm.references = {k: v for k, v in sorted(refs.items()) if k not in ignored}

    fm.doc = lang_rules.file_doc(src, root) if src.lang in lang_rules.LANGS else _file_doc(src, root)
    fm.has_main = _has_main(src, fm)
    if src.lang in ("javascript", "typescript", "tsx"):
        _mark_js_exports(src, fm)
    return fm


_C_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|/\*.*?\*/|//[^\n]*|[A-Za-z_]\w*', re.S)


def _macro_body_names(src: Source, root: Any) -> Counter[bytes]:
    """The names a `#define`'s body writes (`FMT_STRING(s)` → `FMT_STRING_IMPL`, `compile_string`):
    the grammar keeps a macro's body as one opaque token, so its calls were no references. The
    macro's own parameters, strings, comments and the language's keywords are left out; a name
    that no file of the map defines makes no edge (rank.build_graph), so nothing is invented."""
    from .definitions import C_KEYWORDS

    found: Counter[bytes] = Counter()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("preproc_def", "preproc_function_def"):
            value = node.child_by_field_name("value")
            if value is None:
                continue
            params = node.child_by_field_name("parameters")
            own = {src.data[c.start_byte:c.end_byte] for c in params.named_children} if params is not None else set()
            for m in _C_TOKEN.finditer(src.data, value.start_byte, value.end_byte):
                word = m.group(0)
                if word[:1] not in (b'"', b"'", b"/") and word not in own and word.decode() not in C_KEYWORDS:
                    found[word] += 1
        elif node.child_count and node.type not in ("function_definition", "compound_statement"):
            stack.extend(node.children)  # macros sit at file, namespace or preprocessor-branch level
    return found


_OVERLOAD = re.compile(r"^@\s*(?:typing\.|t\.|typing_extensions\.)?overload\s*$")


def _is_overload(src: Source, node: Any) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "decorated_definition" and any(
        c.type == "decorator" and _OVERLOAD.match(src.text(c)) for c in parent.children)


def _merge_overloads(defs: list[Definition], overloads: set[int]) -> list[Definition]:
    """`@overload` stubs are not the function: the implementation is (its signature, its lines,
    its docstring), and a stub's own docstring, when it has one, is added to the doc. A stub
    file (`.pyi`) has only stubs: the first stands for the function."""
    groups: dict[str, list[Definition]] = {}
    for d in defs:
        groups.setdefault(d.qualified_name, []).append(d)
    drop: set[int] = set()
    for group in groups.values():
        stubs = [d for d in group if id(d) in overloads]
        if not stubs:
            continue
        impls = [d for d in group if id(d) not in overloads]
        keep = impls[-1] if impls else stubs[0]
        docs = [keep.doc] if keep.doc else []
        docs += [d.doc for d in stubs if d.doc and d is not keep and d.doc not in docs]
        keep.doc = "\n\n".join(docs)
        drop.update(id(d) for d in stubs if d is not keep)
    return [d for d in defs if id(d) not in drop]


def _bound_names(src: Source, statement: Any) -> list[str]:
    """The local names an import statement binds: `from m import a as b` → b, `import a.b` → a,
    `import X, {y as z} from 'm'` → X, z."""
    names: list[str] = []
    if statement.type in ("import_statement", "import_from_statement") and src.lang == "python":
        for item in statement.children_by_field_name("name"):
            if item.type == "aliased_import":
                alias = item.child_by_field_name("alias")
                names.append(src.text(alias) if alias is not None else "")
            else:
                names.append(src.text(item).split(".", 1)[0])
    elif statement.type == "use_declaration":
        stack = [statement.child_by_field_name("argument")]
        while stack:
            node = stack.pop()
            if node is None:
                continue
            if node.type == "use_as_clause":
                names.append(src.text(node.child_by_field_name("alias")))
            elif node.type == "scoped_identifier":
                names.append(src.text(node.child_by_field_name("name")))
            elif node.type == "identifier" and node.parent is not None and node.parent.type == "use_list":
                names.append(src.text(node))
            elif node.type in ("scoped_use_list", "use_list"):
                stack.extend(node.named_children)
    elif statement.type == "arguments" and src.lang in ("javascript", "typescript", "tsx"):
        names += _required_names(src, statement)
    elif statement.type == "export_statement":  # export {a, b as c} from './m'
        for spec in (s for c in statement.named_children if c.type == "export_clause"
                     for s in c.named_children if s.type == "export_specifier"):
            names.append(src.text(spec.child_by_field_name("alias") or spec.child_by_field_name("name")))
    elif statement.type == "import_statement":
        clause = next((c for c in statement.named_children if c.type == "import_clause"), None)
        stack = [clause] if clause is not None else []
        while stack:
            node = stack.pop()
            if node.type == "identifier" and node.parent is not None and node.parent.type in (
                    "import_clause", "namespace_import"):
                names.append(src.text(node))
            elif node.type == "import_specifier":
                local = node.child_by_field_name("alias") or node.child_by_field_name("name")
                names.append(src.text(local))
            else:
                stack.extend(node.named_children)
    return [n for n in names if n]


def _merge_clauses(defs: list[Definition]) -> list[Definition]:
    """Elixir's clauses of one function (`def f(0)`, `def f(n)`), and a Haskell function's type
    signature and equations, are one definition: the first, its lines stretched to the last
    clause's, its doc the first found."""
    out: list[Definition] = []
    for d in defs:
        prev = out[-1] if out else None
        if prev is not None and prev.kind == d.kind == "function" and prev.qualified_name == d.qualified_name:
            prev.end_line = max(prev.end_line, d.end_line)
            prev.doc = prev.doc or d.doc
            continue
        out.append(d)
    return out


def _alias(src: Source, node: Any) -> str:
    """The local name an import binds in Kotlin, PHP, Elixir and C#: its alias, else its last part."""
    parent = node.parent
    if parent is not None:
        alias = parent.child_by_field_name("alias")
        if alias is None and src.lang == "kotlin":
            alias = next((c for c in parent.named_children if c.type == "identifier" and c is not node), None)
        if alias is not None:
            return src.text(alias)
    if src.lang == "csharp":
        return ""  # `using System.Linq;` opens a namespace, it binds no name
    return re.split(r"[.\\]", src.text(node))[-1]


def _required_names(src: Source, arguments: Any) -> list[str]:
    """`const x = require('m')` → x; `const { a, b: c } = require('m')` → a, c."""
    node = arguments.parent
    while node is not None and node.type in ("call_expression", "member_expression", "await_expression"):
        node = node.parent
    if node is None or node.type != "variable_declarator":
        return []
    target = node.child_by_field_name("name")
    if target is None:
        return []
    if target.type == "identifier":
        return [src.text(target)]
    return [src.text(c.child_by_field_name("value") or c) for c in target.named_children
            if c.type in ("shorthand_property_identifier_pattern", "pair_pattern")]


def _go_package_names(src: Source, root: Any) -> set[bytes]:
    """The names this Go file's imports are used by (`http` for "net/http", or the alias)."""
    names: set[bytes] = set()
    for decl in root.children:
        if decl.type != "import_declaration":
            continue
        specs = [c for c in decl.named_children if c.type == "import_spec"]
        for lst in (c for c in decl.named_children if c.type == "import_spec_list"):
            specs += [c for c in lst.named_children if c.type == "import_spec"]
        for spec in specs:
            alias = spec.child_by_field_name("name")
            path = spec.child_by_field_name("path")
            if alias is not None:
                names.add(src.data[alias.start_byte:alias.end_byte])
            elif path is not None:
                last = src.text(path).strip('"`').rsplit("/", 1)[-1]
                last = re.sub(r"^go-|\.v\d+$|-go$", "", last)   # gopkg.in/yaml.v3 → yaml
                names.add(last.encode())
    return names


def _is_foreign(node: Any, packages: set[bytes], src: Source) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if node.type == "type_identifier" and parent.type == "qualified_type":
        return True
    if node.type == "field_identifier" and parent.type == "selector_expression":
        operand = parent.child_by_field_name("operand")
        return operand is not None and operand.type == "identifier" and \
            src.data[operand.start_byte:operand.end_byte] in packages
    return False


_JS_EXPORT_NAMES = re.compile(
    rb"module\.exports\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$|export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$"
    rb"|(?:export|module\.exports\s*=)\s*\{([^}]*)\}", re.MULTILINE)


def _mark_js_exports(src: Source, fm: FileMap) -> None:
    """`module.exports = x`, `export default x`, `export { a, b as c }` and `module.exports = { a, b: c }`
    export earlier definitions."""
    names: set[str] = set()
    for match in _JS_EXPORT_NAMES.finditer(src.data):
        if match.group(3) is not None:
            for item in match.group(3).decode("utf-8", "replace").split(","):
                item = item.strip().split(" as ")[0].strip()
                names.add(item.rsplit(":", 1)[-1].strip())  # `{ parse: parseQuery }` exports parseQuery
        else:
            names.add((match.group(1) or match.group(2)).decode("utf-8", "replace"))
    for _ in range(2):  # `export default RouterExport` with `const RouterExport = Router as RouterConstructor`
        for name in list(names):
            alias = re.search(rb"\b(?:const|let|var)\s+" + re.escape(name.encode()) +
                              rb"\s*(?::[^=\n]+)?=\s*([A-Za-z_$][\w$]*)\s*(?:as\b[^;\n]*)?;?\s*$", src.data, re.M)
            if alias:
                names.add(alias.group(1).decode("utf-8", "replace"))
    members = commonjs.umd_members(src.data.decode("utf-8", "replace")) if b"return " in src.data else {}
    for d in fm.definitions:  # (PapaParse's `Papa.parse = CsvToJson`: a user calls `Papa.parse`)
        if d.qualified_name == d.name and d.name in members:
            d.exported = True
            if members[d.name].rsplit(".", 1)[-1] != d.name:
                d.aliases.append(members[d.name])
    classes = {d.name for d in fm.definitions if d.name in names and d.qualified_name == d.name and d.kind == "class"}
    for d in fm.definitions:
        if d.name in names and d.qualified_name == d.name:
            d.exported = True
        elif d.kind == "method" and d.qualified_name.split(".", 1)[0] in classes and not d.exported \
                and not d.name.startswith(("_", "#")) and not re.match(r"\s*(?:private|protected)\b", d.signature):
            d.exported = True  # a public method of a class exported by name at the end of its file


def _file_doc(src: Source, root: Any) -> str:
    if src.lang == "python":
        return docstring(src, root)
    if src.lang == "rust":
        inner = [src.text(c).rstrip() for c in root.children
                 if c.type in ("line_comment", "block_comment") and src.text(c).startswith(("//!", "/*!"))]
        return clean_comment("\n".join(t.replace("//!", "//", 1).replace("/*!", "/*", 1) for t in inner))
    if src.lang == "go":
        package = next((c for c in root.children if c.type == "package_clause"), None)
        return comment_block(src, package) if package is not None else ""
    if src.lang == "java":  # a package's doc: the Javadoc above `package` (package-info.java), never a licence
        package = next((c for c in root.children if c.type == "package_declaration"), None)
        above = package.prev_named_sibling if package is not None else None
        if above is not None and above.type == "block_comment" and src.text(above).startswith("/**"):
            return comment_block(src, package)
    return ""


def _has_main(src: Source, fm: FileMap) -> bool:
    if src.lang == "python":
        return re.search(rb"^if\s+__name__\s*==\s*['\"]__main__['\"]", src.data, re.MULTILINE) is not None
    if src.data.startswith(b"#!"):
        return True
    if src.lang in lang_rules.LANGS:
        return lang_rules.has_main(src, {d.name for d in fm.definitions if d.kind in ("function", "method")})
    has_main_fn = any(d.name == "main" and d.kind in ("function", "method") for d in fm.definitions)
    if src.lang == "go":
        return has_main_fn and re.search(rb"^package\s+main\b", src.data, re.MULTILINE) is not None
    return has_main_fn
