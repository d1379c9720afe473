"""`book.yaml`: one typed, validated schema. Every key has a default and a one-line comment
(`book init` writes them all); unknown keys, wrong types and a missing source directory
are errors that name the file, the line and the fix. Precedence: flag > file > default."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .defaults import (  # noqa: F401  (re-exported)
    DEFAULT_MODEL,
    DEFAULT_TITLE,
    DEFAULT_TITLES,
    LEGACY_PERSONAS,
    LOCALIZED_DEFAULTS,
    default_personas,
    main_language,
)
from .errors import ConfigError

DEFAULT_PERSONAS = LEGACY_PERSONAS  # the schema's placeholder; a book's own follow its source (`_localized`)


@dataclass(frozen=True)
class Key:
    name: str
    type: type | tuple[type, ...]
    default: Any
    comment: str
    choices: tuple[Any, ...] = ()


SCHEMA: tuple[Key, ...] = (
    Key("title", str, DEFAULT_TITLE, "the book's title"),
    Key("language", str, "en", "language of the book and of checkpoint.md: en or zh", ("en", "zh")),
    Key("audience", str, "developers who will work on this code", "who the book is for"),
    Key("source", str, "./src", "the source tree to write about, relative to this file"),
    Key("brief", str, "Explain how the code works, module by module, with real code.",
        "what the book should cover, in a sentence or two"),
    Key("gates", str, "normal", "where a person approves: normal (outline, research, review, final), fast (outline, final), off",
        ("normal", "fast", "off")),
    Key("gate_grain", str, "phase", "phase (one card per gate for the whole book: the chapters run on to their finals "
        "before a person looks at research and reviews, so a rejection redoes more; any chapter can still be "
        "rejected alone), batch (one card per gate and batch of the outline) or chapter (one card each)",
        ("chapter", "batch", "phase")),
    Key("provider", str, "auto", "auto (anthropic when ANTHROPIC_API_KEY is set, else offline), anthropic or offline",
        ("auto", "anthropic", "offline")),
    Key("server", str, "anthropic", "anthropic (Anthropic's API) or compatible (any server that speaks the Messages "
        "API at ANTHROPIC_BASE_URL: Ollama, llama.cpp, vLLM; no key needed)", ("anthropic", "compatible")),
    Key("context_window", int, 0, "server: compatible: the model's context window in tokens (the server's "
        "num_ctx / --ctx-size); 0: from the server's model listing, else 8192. Claude's come from data/models.yaml"),
    Key("max_output", int, 0, "server: compatible: the most tokens one answer may take; 0: the listing's, else "
        "2048 (at most a quarter of the window)"),
    Key("prices", dict, {}, "server: compatible: USD per million tokens, e.g. {input: 0.2, output: 0.8}; "
        "empty: the calls cost 0"),
    Key("model", str, DEFAULT_MODEL, "the model for every role, unless `models` names another"),
    Key("models", dict, {}, "per-role model or settings, e.g. {writer: claude-opus-5} or "
        "{editor: {model: claude-sonnet-5-5, max_tokens: 32000, thinking: adaptive, effort: high}}; each role's "
        "default effort: low (memory_keeper, merger, reader_panel), medium (reviewers, researcher, auditor), "
        "high (planner, writer, editor)"),
    Key("fallback_model", str, "", "the model a request goes to when the main one refuses it twice; empty: another "
        "model of the same family (data/models.yaml); none: no fallback, a person is asked"),
    Key("max_tokens", dict, {}, "per-role output token limit, thinking included, e.g. {writer: 48000} "
        "(default: the answer's size plus room to think at the role's effort)"),
    Key("concurrency", int, 4, "model calls in flight at once"),
    Key("message_batches", bool, False, "send each wave of ready steps as one Message Batch (half price, "
        "slower; anthropic only); or `book run --message-batches`"),
    Key("prompt_layout", str, "handbook", "how prompts are laid out for the prompt cache (anthropic): handbook "
        "(one book-wide block with every role's instructions, then the chapter, then the role's task) or roles "
        "(the book, then the chapter, then the role's own instructions)", ("handbook", "roles")),
    Key("budget_usd", (int, float), 25.0, "stop cleanly before a call that could cross this spend; 0 means no cap"),
    Key("personas", list, DEFAULT_PERSONAS, "the simulated readers of the reader panel"),
    Key("batch_size", int, 3, "chapters per batch when the planner drafts the outline"),
    Key("max_chapters", int, 12, "the most chapters the planner may propose"),
    Key("retries", int, 3, "attempts per step before it is marked failed"),
    Key("max_revisions", int, 1, "automatic rewrites of a blocked draft before a person is asked"),
    Key("evidence_min", (int, float), 0.8, "the share (0-1) of a chapter's paragraphs about the code that must cite "
        "their source lines before it goes on to its final; `book accept chNN draft` passes a chapter below it"),
    Key("exports", list, [], "what `book run` exports after the site, e.g. [epub, pdf] (or `book export --epub --pdf`)"),
    Key("authors", list, [], "the book's authors, named in the exports' metadata and title page"),
    Key("site_url", str, "", "where the site will be served (sitemap.xml's absolute URLs); empty: relative"),
)
KEYS = {k.name: k for k in SCHEMA}


@dataclass(frozen=True)
class Config:
    title: str = KEYS["title"].default
    language: str = "en"
    audience: str = KEYS["audience"].default
    source: str = "./src"
    brief: str = KEYS["brief"].default
    gates: str = "normal"
    # a card per gate for the whole book: 4 decisions for any book with gates: normal, against
    # 1 + 3 per batch (28 for a 12-chapter book in 9 batches) or 1 + 3 per chapter (37)
    gate_grain: str = "phase"
    provider: str = "auto"
    server: str = "anthropic"
    context_window: int = 0
    max_output: int = 0
    prices: dict[str, float] = field(default_factory=dict)
    model: str = DEFAULT_MODEL
    models: dict[str, Any] = field(default_factory=dict)
    fallback_model: str = ""
    max_tokens: dict[str, int] = field(default_factory=dict)
    concurrency: int = 4
    message_batches: bool = False
    prompt_layout: str = "handbook"
    budget_usd: float = 25.0
    personas: list[str] = field(default_factory=lambda: list(DEFAULT_PERSONAS))
    batch_size: int = 3
    max_chapters: int = 12
    retries: int = 3
    max_revisions: int = 1
    evidence_min: float = 0.8
    exports: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    site_url: str = ""
    # not in the file: where it was loaded from
    root: Path = field(default=Path("."), compare=False)
    file: Path | None = field(default=None, compare=False)

    @property
    def source_dir(self) -> Path:
        return (self.root / self.source).resolve()

    @property
    def shown_source(self) -> str:
        """The source as readers see it: the project's name and the path inside it, never this
        machine's path (book.yaml may hold an absolute one)."""
        from .repo.project import shown_name

        return shown_name(self.source_dir)

    def model_for(self, role: str) -> str:
        entry = self.models.get(role, self.model)
        return str(entry.get("model") or self.model) if isinstance(entry, dict) else entry

    def with_overrides(self, **kw: Any) -> Config:
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


