"""Grammars and tree-sitter queries for each language the repository map understands.

Everything here is loaded lazily: importing this module does not import tree_sitter, so
commands that never build a map (``book scan``) stay light. A grammar is loaded the first
time a file of its language is parsed and kept for the life of the process.

Each language has three queries, written here rather than taken from the grammar wheels'
``tags.scm`` (those differ in capture names per language, miss TypeScript's classes and
functions entirely and carry predicates the Python binding does not implement):

* ``defs``: ``@def.<kind>`` on the definition node and ``@name`` on its name;
* ``refs``: ``@ref`` on every identifier-like node (definition names are removed later);
* ``imports``: ``@import`` on the module string of an import.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

# Extension → language, for callers without a walker of their own (tests, the benchmark).
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".kt": "kotlin", ".kts": "kotlin", ".php": "php", ".swift": "swift",
    ".scala": "scala", ".sc": "scala", ".ex": "elixir", ".exs": "elixir", ".lua": "lua", ".hs": "haskell",
    ".dart": "dart",
}

# Language → (grammar module, function returning the language pointer).
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    # One wheel per language rather than tree-sitter-language-pack: the pack's 1.x wheels fetch
    # each grammar from the network on first use (no good offline, nor in CI's sandbox), and its
    # parsers are its own, not tree_sitter.Language. The eight wheels below weigh 24 MB installed
    # and load in 0.2-13 ms each, only when a file of their language is parsed.
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "swift": ("tree_sitter_swift", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "elixir": ("tree_sitter_elixir", "language"),
    "lua": ("tree_sitter_lua", "language"),
    "haskell": ("tree_sitter_haskell", "language"),  # 4.2 MB installed, loads in under 1 ms
    "dart": ("tree_sitter_dart", "language"),  # 1.2 MB installed
}

SUPPORTED: frozenset[str] = frozenset(_GRAMMARS)


def language_for_path(rel: str) -> str | None:
    """The language of a file by its extension, or None when the map does not parse it."""
    dot = rel.rfind(".")
    return EXTENSIONS.get(rel[dot:].lower()) if dot >= 0 else None


# --------------------------------------------------------------------------- queries

_PY_DEFS = """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
"""
_PY_REFS = "(identifier) @ref"
_PY_IMPORTS = """
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (_) @import)
"""

_GO_DEFS = """
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(method_elem name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type_alias
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))
"""
_GO_REFS = "[(identifier) (type_identifier) (field_identifier)] @ref"
_GO_IMPORTS = "(import_spec path: (_) @import)"

_RUST_DEFS = """
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(type_item name: (type_identifier) @name) @def.type_alias
(trait_item name: (type_identifier) @name) @def.trait
(impl_item type: (_) @name) @def.impl
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.constant
"""
_RUST_REFS = "[(identifier) (type_identifier) (field_identifier)] @ref"
_RUST_IMPORTS = """
(use_declaration argument: (_) @import)
(extern_crate_declaration name: (identifier) @import)
"""

_JS_DEFS_COMMON = """
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (_) @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(variable_declarator name: (identifier) @name value: (parenthesized_expression [(arrow_function) (function_expression)])) @def.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant)))
(program (expression_statement (assignment_expression
   left: (member_expression property: (property_identifier) @name)
   right: [(function_expression) (arrow_function)]) @def.function))
