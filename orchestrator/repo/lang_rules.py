"""The per-language rules of C#, Ruby, Kotlin, PHP, Swift, Scala, Elixir and Lua that a grammar
cannot express: which enclosing node qualifies a definition or makes it local, the name a reader
writes (`json.encode` → `encode` of `json`, `fun KLogger.debug` → `KLogger.debug`), the kind
behind a shared node (Kotlin's `interface` and Swift's `struct` are `class_declaration`s), where a
signature ends, which doc is the definition's (XML doc, YARD, KDoc, PHPDoc, Swift markup,
Elixir's `@doc`) and what is public. definitions.py asks here for these languages only.

Nodes are tree_sitter nodes; `src` is definitions.Source (its `.data`, `.lang`, `.text(node)`).
"""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

LANGS = frozenset({"csharp", "ruby", "kotlin", "php", "swift", "scala", "elixir", "lua", "haskell", "dart"})

# Node types that make a definition local (inside a body), and those whose name qualifies it.
LOCAL_SCOPES: dict[str, frozenset[str]] = {
    "csharp": frozenset({"method_declaration", "constructor_declaration", "lambda_expression",
                         "local_function_statement", "accessor_declaration", "anonymous_method_expression"}),
    "ruby": frozenset({"method", "singleton_method", "block", "do_block", "lambda"}),
    "kotlin": frozenset({"function_declaration", "lambda_literal", "anonymous_function", "getter", "setter"}),
    "php": frozenset({"function_definition", "method_declaration", "anonymous_function", "arrow_function"}),
    "swift": frozenset({"function_declaration", "init_declaration", "lambda_literal", "computed_property"}),
    "scala": frozenset({"function_definition", "lambda_expression", "block"}),
    "elixir": frozenset({"anonymous_function"}),  # and a `def`'s body: see _elixir_def
    "lua": frozenset({"function_declaration", "function_definition"}),
    "haskell": frozenset({"function", "bind", "instance", "local_binds"}),
    "dart": frozenset({"function_body", "function_expression", "lambda_expression"}),
}
CONTAINERS: dict[str, frozenset[str]] = {
    "csharp": frozenset({"class_declaration", "struct_declaration", "interface_declaration", "record_declaration",
                         "enum_declaration"}),
    "ruby": frozenset({"class", "module"}),
    "kotlin": frozenset({"class_declaration", "object_declaration"}),
    "php": frozenset({"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"}),
    "swift": frozenset({"class_declaration", "protocol_declaration"}),
    "scala": frozenset({"class_definition", "object_definition", "trait_definition", "enum_definition"}),
    "elixir": frozenset(),  # `defmodule` calls: see _elixir_def
    "lua": frozenset(),
    "haskell": frozenset({"class"}),
    "dart": frozenset({"class_definition", "mixin_declaration", "extension_declaration", "enum_declaration"}),
}

_ELIXIR_MODULES = frozenset({"defmodule", "defprotocol", "defimpl"})
_ELIXIR_DEFS = frozenset({"def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate"})
_ELIXIR_PRIVATE = frozenset({"defp", "defmacrop", "defguardp"})


def elixir_target(src: Any, node: Any) -> str:
    """`def` for the call `def f(x) do … end`; '' for any other node."""
    if node.type != "call":
        return ""
    target = node.child_by_field_name("target")
    return src.text(target) if target is not None and target.type == "identifier" else ""


def ancestor_role(src: Any, node: Any) -> str:
    """'local' when a definition inside ``node`` is local to a body, 'container' when ``node``
    qualifies it, '' otherwise — for the roles the node type alone does not tell."""
    if src.lang == "elixir":
        target = elixir_target(src, node)
        return "container" if target in _ELIXIR_MODULES else "local" if target in _ELIXIR_DEFS else ""
    if src.lang == "csharp" and extension_block(src, node):
        return "open"  # its methods are its static class's (the grammar reads the block as a constructor's body)
    return ""


def extension_block(src: Any, node: Any) -> bool:
    """C# 14's `extension(IRestClient client) { … }` in a static class: the extension methods of one receiver."""
    name = node.child_by_field_name("name") if node.type == "constructor_declaration" else None
    return name is not None and src.text(name) == "extension"