def _yaml_scalar(v: Any) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else str(v)




def render_default(title: str | None = None, source: str | None = None, language: str | None = None,
                   project: Path | None = None, **values: Any) -> str:
    """The book.yaml that `book init` writes: every key, its value, a comment."""
    vals = {k.name: k.default for k in SCHEMA}
    vals.update(LOCALIZED_DEFAULTS.get(language or "en", {}))  # a Chinese book's title, audience and brief in Chinese
    code = main_language(project) if project is not None and "personas" not in values else None
    if code:  # the newcomer knows the project's language
        vals["personas"] = default_personas(code, language or "en")
    vals.update({k: v for k, v in dict(title=title, source=source, language=language, **values).items() if v is not None})
    lines = ["# book.yaml: the book to write. Every key is shown with its default.",
             "# Flags on the command line win over this file; this file wins over the defaults.", ""]
    for k in SCHEMA:
        v = vals[k.name]
        lines.append(f"# {k.comment}")
        if k.name == "personas":
            lines.append("personas:")
            lines += [f"  - {_yaml_scalar(p)}" for p in v]
        else:
            lines.append(f"{k.name}: {_yaml_scalar(v)}")
    return "\n".join(lines) + "\n"


def _type_name(t: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "a whole number", float: "a number", list: "a list", dict: "a mapping"}
    ts = t if isinstance(t, tuple) else (t,)
    return " or ".join(names.get(x, x.__name__) for x in ts)