(program (expression_statement (assignment_expression
   left: (member_expression) @_target right: (class name: (_) @name)) @def.class)
   (#match? @_target "^(module[.])?exports"))
(program (expression_statement (assignment_expression
   left: (member_expression) @_target right: (function_expression name: (_) @name)) @def.function)
   (#match? @_target "^module[.]exports$"))
(pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @def.function
(expression_statement (assignment_expression
   left: (member_expression property: (property_identifier) @name)
   right: [(function_expression) (arrow_function)]) @def.function)
"""
# a class field holding a function is a method (`fetch = (request) => …`): JavaScript's grammar
# calls it `field_definition`, TypeScript's `public_field_definition` (below)
_JS_DEFS_EXTRA = """
(field_definition property: (_) @name value: [(arrow_function) (function_expression)]) @def.method
"""
_TS_DEFS_EXTRA = """
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type_alias
(enum_declaration name: (identifier) @name) @def.enum
(function_signature name: (identifier) @name) @def.function
(abstract_method_signature name: (property_identifier) @name) @def.method
(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)]) @def.method
(internal_module name: (_) @name) @def.module
(variable_declarator name: (identifier) @name value: [(as_expression (parenthesized_expression [(arrow_function) (function_expression)]))
   (satisfies_expression (parenthesized_expression [(arrow_function) (function_expression)]))]) @def.function
"""
_JS_REFS = """[(identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern)] @ref"""
_TS_REFS = """[(identifier) (property_identifier) (shorthand_property_identifier)
  (shorthand_property_identifier_pattern) (type_identifier)] @ref"""
_JS_IMPORTS = """
(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression function: (identifier) @_req arguments: (arguments . (string) @import)
   (#eq? @_req "require"))
"""

_JAVA_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
"""
_JAVA_REFS = "[(identifier) (type_identifier)] @ref"
_JAVA_IMPORTS = "(import_declaration (_) @import)"

_C_DEFS_COMMON = """
(function_definition declarator: (_) @name) @def.function
(translation_unit (declaration declarator: (function_declarator) @name) @def.function)
(translation_unit (declaration declarator: (pointer_declarator declarator: (function_declarator)) @name) @def.function)
(translation_unit (declaration declarator: (pointer_declarator declarator: (pointer_declarator
   declarator: (function_declarator))) @name) @def.function)
(struct_specifier name: (_) @name body: (_)) @def.struct
(union_specifier name: (_) @name body: (_)) @def.struct
(enum_specifier name: (_) @name body: (_)) @def.enum
(type_definition declarator: (_) @name) @def.type_alias
(preproc_function_def name: (identifier) @name) @def.macro
(preproc_def name: (identifier) @name) @def.macro
"""
_CPP_DEFS_EXTRA = """
(class_specifier name: (_) @name body: (_)) @def.class
(namespace_definition name: (_) @name) @def.module
(field_declaration_list (field_declaration declarator: (function_declarator) @name) @def.method)
(field_declaration_list (declaration declarator: (function_declarator) @name) @def.method)
"""
_C_REFS = "[(identifier) (type_identifier) (field_identifier)] @ref"
_CPP_REFS = "[(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @ref"
_C_IMPORTS = "(preproc_include path: (_) @import)"

_CS_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name) @def.struct
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(delegate_declaration name: (identifier) @name) @def.type_alias
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name (#not-eq? @name "extension")) @def.method
(local_function_statement name: (identifier) @name) @def.method
"""
_CS_REFS = "(identifier) @ref"
_CS_IMPORTS = "(using_directive [(identifier) (qualified_name)] @import)"

_RUBY_DEFS = """
(class name: [(constant) (scope_resolution)] @name) @def.class
(module name: [(constant) (scope_resolution)] @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(program (assignment left: (constant) @name) @def.constant)
(class (body_statement (assignment left: (constant) @name) @def.constant))
(module (body_statement (assignment left: (constant) @name) @def.constant))
"""
_RUBY_REFS = "[(identifier) (constant)] @ref"
_RUBY_IMPORTS = """
(call method: (identifier) @_req arguments: (argument_list . (string (string_content) @import))
   (#any-of? @_req "require" "require_relative"))
"""

_KOTLIN_DEFS = """
(class_declaration name: (identifier) @name) @def.class
(object_declaration name: (identifier) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(type_alias type: (identifier) @name) @def.type_alias
(source_file (property_declaration (variable_declaration (identifier) @name)) @def.constant)
(object_declaration (class_body (property_declaration (variable_declaration (identifier) @name)) @def.constant))
(class_body (property_declaration (variable_declaration (identifier) @name)
  (property_delegate (call_expression . [(identifier) @_lazy (call_expression . (identifier) @_lazy)] (annotated_lambda)))) @def.function
  (#eq? @_lazy "lazy"))
"""
_KOTLIN_REFS = "(identifier) @ref"
_KOTLIN_IMPORTS = "(import (qualified_identifier) @import)"

_PHP_DEFS = """
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
(const_declaration (const_element (name) @name)) @def.constant
"""
_PHP_REFS = "(name) @ref"
_PHP_IMPORTS = """
(namespace_use_clause . (qualified_name) @import)
(namespace_use_clause . (name) @import)
"""

_SWIFT_DEFS = """
(class_declaration name: (type_identifier) @name) @def.class
(protocol_declaration name: (type_identifier) @name) @def.interface
(function_declaration name: (simple_identifier) @name) @def.function
(protocol_function_declaration name: (simple_identifier) @name) @def.method
(init_declaration "init" @name) @def.method
(typealias_declaration name: (type_identifier) @name) @def.type_alias
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @def.constant)
"""
_SWIFT_REFS = "[(simple_identifier) (type_identifier)] @ref"
_SWIFT_IMPORTS = "(import_declaration (identifier) @import)"

_SCALA_DEFS = """
(class_definition name: (identifier) @name) @def.class
(object_definition name: (identifier) @name) @def.class
(trait_definition name: (identifier) @name) @def.trait
(enum_definition name: (identifier) @name) @def.enum
(function_definition name: (identifier) @name) @def.function
(function_declaration name: (identifier) @name) @def.function
(type_definition name: (type_identifier) @name) @def.type_alias
(object_definition body: (template_body (val_definition pattern: (identifier) @name) @def.constant))
"""
_SCALA_REFS = "[(identifier) (type_identifier)] @ref"
_SCALA_IMPORTS = "(import_declaration) @import"

_ELIXIR_DEFS = """
(call target: (identifier) @_kw (arguments . (alias) @name)
   (#any-of? @_kw "defmodule" "defprotocol")) @def.module
(call target: (identifier) @_kw
   (arguments . [(call target: (identifier) @name)
                 (binary_operator left: (call target: (identifier) @name))
                 (identifier) @name])
   (#any-of? @_kw "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate")) @def.function
"""
_ELIXIR_REFS = "[(identifier) (alias)] @ref"
_ELIXIR_IMPORTS = """
(call target: (identifier) @_kw (arguments . (alias) @import)
   (#any-of? @_kw "alias" "import" "require" "use"))
"""

_LUA_DEFS = """
(function_declaration name: (_) @name) @def.function
(chunk (assignment_statement (variable_list name: (_) @name)
   (expression_list value: (function_definition))) @def.function)
(chunk (variable_declaration (assignment_statement (variable_list name: (identifier) @name)
   (expression_list value: (function_definition)))) @def.function)
"""
_LUA_REFS = "(identifier) @ref"
_LUA_IMPORTS = """
(function_call name: (identifier) @_req arguments: (arguments . (string content: (string_content) @import))
   (#eq? @_req "require"))
"""

# A Haskell function is its type signature and its equations: each is matched, and parse.py merges
# a name's consecutive ones into one definition (the signature's text, the equations' lines).
_HASKELL_DEFS = """
(declarations (signature name: (variable) @name) @def.function)
(declarations (function name: (variable) @name) @def.function)
(declarations (bind name: (variable) @name) @def.function)
(declarations (data_type name: (name) @name) @def.type)
(declarations (newtype name: (name) @name) @def.type)
(declarations (type_synonym name: (name) @name) @def.type_alias)
(declarations (class name: (name) @name) @def.interface)
(class_declarations (signature name: (variable) @name) @def.method)
"""
_HASKELL_REFS = "[(variable) (name) (constructor)] @ref"
_HASKELL_IMPORTS = "(import module: (module) @import)"

# A Dart function's signature and its body are siblings: lang_rules.last_node takes the body in.
_DART_DEFS = """
(program (function_signature name: (identifier) @name) @def.function)
(class_definition name: (identifier) @name) @def.class
(mixin_declaration (identifier) @name) @def.class
(extension_declaration name: (identifier) @name) @def.class
(enum_declaration name: (identifier) @name) @def.enum
(type_alias . (type_identifier) @name) @def.type_alias
(method_signature [(function_signature name: (identifier) @name) (getter_signature name: (identifier) @name)
                   (setter_signature name: (identifier) @name)]) @def.method
(class_body (declaration (function_signature name: (identifier) @name)) @def.method)
"""
_DART_REFS = "[(identifier) (type_identifier)] @ref"
_DART_IMPORTS = "(import_specification (configurable_uri) @import)"

_QUERIES: dict[str, tuple[str, str, str]] = {
    "python": (_PY_DEFS, _PY_REFS, _PY_IMPORTS),
    "go": (_GO_DEFS, _GO_REFS, _GO_IMPORTS),
    "rust": (_RUST_DEFS, _RUST_REFS, _RUST_IMPORTS),
    "javascript": (_JS_DEFS_COMMON + _JS_DEFS_EXTRA, _JS_REFS, _JS_IMPORTS),
    "typescript": (_JS_DEFS_COMMON + _TS_DEFS_EXTRA, _TS_REFS, _JS_IMPORTS),
    "tsx": (_JS_DEFS_COMMON + _TS_DEFS_EXTRA, _TS_REFS, _JS_IMPORTS),
    "java": (_JAVA_DEFS, _JAVA_REFS, _JAVA_IMPORTS),
    "c": (_C_DEFS_COMMON, _C_REFS, _C_IMPORTS),
    "cpp": (_C_DEFS_COMMON + _CPP_DEFS_EXTRA, _CPP_REFS, _C_IMPORTS),
    "csharp": (_CS_DEFS, _CS_REFS, _CS_IMPORTS),
    "ruby": (_RUBY_DEFS, _RUBY_REFS, _RUBY_IMPORTS),
    "kotlin": (_KOTLIN_DEFS, _KOTLIN_REFS, _KOTLIN_IMPORTS),
    "php": (_PHP_DEFS, _PHP_REFS, _PHP_IMPORTS),
    "swift": (_SWIFT_DEFS, _SWIFT_REFS, _SWIFT_IMPORTS),
    "scala": (_SCALA_DEFS, _SCALA_REFS, _SCALA_IMPORTS),
    "elixir": (_ELIXIR_DEFS, _ELIXIR_REFS, _ELIXIR_IMPORTS),
    "lua": (_LUA_DEFS, _LUA_REFS, _LUA_IMPORTS),
    "haskell": (_HASKELL_DEFS, _HASKELL_REFS, _HASKELL_IMPORTS),
    "dart": (_DART_DEFS, _DART_REFS, _DART_IMPORTS),
}


@dataclass(frozen=True)
class Grammar:
    """A loaded grammar with its parser and compiled queries (one per process and language)."""

    name: str
    language: Any          # tree_sitter.Language
    parser: Any            # tree_sitter.Parser
    defs: Any              # tree_sitter.Query
    refs: Any
    imports: Any


@functools.cache
def grammar(name: str) -> Grammar:
    """Load the grammar of ``name`` (one of SUPPORTED); raises KeyError for an unknown language."""
    import tree_sitter  # lazy: heavy, and only the map needs it

    module_name, function = _GRAMMARS[name]
    module = importlib.import_module(module_name)
    language = tree_sitter.Language(getattr(module, function)())
    defs, refs, imports = _QUERIES[name]
    return Grammar(
        name=name,
        language=language,
        parser=tree_sitter.Parser(language),
        defs=tree_sitter.Query(language, defs),
        refs=tree_sitter.Query(language, refs),
        imports=tree_sitter.Query(language, imports),
    )


def query_cursor(query: Any) -> Any:
    """A fresh cursor for ``query`` (cursors hold match state, so one per use)."""
    import tree_sitter

    return tree_sitter.QueryCursor(query)