def container_name(src: Any, node: Any) -> str | None:
    """The name a container gives its members, or None to use its `name` field."""
    if src.lang == "dart" and node.type == "mixin_declaration":
        name = next((c for c in node.named_children if c.type == "identifier"), None)
        return src.text(name) if name is not None else ""
    if src.lang == "elixir":
        args = next((c for c in node.named_children if c.type == "arguments"), None)
        first = args.named_children[0] if args is not None and args.named_child_count else None
        return src.text(first) if first is not None else ""
    if src.lang == "swift" and node.type == "class_declaration":
        name = node.child_by_field_name("name")
        return src.text(name).split("<", 1)[0] if name is not None else ""  # `extension Foo<T>`
    return None


def name_and_owner(src: Any, node: Any, name_node: Any, kind: str) -> tuple[str, str]:
    """(the definition's own name, the owner it is written on or ''): Lua's `function json.encode`
    and `function M:m`, Kotlin's extension `fun KLogger.debug`, Ruby's `def self.get`."""
    lang = src.lang
    text = src.text(name_node)
    if lang == "lua" and name_node.type in ("dot_index_expression", "method_index_expression"):
        owner, _, name = text.replace(":", ".").rpartition(".")
        return name, owner
    if lang == "kotlin" and node.type == "function_declaration":
        receiver = next((c for c in node.children if c.type in ("user_type", "nullable_type")
                         and c.end_byte <= name_node.start_byte), None)
        return text, src.text(receiver).split("<", 1)[0].rstrip("?") if receiver is not None else ""
    if lang == "ruby" and name_node.type == "scope_resolution":  # class Foo::Bar
        return text.rsplit("::", 1)[-1], text.rpartition("::")[0]
    return text, ""


def refine_kind(src: Any, node: Any, kind: str) -> str | None:
    """The kind a reader names, or None when the node defines nothing new."""
    lang = src.lang
    if lang == "kotlin" and node.type == "class_declaration":
        head = src.data[node.start_byte:node.child_by_field_name("name").start_byte].decode("utf-8", "replace")
        return "interface" if re.search(r"\binterface\b", head) else "enum" if re.search(r"\benum\b", head) \
            else "class"
    if lang == "swift" and node.type == "class_declaration":
        # (`extension String: URLConvertible` has a user_type for a name: no query takes it for a
        # definition, since it adds to a type and defines none; its members count, qualified by it)
        keyword = next((c.type for c in node.children if c.type in ("class", "struct", "enum", "actor")), "class")
        return {"struct": "struct", "enum": "enum"}.get(keyword, "class")
    if lang == "haskell":
        return {"data_type": "type", "newtype": "type", "class": "interface"}.get(node.type, kind)
    if lang == "dart":
        return kind
    if kind == "function" and lang in ("kotlin", "swift", "scala"):
        parent = node.parent
        while parent is not None and parent.type not in _METHOD_OWNERS:
            parent = parent.parent
        return "method" if parent is not None else "function"
    if lang == "ruby" and kind == "constant":
        return "constant"
    return kind


_METHOD_OWNERS = frozenset({"class_declaration", "object_declaration", "protocol_declaration", "class_definition",
                            "object_definition", "trait_definition", "enum_definition"})


def last_node(src: Any, outer: Any) -> Any:
    """The node a definition ends with: a Dart signature's body is the node after it."""
    after = outer.next_sibling if src.lang == "dart" else None
    return after if after is not None and after.type == "function_body" else outer


def signature(src: Any, node: Any, sig: str) -> str:
    """Tidy the text definitions.py cut before the body."""
    lang = src.lang
    if lang == "dart" and node.type in ("function_signature", "method_signature", "declaration"):
        return "\n".join(ln.rstrip() for ln in src.text(node).strip().splitlines()[:8])
    if lang == "elixir":
        args = next((c for c in node.named_children if c.type == "arguments"), None)
        head = src.text(args) if args is not None else sig
        head = re.split(r",\s*do:", head, maxsplit=1)[0]
        return (elixir_target(src, node) + " " + head.split("\n", 1)[0]).strip()
    if lang == "scala":
        return sig.rstrip().removesuffix("=").rstrip()
    if lang == "ruby":
        return " ".join(sig.split("\n", 1)[0].split()) if node.type in ("class", "module") else sig
    return sig