def load(root: str | os.PathLike[str], require: bool = True, check_source: bool = True) -> Config:
    """Load `<root>/book.yaml`. Without the file: defaults (or an error when `require`)."""
    root = Path(root).resolve()
    path = root / "book.yaml"
    shown = str(path)
    if not path.exists():
        if require:
            raise ConfigError("no book.yaml here", shown, fix="run `book init` to create one, or pass --workspace DIR")
        return Config(root=root)
    import yaml  # only commands that read a config pay for it
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"not UTF-8 text ({e})", shown) from None
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as e:
        from .text.yaml_lines import error_line

        raise ConfigError(f"not valid YAML: {getattr(e, 'problem', e)}", shown, error_line(e, text),
                          fix="check the indentation and quoting on that line") from None
    if node is None:
        return Config(root=root, file=path)
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError("the top level must be a mapping of keys to values", shown, node.start_mark.line + 1)
    values: dict[str, Any] = {}
    constructor = yaml.SafeLoader("")  # builds each value from its node, so errors keep their line
    for knode, vnode in node.value:
        line = knode.start_mark.line + 1
        if not isinstance(knode, yaml.ScalarNode):
            raise ConfigError("keys must be plain names", shown, line, fix=f"known keys: {', '.join(KEYS)}")
        name = knode.value
        if name not in KEYS:
            import difflib

            close = difflib.get_close_matches(str(name), list(KEYS), n=1)
            raise ConfigError(f"unknown key {name!r}", shown, line,
                              fix=f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(KEYS)}")
        if name in values:
            raise ConfigError(f"key {name!r} appears twice", shown, line, fix="keep one of them")
        key = KEYS[name]
        vline = vnode.start_mark.line + 1
        try:
            value = constructor.construct_object(vnode, deep=True)
        except yaml.YAMLError as e:
            raise ConfigError(f"{name}: {getattr(e, 'problem', None) or e}", shown, vline,
                              fix=f"write a plain value, for example: {name}: {_yaml_scalar(key.default)}") from None
        if name == "gates" and value is False:  # YAML 1.1 reads a bare `off` as false
            value = "off"
        if name == "budget_usd" and value is None:
            value = 0
        ok = isinstance(value, key.type) and not (isinstance(value, bool) and key.type is not bool)
        if not ok:
            raise ConfigError(f"{name} must be {_type_name(key.type)}, not {type(value).__name__} ({value!r})",
                              shown, vline, fix=f"for example: {name}: {_yaml_scalar(key.default)}")
        if key.choices and value not in key.choices:
            raise ConfigError(f"{name} must be one of {', '.join(map(str, key.choices))}, not {value!r}", shown, vline,
                              fix=f"{name}: {key.choices[0]}")
        if name in ("concurrency", "retries", "batch_size", "max_chapters") and value < 1:
            raise ConfigError(f"{name} must be at least 1, not {value}", shown, vline, fix=f"{name}: {key.default}")
        if name in ("context_window", "max_output") and value < 0:
            raise ConfigError(f"{name} cannot be negative (0: the default)", shown, vline, fix=f"{name}: 8192")
        if name == "prices" and value:
            from .providers.anthropic.server import check_prices

            why = check_prices(value)
            if why:
                raise ConfigError(why, shown, vline, fix="prices: {input: 0.2, output: 0.8}")
        if name == "budget_usd" and not math.isfinite(value):
            raise ConfigError("budget_usd must be a finite number", shown, vline, fix="budget_usd: 25 (0 means no cap)")
        if name in ("budget_usd", "max_revisions") and value < 0:
            raise ConfigError(f"{name} cannot be negative", shown, vline, fix=f"{name}: {key.default}")
        if name == "evidence_min" and not (0 <= value <= 1):
            raise ConfigError("evidence_min is a share between 0 and 1", shown, vline, fix="evidence_min: 0.8")
        if name == "title" and not value.strip():  # the site and every prompt name the book by it
            raise ConfigError("title is empty", shown, vline, fix=f'title: "{key.default}"')
        if name == "personas" and (not value or not all(isinstance(p, str) and p.strip() for p in value)):
            raise ConfigError("personas must be a non-empty list of descriptions", shown, vline,
                              fix='personas: ["newcomer: knows Go, new to this code"]')
        if name == "models" and value:  # each role's model, max_tokens, thinking, effort against data/models.yaml
            from .providers.anthropic.settings import validate_models

            validate_models(value, vnode, shown, DEFAULT_MODEL)
        if name == "exports" and not all(v in ("epub", "pdf") for v in value):
            raise ConfigError(f"exports lists epub and pdf only, not {value!r}", shown, vline, fix="exports: [epub, pdf]")
        if name == "authors" and not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError("authors must be a list of names", shown, vline, fix='authors: ["Ada Lovelace"]')
        if name == "site_url" and value and not value.startswith(("https://", "http://")):
            raise ConfigError(f"site_url must start with https:// or http://, not {value!r}", shown, vline,
                              fix='site_url: "https://example.org/book/"')
        if name == "max_tokens" and not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                            for v in value.values()):
            raise ConfigError("max_tokens maps a role to a positive whole number", shown, vline)
        values[name] = float(value) if name in ("budget_usd", "evidence_min") else value
    cfg = _localized(Config(root=root, file=path, **values), values)
    if cfg.server == "compatible" and cfg.max_output and cfg.context_window and cfg.max_output >= cfg.context_window:
        raise ConfigError(f"max_output ({cfg.max_output}) must be below context_window ({cfg.context_window}): the "
                          "prompt needs room too", shown, fix="max_output: a quarter of context_window")
    if check_source:
        line = next((k.start_mark.line + 1 for k, _ in node.value if k.value == "source"), None)
        check_source_dir(cfg.source_dir, cfg.source, shown, line, empty_ok=True)
    return cfg


