"""Calls written without parentheses, in the form the main path's readers of example code look for
(`name(`): Kotlin's, Swift's and Scala's trailing lambda (`KotlinLogging.logger {}`,
`logger.debug { "…" }`) and Ruby's block (`route do |r|`, `r.on "hello" do`) become `logger() {}`,
`route() do |r|`, `r.on("hello") do`. The book quotes an example as it is written; this form is only
read, to find which of the project's functions the example calls."""

from __future__ import annotations

import re

# languages whose last lambda argument is written after the call, without parentheses
TRAILING_LAMBDA = frozenset({"kotlin", "swift", "scala", "groovy"})

# words before `{` that open a declaration or a statement's block, not a call
_NOT_CALLS = frozenset("""class object interface fun enum companion init constructor if else when try catch
finally do while for return throw sealed data abstract open private public internal protected override
package import val var where struct protocol extension func switch case default guard defer repeat in
then begin end unless until loop def module rescue ensure elsif""".split())

_BEFORE_CALL = re.compile(r"(?:^|[=(,{;>.]|->|\breturn|\?:|&&|\|\|)\s*$")
_TRAILING = re.compile(r"(?<![\w$])((?:[A-Za-z_]\w*\s*\.\s*)*)([A-Za-z_]\w*)(?=\s*\{)")
_RUBY_BLOCK = re.compile(r"(?<![\w$:@])((?:[A-Za-z_][\w:]*\s*\.\s*)*)([a-z_]\w*[!?]?)"
                         r"(?:[ \t]+((?:\"[^\"\n]*\"|'[^'\n]*'|:\w+|[\w.:]+)(?:\s*,\s*(?:\"[^\"\n]*\"|'[^'\n]*'|:\w+|[\w.:]+))*))?"
                         r"(?=[ \t]*(?:\bdo\b|\{))")


def call_form(code: str, lang: str) -> str:
    """`code` with its calls written without parentheses given them, and a name imported under
    another name called by its own (see the module's doc)."""
    code = unaliased(code, lang)
    if lang in TRAILING_LAMBDA:
        code = _TRAILING.sub(lambda m: _trailing(code, m), code)
    if lang == "ruby":
        code = re.sub(r"(?<=\w)::(?=[a-z_])", ".", code)  # `Optimist::options do`: a method, written with `::`
        # (a class method called bare before a result comment: faker's `Faker::Name.name   #=> "Christophe Bartell"`)
        code = re.sub(r"(?m)^(\s*[A-Z]\w*(?:::[A-Z]\w*)*\.[a-z_]\w*[!?]?)([ \t]*(?:#.*)?)$", r"\1()\2", code)
        return _RUBY_BLOCK.sub(lambda m: _ruby(code, m), code)
    return made_apart(code) if lang != "go" else code


# a statement that calls a method on an object it constructs in place: `val html = HtmlGenerator(src, tree,
# flavour).generateHtml()`, `new Foo(x).run()`, `Parser::new(s).parse()`
_MADE_AND_CALLED = re.compile(r"(?m)^([ \t]*(?:>>>[ \t]*)?(?:(?:[\w<>\[\],.?]+[ \t]+)*[A-Za-z_]\w*[ \t]*:?=[ \t]*)?)"
                              r"((?:new[ \t]+)?(?:[A-Za-z_]\w*[ \t]*(?:\.|::)[ \t]*)*[A-Z]\w*(?:[ \t]*::[ \t]*new)?[ \t]*\()")


def made_apart(code: str) -> str:
    """A method called on an object constructed in the same statement from the example's values, written as
    two statements (`_made1 = HtmlGenerator(src, tree, flavour)` ⏎ `val html = _made1.generateHtml()`): the
    readers of example code find a value the example built, and the calls that made what it was given."""
    from .codetext import call_args

    out, at, k = [], 0, 0
    for m in _MADE_AND_CALLED.finditer(code):
        if m.start() < at:
            continue
        close = m.end() - 1 + len(call_args(code, m.end() - 1)) + 1
        link = re.compile(r"\s*\.\s*[a-z_]\w*[ \t]*\(").match(code, close + 1) if close < len(code) and code[close:close + 1] == ")" else None
        if link is None or not re.search(r"(?<![\w$.\"'])[a-z_]\w*\s*(?:,|$)", code[m.end():close]):
            continue  # (only an object made from the example's values: `Router::new().route(…)` is a builder's chain)
        k += 1
        indent = m.group(1)[:len(m.group(1)) - len(m.group(1).lstrip(" \t>"))]
        out.append(code[at:m.start()] + f"{indent}_made{k} = {code[m.start(2):close + 1]}\n{m.group(1)}_made{k}")
        at = close + 1
    return "".join(out) + code[at:]


_ES_IMPORT = re.compile(r"\bimport\s*(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\b")
_PY_IMPORT = re.compile(r"^\s*from\s+[\w.]+\s+import\s+\(?([^)\n]*)\)?", re.M)


def unaliased(code: str, lang: str) -> str:
    """Calls of a name imported under another (uuid's `import { v4 as uuidv4 } from 'uuid'` …
    `uuidv4()`) written as calls of the project's own name (`v4()`)."""
    rx = _ES_IMPORT if lang in ("javascript", "typescript") else _PY_IMPORT if lang == "python" else None
    if rx is None:
        return code
    alias = {m.group(2): m.group(1) for imp in rx.finditer(code)
             for m in re.finditer(r"([A-Za-z_$][\w$]*)\s+as\s+([A-Za-z_$][\w$]*)", imp.group(1))}
    for new, old in alias.items():
        code = re.sub(rf"(?<![\w$.]){re.escape(new)}(?=\s*\()", old, code)
    return code


def _called(code: str, m: re.Match[str]) -> bool:
    """The name at `m` is a call: no keyword, and what comes before it on its line ends an expression's
    start (`=`, `(`, a line's start) or the name is a member (`logger.debug`)."""
    if m.group(2) in _NOT_CALLS or (m.group(2)[:1].isupper() and not m.group(1)):
        return False  # (a bare capitalised name before `{` is a type's declaration or an object literal)
    before = code[code.rfind("\n", 0, m.start()) + 1:m.start()]
    words = before.split()
    if words and words[-1] in _NOT_CALLS:
        return False  # `class FooWithLogging {`, `object Foo {`
    return bool(m.group(1)) or bool(_BEFORE_CALL.search(before))


def _trailing(code: str, m: re.Match[str]) -> str:
    return m.group(0) + "()" if _called(code, m) else m.group(0)


def _ruby(code: str, m: re.Match[str]) -> str:
    if not _called(code, m):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}({m.group(3) or ''})"