def doc(src: Any, node: Any) -> str | None:
    """Elixir's `@doc`/`@moduledoc` for ``node``, or None to read the comments above it."""
    if src.lang != "elixir":
        return None
    if elixir_target(src, node) in _ELIXIR_MODULES:
        body = next((c for c in node.named_children if c.type == "do_block"), None)
        for child in body.named_children if body is not None else []:
            if _attribute(src, child) == "moduledoc":
                return _attribute_string(src, child)
        return ""
    sibling = node.prev_named_sibling
    while sibling is not None and _attribute(src, sibling) in ("spec", "impl", "doc", "deprecated", "since"):
        if _attribute(src, sibling) == "doc":
            return _attribute_string(src, sibling)
        sibling = sibling.prev_named_sibling
    return ""


def _attribute(src: Any, node: Any) -> str:
    if node.type != "unary_operator" or not src.text(node).startswith("@"):
        return ""
    operand = node.child_by_field_name("operand")
    return elixir_target(src, operand) if operand is not None else ""


def _attribute_string(src: Any, node: Any) -> str:
    text = src.text(node).split(None, 1)[1] if len(src.text(node).split(None, 1)) > 1 else ""
    text = re.sub(r"^~[sS]", "", text.strip())
    for quote in ('"""', "'''", '"'):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            return inspect.cleandoc(text[len(quote):-len(quote)])
    return ""  # `@doc false`: hidden on purpose


_XML_TAG = re.compile(r"</?(?:summary|remarks|returns|value|example|para|c|code|list|item|description|term)\b[^>]*>")
_XML_REF = re.compile(r"<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword|href)=\"(?:[A-Z]:)?([^\"]+)\"\s*/>")
_XML_PARAM = re.compile(r"<(typeparam|param|exception)\s+(?:name|cref)=\"([^\"]+)\"\s*>")


def tidy_doc(lang: str, text: str) -> str:
    """C#'s XML doc as the words it renders to (`<see cref="IRequest"/>` → `IRequest`, a `<param>`
    as `@param name …`); Haddock's
    `-- |` without its bar."""
    if lang == "haskell":
        return inspect.cleandoc(re.sub(r"^\s*[|^]\s?", "", text, count=1))
    if lang == "php":  # `{@inheritdoc}`: the parent's doc, which this one does not repeat
        return re.sub(r"\{?@inheritdoc\}?\s*", "", text, flags=re.IGNORECASE).strip()
    if lang != "csharp" or "<" not in text:
        return text
    text = _XML_REF.sub(lambda m: f"`{m.group(1)}`", text)
    # the remarks are prose: said after the summary, before the tags (a tag's text runs to the next tag)
    remarks = re.findall(r"<remarks>(.*?)</remarks>", text, re.S)
    if remarks and "</summary>" in text:
        text = re.sub(r"<remarks>.*?</remarks>", "", text, flags=re.S)
        text = text.replace("</summary>", "</summary>\n\n" + "\n\n".join(r.strip() for r in remarks) + "\n\n", 1)
    # a parameter, the result and an exception as Javadoc tags, which the doc reader lists
    # (`<param name="cnn">The connection…</param>` → `@param cnn The connection…`)
    text = _XML_PARAM.sub(lambda m: {"param": f"@param {m.group(2)} ", "exception": f"@throws {m.group(2)} "}.get(
        m.group(1), f"{m.group(2)}: "), text)
    text = re.sub(r"<returns>", "@returns ", text)
    text = re.sub(r"</(?:typeparam|param|exception)>", "", text)
    text = _XML_TAG.sub("", text)
    text = re.sub(r"<inheritdoc\s*/>", "", text)
    lines = [ln.strip() for ln in html.unescape(text).splitlines()]
    return "\n".join(ln for k, ln in enumerate(lines) if ln or (k and lines[k - 1]))


_HIDDEN = re.compile(r"\b(?:private|internal|fileprivate|protected)\b")