def _localized(cfg: Config, given: dict[str, Any]) -> Config:
    """The defaults a person did not change, in the book's language and for the project's
    language: a Chinese book's audience in Chinese, a Go project's newcomer who knows Go."""
    kw: dict[str, Any] = {}
    local = LOCALIZED_DEFAULTS.get(cfg.language, {})
    for name in ("audience", "brief"):
        if name in local and given.get(name, KEYS[name].default) == KEYS[name].default:
            kw[name] = local[name]
    mine = given.get("personas")
    untouched = mine is None or mine == LEGACY_PERSONAS or any(  # a default of either language, as init wrote it
        mine[1:] == default_personas(None, lang)[1:] and len(mine) == 3 for lang in ("en", "zh"))
    code = main_language(cfg.source_dir) if untouched and cfg.source_dir.is_dir() else None
    if code:  # no code yet: nothing to follow, the defaults stand
        kw["personas"] = default_personas(code, cfg.language)
    return replace(cfg, **kw) if kw else cfg


def check_source_dir(path: Path, given: str, file: str | None = None, line: int | None = None,
                     empty_ok: bool = False) -> None:
    """The source must be a directory (with something in it, for `book init`): a missing path,
    a file, or an empty directory is a config error naming it (a run could only fail later,
    less clearly). A run on a source with no code says so at the outline, naming the path."""
    fix = "point `source:` at the repository to write about, relative to book.yaml" if file else \
        "pass --source with the directory of the code to write about (relative to where you run `book init`)"
    if not path.exists():
        raise ConfigError(f"source directory {given!r} does not exist ({path})", file, line, fix=fix)
    if not path.is_dir():
        raise ConfigError(f"source {given!r} is a file, not a directory ({path})", file, line,
                          fix=fix + " (the directory that holds it)")
    if empty_ok:
        return
    try:
        with os.scandir(path) as it:
            empty = next(it, None) is None
    except OSError as e:
        raise ConfigError(f"source directory {given!r} cannot be read ({path}): {e.strerror}", file, line,
                          fix=fix) from None
    if empty:
        raise ConfigError(f"source directory {given!r} is empty ({path}): there is no code to write about",
                          file, line, fix=fix)


def check_source_has_files(path: Path, given: str) -> None:
    """`book init`: a source with no file worth reading (only binaries, only what .gitignore
    leaves out) is refused now rather than at the outline. A bounded look: a huge tree whose
    first entries hold no such file is let through (the outline says so if it has none)."""
    from .repo.walk import walk

    tree = walk(path, max_files=1, max_entries=20_000)
    if tree.files or tree.truncated:
        return
    why = sorted({s.reason.split(" (")[0] for s in tree.skipped})[:3]
    raise ConfigError(f"source directory {given!r} has no file to read ({path})"
                      + (f": everything in it is left out ({', '.join(why)})" if why else ""),
                      fix="pass --source with the directory of the code to write about")


def stored_source(book_root: Path, source: Path) -> str:
    """How book.yaml names a source given on the command line: relative to the book when the
    source lies inside the book or beside it (under the book's parent), else absolute."""
    src, root = source.resolve(), book_root.resolve()
    if src == root or root in src.parents or root.parent in src.parents or src == root.parent:
        rel = Path(os.path.relpath(src, root)).as_posix()
        return rel if rel.startswith("..") else f"./{rel}" if rel != "." else "."
    return str(src)


def field_names() -> list[str]:
    return [f.name for f in fields(Config) if f.name not in ("root", "file")]
