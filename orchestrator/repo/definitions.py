"""One definition node → a Definition: its kind, qualified name, signature, doc comment,
line range and whether it is public, for each language the map reads.

These are the per-language rules a grammar cannot express: what qualifies a method
(`(*Router).Get` → `Router.Get`, `impl Display for Error` → `Error::fmt`), where a signature
ends (at the body), which comment is a doc (Python docstring, JSDoc, Go's `//` block, Rust's
`///`), and what is exported (Go capitals, Rust `pub`, JS/TS `export`, Java `public`)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any

from . import commonjs, lang_rules
from .comments import clean_comment, comment_block  # noqa: F401 (clean_comment re-exported)

MAX_SIGNATURE_CHARS = 400
MAX_SIGNATURE_LINES = 8

KINDS = ("class", "function", "method", "struct", "interface", "trait", "impl", "enum", "type",
         "type alias", "macro", "constant", "variable", "module")


@dataclass
class Definition:
    kind: str
    name: str
    qualified_name: str
    signature: str
    doc: str
    start_line: int          # 1-based, including decorators / export keyword
    end_line: int            # 1-based, inclusive
    exported: bool
    aliases: list[str] = field(default_factory=list)  # other names of the same thing (a C struct's tag)

    @property
    def doc_line(self) -> str:
        """The first line of the doc comment (the summary), or ''."""
        return self.doc.strip().split("\n", 1)[0].strip() if self.doc else ""


# Node types that make a definition local (inside a function body): those are left out.
_LOCAL_SCOPES: dict[str, frozenset[str]] = {
    "python": frozenset({"function_definition", "lambda"}),
    "go": frozenset({"function_declaration", "method_declaration", "func_literal"}),
    "rust": frozenset({"function_item", "closure_expression"}),
    "javascript": frozenset({"function_declaration", "function_expression", "arrow_function",
                             "method_definition", "generator_function_declaration",
                             "generator_function", "class_static_block"}),
    "java": frozenset({"method_declaration", "constructor_declaration", "lambda_expression"}),
    "c": frozenset({"function_definition"}),
    "cpp": frozenset({"function_definition", "lambda_expression"}),
}
_LOCAL_SCOPES["typescript"] = _LOCAL_SCOPES["tsx"] = _LOCAL_SCOPES["javascript"]
_LOCAL_SCOPES.update(lang_rules.LOCAL_SCOPES)

# Container node types whose name qualifies the definitions inside them.
_CONTAINERS: dict[str, frozenset[str]] = {
    "python": frozenset({"class_definition"}),
    "go": frozenset(),
    "rust": frozenset({"impl_item", "trait_item"}),
    "javascript": frozenset({"class_declaration", "class", "abstract_class_declaration",
                             "internal_module"}),
    "java": frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                       "record_declaration", "annotation_type_declaration"}),
    "c": frozenset(),
    "cpp": frozenset({"class_specifier", "struct_specifier"}),
}
_CONTAINERS["typescript"] = _CONTAINERS["tsx"] = _CONTAINERS["javascript"]
_CONTAINERS.update(lang_rules.CONTAINERS)

# C and C++ keywords and built-in types: never the name of anything a repository defines.
C_KEYWORDS = frozenset("""alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class
co_await co_return co_yield concept const consteval constexpr constinit const_cast continue decltype default delete
do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept nullptr operator private protected public register reinterpret_cast requires restrict return
short signed sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef
typeid typename union unsigned using virtual void volatile wchar_t while _Bool std""".split())

_SEPARATOR = {"rust": "::", "cpp": "::", "php": "::", "ruby": "::"}
_STRING_PREFIX = re.compile(r"""^[rRuUbBfF]*("{3}|'{3}|"|')(.*)\1$""", re.DOTALL)


class Source:
    """The bytes of a file and the helpers every extractor needs."""

    def __init__(self, data: bytes, lang: str) -> None:
        self.data = data
        self.lang = lang

    def text(self, node: Any) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def definition(src: Source, node: Any, name_node: Any, kind: str) -> tuple[Definition, int] | None:
    lang = src.lang
    if node.type == "variable_declarator" and lang in ("javascript", "typescript", "tsx") and \
            commonjs.is_require(src, node):
        return None  # `const x = require('m')` imports x
    containers: list[Any] = []
    parent = node.parent
    while parent is not None:
        role = lang_rules.ancestor_role(src, parent) if lang in lang_rules.LANGS else ""
        if not containers and commonjs.constructor_member(src, node, parent):  # (`StringStreamer.stream`)
            containers.append(parent)
        elif (parent.type in _LOCAL_SCOPES[lang] and role != "open" or role == "local") and not commonjs.module_wrapper(src, parent):
            return None
        if parent.type in _CONTAINERS[lang] or role == "container":
            containers.append(parent)
        elif lang in ("javascript", "typescript", "tsx") and parent.type == "object" and \
                not commonjs.exports_object(src, parent) and not commonjs.prototype_owner(src, parent) \
                and not commonjs.table_owner(src, parent):
            return None  # methods and functions of object literals: not part of the API
        parent = parent.parent
    containers.reverse()

    name_start = name_node.start_byte
    if lang in ("c", "cpp") and kind in ("function", "method", "type alias"):
        name_node = _c_name(name_node)
        if name_node is None:
            return None
        name_start = name_node.start_byte
    name, owner = lang_rules.name_and_owner(src, node, name_node, kind) if lang in lang_rules.LANGS \
        else (src.text(name_node), "")
    if lang in ("c", "cpp") and (name.rsplit("::", 1)[-1] in C_KEYWORDS or kind == "module" and name == "std"):
        # a macro the grammar cannot expand (`FMT_BEGIN_NAMESPACE namespace …`) makes it take a keyword
        # for a name; `namespace std { … }` only specializes the standard library's: neither defines a symbol
        return None
    if lang in ("c", "cpp") and not _c_name_ok(name):
        return None  # a declaration the grammar misread (`value>>` out of an `enable_if<…>`)
    if lang == "cpp" and "<" in name and not name.rsplit("::", 1)[-1].startswith("operator"):
        # a specialization: `formatter<date>` as written, on one line; a long SFINAE argument list is elided
        name = " ".join(name.split())
        if len(name) > 40:
            name = name.split("<", 1)[0] + "<…>"
    if kind == "impl" or (lang == "rust" and name_node.type not in ("identifier", "type_identifier")):
        name = _base_type(src, name_node) or ""
    if not name or name == "_":
        return None
    outer = _outer(node, lang)
    qualified = _qualify(src, node, name, kind, containers)
    if lang in ("javascript", "typescript", "tsx") and not containers and \
            (proto := commonjs.prototype_owner(src, node.parent) or commonjs.table_owner(src, node.parent)):
        owner, kind = proto, "method"  # (a member of `Compiler.prototype = { … }`, or of a module's `const t = { … }`)
    if owner:  # `function json.encode`, `fun KLogger.debug`: written on their owner
        qualified = _SEPARATOR.get(lang, ".").join([*qualified.split(_SEPARATOR.get(lang, "."))[:-1], owner, name])
    if lang == "cpp" and "::" in name.split("<", 1)[0]:  # `fmt::f`, not `is_ref<std::ref<T>>`
        base, lt, args = name.partition("<")
        qualified, name = name, base.rsplit("::", 1)[1] + lt + args
    refined = _refine_kind(src, node, name, kind, containers)
    if refined is None:
        return None
    kind = refined
    return Definition(
        kind=kind, name=name, qualified_name=qualified,
        signature=_signature(src, node, outer, kind),
        doc=_doc(src, node, outer),
        start_line=outer.start_point[0] + 1,
        end_line=_end_line(lang_rules.last_node(src, outer) if lang in lang_rules.LANGS else outer),
        exported=_exported(src, node, outer, name, qualified, containers),
        aliases=_aliases(src, node, name) if lang in ("c", "cpp") else [],
    ), name_start


def _end_line(last: Any) -> int:
    # a `#define` ends with its newline: its end is column 0 of the next line, not that line
    return last.end_point[0] + (1 if last.end_point[1] > 0 or last.end_point[0] == last.start_point[0] else 0)


def _c_name_ok(name: str) -> bool:
    """`f`, `ns::f`, `~T`, `operator()`, `formatter<T, Char>`: a name C/C++ can declare."""
    if name.rsplit("::", 1)[-1].startswith("operator"):
        return True
    base, _, args = name.partition("<")
    return bool(re.match(r"^(?:[A-Za-z_]\w*::)*~?[A-Za-z_]\w*$", base)) and \
        (not args or name.count("<") == name.count(">") and name.endswith(">"))


def _c_name(node: Any) -> Any | None:
    """The identifier inside a C/C++ declarator (through pointers, references, parentheses)."""
    while node is not None and node.type not in (
            "identifier", "field_identifier", "type_identifier", "qualified_identifier",
            "destructor_name", "operator_name", "primitive_type"):
        node = node.child_by_field_name("declarator")
    return node if node is not None and node.type != "primitive_type" else None


def _base_type(src: Source, node: Any) -> str:
    """`Foo` for Rust types written `Foo<T>`, `crate::Foo`, `&'a Foo`."""
    while node is not None and node.type not in ("type_identifier", "identifier", "primitive_type"):
        node = node.child_by_field_name("type") or node.child_by_field_name("name")
    return src.text(node) if node is not None else ""


def _container_name(src: Source, node: Any) -> str:
    if src.lang in lang_rules.LANGS:
        own = lang_rules.container_name(src, node)
        if own is not None:
            return own
    if node.type == "impl_item":
        return _base_type(src, node.child_by_field_name("type"))
    if node.type in ("function_expression", "function"):  # an ES5 constructor assigned to its name (commonjs.constructor_member)
        return commonjs.constructor_name(src, node)
    name = node.child_by_field_name("name")
    if name is None and node.type == "class" and node.parent is not None:
        name = node.parent.child_by_field_name("name")  # const K = class { … }
    return src.text(name) if name is not None else ""


def _qualify(src: Source, node: Any, name: str, kind: str, containers: list[Any]) -> str:
    sep = _SEPARATOR.get(src.lang, ".")
    if kind == "impl":
        trait = node.child_by_field_name("trait")
        typ = src.text(node.child_by_field_name("type"))
        return f"impl {src.text(trait)} for {typ}" if trait is not None else f"impl {typ}"
    if src.lang == "go" and kind == "method":
        receiver = node.child_by_field_name("receiver")
        rtype = _go_receiver(src, receiver) if receiver is not None else ""
        if node.type == "method_elem" and (spec := node.parent and node.parent.parent) and spec.type == "type_spec":
            rtype = src.text(spec.child_by_field_name("name"))  # an interface's method (gomarkdown's `Renderer.RenderNode`)
        return f"{rtype}.{name}" if rtype else name
    if src.lang in ("javascript", "typescript", "tsx") and node.type == "assignment_expression" and not containers:
        return commonjs.qualified(src, node)
    parts = [p for p in (_container_name(src, c) for c in containers) if p]
    return sep.join([*parts, name])


def _go_receiver(src: Source, receiver: Any) -> str:
    """`(m *Mux[T])` → `Mux`: the receiver's base type, as Go docs name methods."""
    match = re.search(r"\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*$", src.text(receiver))
    return match.group(1) if match else ""


def _refine_kind(src: Source, node: Any, name: str, kind: str, containers: list[Any]) -> str | None:
    lang = src.lang
    if lang in lang_rules.LANGS:
        return lang_rules.refine_kind(src, node, kind)
    if lang == "python":
        if kind == "function" and containers:
            return "method"
        if kind == "variable":
            if name.startswith("__") and name.endswith("__"):
                return None  # __all__, __version__: bookkeeping, not API
            return "constant" if name.isupper() else "variable"
    if lang == "go" and kind == "type":
        body = node.child_by_field_name("type")
        return {"struct_type": "struct", "interface_type": "interface"}.get(body.type if body else "", "type")
    if lang == "rust" and containers and kind in ("type alias", "constant") and \
            containers[-1].child_by_field_name("trait") is not None:
        return None  # `type Error = Error;` in a trait impl fills the trait in, defines nothing new
    if lang == "rust" and kind == "function" and containers:
        return "method"
    if lang in ("javascript", "typescript", "tsx") and kind == "function" and node.type == "assignment_expression":
        left = src.text(node.child_by_field_name("left"))
        return "method" if ".prototype." in left or left.startswith("this.") else "function"
    if lang in ("c", "cpp") and kind == "type alias":
        body = node.child_by_field_name("type")
        if body is not None and body.child_by_field_name("body") is not None:
            tag = body.child_by_field_name("name")
            if tag is not None and src.text(tag) == name:
                return None  # `typedef struct X {…} X;` is the struct X, found already
            # `typedef struct {…} Y;` and `typedef struct X {…} Y;`: C users write `Y`
            return {"struct_specifier": "struct", "union_specifier": "struct", "enum_specifier": "enum",
                    "class_specifier": "class"}.get(body.type, kind)
    if lang in ("c", "cpp") and _typedef_name(src, node) not in ("", name):
        return None  # the tag of `typedef struct X {…} Y;`: the typedef `Y` carries it (X an alias)
    if lang == "cpp" and kind == "function" and containers:
        return "method"
    return kind


def _typedef_name(src: Source, node: Any) -> str:
    """`Y` for the struct, union or enum specifier of `typedef struct X {…} Y;`, else ''."""
    parent = node.parent
    if parent is None or parent.type != "type_definition" or node.child_by_field_name("body") is None or \
            node.type not in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
        return ""
    declarator = _c_name(parent.child_by_field_name("declarator"))
    return src.text(declarator) if declarator is not None else ""


def _aliases(src: Source, node: Any, name: str) -> list[str]:
    """The tag `X` of `typedef struct X {…} Y;` for the definition `Y`."""
    body = node.child_by_field_name("type") if node.type == "type_definition" else None
    tag = body.child_by_field_name("name") if body is not None else None
    return [src.text(tag)] if tag is not None and src.text(tag) != name else []


def _outer(node: Any, lang: str) -> Any:
    """The node a reader sees as the whole definition: with decorators, `export`, `const`."""
    outer = node
    parent = node.parent
    if lang == "python":
        if parent is not None and parent.type == "decorated_definition" or node.type == "assignment" and parent is not None and parent.type == "expression_statement":
            outer = parent
    elif lang in ("javascript", "typescript", "tsx"):
        if node.type == "variable_declarator" and parent is not None and parent.type in (
                "lexical_declaration", "variable_declaration") or node.type == "assignment_expression" and parent is not None:
            outer = parent
        if outer.parent is not None and outer.parent.type == "export_statement":
            outer = outer.parent
    elif lang in ("c", "cpp") and parent is not None and parent.type == "type_definition" and \
            node.type in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
        outer = parent  # `typedef struct X {…} X;`: the comment above `typedef` is the struct's doc
    elif lang == "go" and node.type in ("type_spec", "type_alias", "const_spec", "var_spec"):
        if parent is not None and parent.named_child_count == 1 and parent.type.endswith("_declaration"):
            outer = parent
    return outer


# A comment after the first line of a constant (`x = f(  # type: ignore`) is not its signature.
_TRAILING_COMMENT = {"python": re.compile(r"\s+#.*$"), "go": re.compile(r"\s+//.*$"),
                     "rust": re.compile(r"\s+//.*$"), "javascript": re.compile(r"\s+//.*$"),
                     "typescript": re.compile(r"\s+//.*$"), "tsx": re.compile(r"\s+//.*$")}
_NO_MATCH = re.compile(r"(?!)")

_BODY_TYPES = frozenset({"block", "statement_block", "class_body", "field_declaration_list", "function_body",
                         "enum_class_body", "protocol_body", "template_body", "body_statement",
                         "declaration_list", "enum_body", "enum_variant_list", "interface_body",
                         "object_type", "compound_statement", "constructor_body",
                         "annotation_type_body"})


_ANNOTATION_LINE = re.compile(r"\s*(?:@[\w.]+(?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?\s*)+$")


def _signature(src: Source, node: Any, outer: Any, kind: str) -> str:
    body = node.child_by_field_name("body")
    if body is None and node.type in ("variable_declarator", "pair"):
        value = node.child_by_field_name("value")
        while value is not None and value.type in ("parenthesized_expression", "as_expression", "satisfies_expression") \
                and value.named_children:  # (zustand's `export const create = (<T>(…) => …) as Create`)
            value = value.named_children[0]
        if value is not None and value.type in ("arrow_function", "function_expression", "class"):
            body = value.child_by_field_name("body")
    if body is None and node.type == "assignment_expression":
        right = node.child_by_field_name("right")
        body = right.child_by_field_name("body") if right is not None else None
    if body is None and node.type == "type_spec":
        typ = node.child_by_field_name("type")
        if typ is not None and typ.type in ("struct_type", "interface_type"):
            body = next((c for c in typ.children if c.type in ("field_declaration_list", "{")), None)
    if body is None:
        body = next((c for c in node.children if c.type in _BODY_TYPES), None)
    if body is None and node.type == "type_definition" and src.lang in ("c", "cpp"):
        inner = node.child_by_field_name("type")
        fields = inner.child_by_field_name("body") if inner is not None else None
        declarator = node.child_by_field_name("declarator")
        if fields is not None and declarator is not None:  # `typedef struct X {…} Y`, as a reader names it
            head = src.data[outer.start_byte:fields.start_byte].decode("utf-8", "replace").strip()
            return " ".join(head.split()) + " {…} " + src.text(declarator)
    start = commonjs.signature_start(src, node, outer.start_byte)
    if src.lang == "python" and outer.type == "decorated_definition":
        start = node.start_byte  # decorators belong to the line range, not to the signature
    end = body.start_byte if body is not None and body.start_byte > start else outer.end_byte
    text = src.data[start:end].decode("utf-8", "replace")
    if body is None:
        # a constant, an alias or a declaration without a body: its first line says what it is, past the lines
        # of annotations above it (okhttp's `@Throws(IOException::class)⏎ fun execute(): Response`)
        lines = text.split("\n")
        text = next((ln for ln in lines if not _ANNOTATION_LINE.match(ln)), lines[0])
        text = _TRAILING_COMMENT.get(src.lang, _NO_MATCH).sub("", text)
    prefix = {"type_spec": "type ", "type_alias": "type ", "const_spec": "const ",
              "var_spec": "var "}.get(node.type, "") if outer is node and src.lang == "go" else ""
    lines = [ln.rstrip() for ln in text.strip().splitlines()][:MAX_SIGNATURE_LINES]
    sig = (prefix + "\n".join(lines)).rstrip().rstrip("{").rstrip()
    if src.lang == "python":
        sig = sig.rstrip(":")
    if src.lang in lang_rules.LANGS:
        sig = lang_rules.signature(src, node, sig)
    if len(sig) > MAX_SIGNATURE_CHARS:
        sig = sig[:MAX_SIGNATURE_CHARS].rstrip() + " …"
    return sig


def _doc(src: Source, node: Any, outer: Any) -> str:
    if src.lang == "python":
        return docstring(src, node.child_by_field_name("body"))
    if src.lang in lang_rules.LANGS:
        own = lang_rules.doc(src, node)
        return lang_rules.tidy_doc(src.lang, own if own is not None else comment_block(src, outer))
    return comment_block(src, outer)


def docstring(src: Source, body: Any) -> str:
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or first.named_child_count == 0:
        return ""
    string = first.named_children[0]
    if string.type != "string":
        return ""
    match = _STRING_PREFIX.match(src.text(string))
    return inspect.cleandoc(match.group(2)) if match else ""


def _exported(src: Source, node: Any, outer: Any, name: str, qualified: str,
              containers: list[Any]) -> bool:
    lang = src.lang
    if lang == "python":
        return not any(part.startswith("_") for part in qualified.split("."))
    if lang in lang_rules.LANGS:
        return lang_rules.exported(src, node, name, containers)
    if lang == "go":
        return all(part[:1].isupper() for part in qualified.split("."))
    if lang == "rust":
        ancestor = node.parent
        while ancestor is not None:  # `pub mod __private`: public to macros, not to readers
            if ancestor.type == "mod_item" and src.text(ancestor.child_by_field_name("name")).startswith(
                    ("_", "private")):
                return False
            ancestor = ancestor.parent
        if any(c.type == "visibility_modifier" and src.text(c) == "pub" for c in node.children):
            return True  # `pub(crate)` and `pub(super)` are not the crate's public API
        if node.type == "macro_definition":
            prev = node.prev_named_sibling  # #[macro_export] among the attributes and doc lines above
            while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
                if prev.type == "attribute_item" and "macro_export" in src.text(prev):
                    return True
                prev = prev.prev_named_sibling
            return False
        # Items of a trait impl, or of a public trait, are as public as the trait.
        return bool(containers) and (containers[-1].child_by_field_name("trait") is not None
                                     or any(c.type == "visibility_modifier" and src.text(c) == "pub"
                                            for c in containers[-1].children))
    if lang in ("javascript", "typescript", "tsx"):
        if name.startswith(("_", "#")):
            return False
        if outer.type == "export_statement":
            return True
        if node.type in ("method_definition", "pair") and not containers:
            return commonjs.exported_value(src, node)  # a member of `module.exports = { … }`
        if node.type in ("method_definition", "public_field_definition", "field_definition"):  # (a field holding a function)
            if any(c.type == "accessibility_modifier" and src.text(c) != "public" for c in node.children):
                return False
            return bool(containers) and (_outer(containers[-1], lang).type == "export_statement"
                                         or commonjs.exported_value(src, containers[-1]))
        # CommonJS: `app.use = function …` at top level attaches to an exported object; a declaration the
        # module exports by its name (`module.exports.load = load`) is the API
        return node.type == "assignment_expression" or (not containers and commonjs.exported_by_name(src, name))
    if lang == "java":
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        if modifiers is not None and re.search(r"\bpublic\b", src.text(modifiers)):
            return True
        return bool(containers) and containers[-1].type == "interface_declaration"
    # C and C++: everything not `static` and not reserved-looking.
    if name.startswith("_"):
        return False
    return not any(c.type == "storage_class_specifier" and src.text(c) == "static" for c in node.children)