def exported(src: Any, node: Any, name: str, containers: list[Any]) -> bool:
    lang = src.lang
    if lang == "elixir":
        return elixir_target(src, node) not in _ELIXIR_PRIVATE and not name.startswith("_")
    if lang == "lua":
        return not src.text(node).startswith("local")
    if lang == "ruby":
        if node.type in ("class", "module", "assignment"):
            return True
        sibling = node.prev_named_sibling  # a bare `private` above it hides what follows in its class
        while sibling is not None:
            if sibling.type == "identifier" and src.text(sibling) in ("private", "protected"):
                return False
            if sibling.type == "identifier" and src.text(sibling) == "public":
                return True
            sibling = sibling.prev_named_sibling
        return not name.startswith("_")
    if lang == "haskell":
        return _haskell_exported(src, node, name, containers)
    if lang == "dart":  # a leading underscore makes a name private to its library
        owners = [container_name(src, c) or src.text(c.child_by_field_name("name") or c) for c in containers]
        return not any(n.startswith("_") for n in [name, *owners])
    modifiers = _modifiers(src, node)
    if lang == "csharp":
        if re.search(r"\bpublic\b", modifiers):
            return True  # members of an interface are public without the word
        return bool(containers) and containers[-1].type == "interface_declaration" and not _HIDDEN.search(modifiers)
    if lang == "swift":
        if re.search(r"\b(?:public|open)\b", modifiers):
            return True
        return bool(containers) and containers[-1].type == "protocol_declaration" and \
            re.search(r"\b(?:public|open)\b", _modifiers(src, containers[-1])) is not None
    return not _HIDDEN.search(modifiers)  # Kotlin, Scala, PHP: public unless said otherwise


def _haskell_exported(src: Any, node: Any, name: str, containers: list[Any]) -> bool:
    """What the module header's export list names (a class's methods with their class); all
    without a list."""
    root = node
    while root.parent is not None:
        root = root.parent
    header = next((c for c in root.named_children if c.type == "header"), None)
    exports = header.child_by_field_name("exports") if header is not None else None
    if exports is None:
        return True
    listed = {re.split(r"[\s(]", src.text(e).strip(), maxsplit=1)[0] for e in exports.named_children}
    owner = src.text(containers[-1].child_by_field_name("name")) if containers else ""
    return name in listed or (owner in listed and "(..)" in src.text(exports))


def _modifiers(src: Any, node: Any) -> str:
    return " ".join(src.text(c) for c in node.children
                    if c.type in ("modifiers", "modifier", "visibility_modifier", "access_modifier"))


# Names the grammar reads as calls that are the language's own words (Elixir's `def`, `alias`).
IGNORED_REFS: dict[str, frozenset[str]] = {
    "elixir": frozenset({"def", "defp", "defmacro", "defmacrop", "defmodule", "defprotocol", "defimpl", "defguard",
                         "defguardp", "defdelegate", "defstruct", "defexception", "defoverridable", "alias", "import",
                         "require", "use", "doc", "moduledoc", "spec", "impl", "type", "typep", "opaque", "callback",
                         "quote", "unquote", "behaviour", "when", "do", "fn", "case", "cond", "with", "raise"}),
    "ruby": frozenset({"require", "require_relative", "include", "extend", "attr_accessor", "attr_reader",
                       "attr_writer", "private", "protected", "public", "raise", "puts", "new"}),
}


def has_main(src: Any, names: set[str]) -> bool:
    """An entry point of a program in these languages (a shebang is seen by the caller)."""
    lang = src.lang
    if lang == "csharp":
        return "Main" in names
    if lang == "ruby":
        return re.search(rb"^if\s+(?:__FILE__\s*==\s*\$(?:0|PROGRAM_NAME)|\$(?:0|PROGRAM_NAME)\s*==\s*__FILE__)",
                         src.data, re.MULTILINE) is not None
    if lang == "swift":
        return re.search(rb"^\s*@main\b", src.data, re.MULTILINE) is not None
    if lang == "scala":
        return "main" in names or re.search(rb"\bextends\s+App\b|^@main\b", src.data, re.MULTILINE) is not None
    if lang == "haskell":
        return "main" in names and re.search(rb"^module\s+(?!Main\b)", src.data, re.MULTILINE) is None
    if lang == "dart":
        return "main" in names
    return lang == "kotlin" and "main" in names


def file_doc(src: Any, root: Any) -> str:
    """Elixir's first `@moduledoc` and the Haddock above a Haskell module's header stand for the
    file; the other languages have none of their own."""
    if src.lang == "haskell":
        header = next((c for c in root.named_children if c.type == "header"), None)
        above = header.prev_named_sibling if header is not None else None
        return tidy_doc("haskell", src.text(above).replace("--", "", 1)) if above is not None and above.type == "haddock" \
            else ""
    if src.lang != "elixir":
        return ""
    first = next((c for c in root.named_children if elixir_target(src, c) in _ELIXIR_MODULES), None)
    return (doc(src, first) or "") if first is not None else ""
