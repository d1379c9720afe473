"""book.yaml (orchestrator/config.py): defaults round trip through `book init`, and every
kind of bad file is a ConfigError naming the file, the line and the fix, exit code 2."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from dataclasses import fields
from pathlib import Path

import pytest

from orchestrator import config
from orchestrator.config import KEYS, SCHEMA, Config, load, render_default
from orchestrator.errors import ConfigError, UsageError

BOOK = Path(sys.executable).parent / "book"


def ws_with(tmp_path: Path, text: str | bytes, src: bool = True) -> Path:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    if src:
        (root / "src").mkdir(exist_ok=True)
    p = root / "book.yaml"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def run_main(monkeypatch, capsys, *argv: str) -> tuple[int, str, str]:
    """The `book` console script in-process: orchestrator.main:main with sys.argv."""
    from orchestrator.main import main

    with warnings.catch_warnings():
        # typer 0.24 imports a name that click 8.5 deprecated; under `filterwarnings = error` the
        # first `import typer` would fail the test, so the CLI module is imported once here.
        warnings.filterwarnings("ignore", message=r"'click\.utils\.\w+' is deprecated", category=DeprecationWarning)
        import orchestrator.cli.commands  # noqa: F401
    monkeypatch.setattr(sys, "argv", ["book", *argv])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- defaults


def test_schema_and_dataclass_agree():
    names = [f.name for f in fields(Config) if f.name not in ("root", "file")]
    assert names == [k.name for k in SCHEMA] == config.field_names()
    defaults = Config()
    for k in SCHEMA:
        assert getattr(defaults, k.name) == k.default, k.name
        assert k.comment.strip()
        if k.choices:
            assert k.default in k.choices


def test_rendered_default_loads_back_equal_to_defaults(tmp_path):
    root = ws_with(tmp_path, render_default())
    cfg = load(root)
    assert cfg == Config()
    assert cfg.file == root / "book.yaml" and cfg.root == root.resolve()
    text = (root / "book.yaml").read_text()
    for k in SCHEMA:  # every key is written, each with its comment
        assert f"\n{k.name}:" in text
        assert f"# {k.comment}" in text


def test_rendered_with_values_loads_back(tmp_path):
    root = ws_with(tmp_path, render_default(title='Quotes " and: colons', source="./src", language="zh",
                                            gates="off", budget_usd=0, personas=["a: b", "中文读者"]))
    cfg = load(root)
    zh = config.LOCALIZED_DEFAULTS["zh"]  # a Chinese book's audience and brief are written in Chinese
    assert cfg == Config(title='Quotes " and: colons', language="zh", gates="off", budget_usd=0.0,
                         personas=["a: b", "中文读者"], audience=zh["audience"], brief=zh["brief"])


def test_book_init_zh_writes_chinese_title_audience_and_brief(tmp_path, monkeypatch, capsys):
    code, _, err = run_main(monkeypatch, capsys, "init", str(tmp_path / "b"), "--language", "zh")
    assert code == 0, err
    cfg = load(tmp_path / "b", check_source=False)
    assert (cfg.title, cfg.audience, cfg.brief) == tuple(config.LOCALIZED_DEFAULTS["zh"][k] for k in ("title", "audience", "brief"))


@pytest.mark.parametrize("manifest,text,name", [
    ("pyproject.toml", '[project]\nname = "tinydb"\n', "tinydb"),
    ("package.json", '{"name": "ky", "version": "1.0.0"}', "ky"),
    ("go.mod", "module github.com/go-chi/chi/v5\n\ngo 1.20\n", "chi"),
    ("go.mod", 'module "gopkg.in/yaml.v3"\n', "yaml"),  # go-yaml: quoted, and gopkg.in's version suffix
    ("Cargo.toml", '[package]\nname = "anyhow"\n', "anyhow"),
    ("README.md", "[![badge](x.svg)](y)\n\n# Zustand\n", "Zustand"),
    # a gem whose package.json only builds its docs site (faraday's "faraday-docs")
    ("faraday.gemspec", "Gem::Specification.new do |spec|\n  spec.name    = 'faraday'\nend\n", "faraday"),
])
def test_book_init_titles_the_book_after_the_project(tmp_path, monkeypatch, capsys, manifest, text, name):
    (tmp_path / "b" / "proj").mkdir(parents=True)
    (tmp_path / "b" / "proj" / manifest).write_text(text)
    if manifest.endswith(".gemspec"):
        (tmp_path / "b" / "proj" / "package.json").write_text('{"name": "faraday-docs", "private": true}')
    monkeypatch.chdir(tmp_path / "b")  # --source is relative to where `book init` runs
    code, _, err = run_main(monkeypatch, capsys, "init", str(tmp_path / "b"), "--source", "proj")
    assert code == 0, err
    assert load(tmp_path / "b", check_source=False).title == f"Inside {name}"


def test_book_init_output_loads_back_equal_to_defaults(tmp_path, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "init", str(tmp_path / "b"))
    assert code == 0, err
    assert out == ""  # messages go to stderr
    assert "book.yaml" in err
    cfg = load(tmp_path / "b", check_source=False)
    assert cfg == Config()
    # a second init changes nothing and is a usage error
    before = (tmp_path / "b/book.yaml").read_bytes()
    code, _, err = run_main(monkeypatch, capsys, "init", str(tmp_path / "b"))
    assert code == 2 and "already exists" in err
    assert (tmp_path / "b/book.yaml").read_bytes() == before


def test_book_init_example_has_a_loadable_source(tmp_path, monkeypatch, capsys):
    code, _, err = run_main(monkeypatch, capsys, "init", str(tmp_path / "b"), "--example", "--language", "zh")
    assert code == 0, err
    cfg = load(tmp_path / "b")
    assert cfg.source_dir.is_dir() and cfg.language == "zh"
    zh = config.LOCALIZED_DEFAULTS["zh"]
    # the sample is Python and the book Chinese: so is its newcomer persona (issue 23, item 7)
    assert cfg == Config(title=cfg.title, language="zh", audience=zh["audience"], brief=zh["brief"],
                         personas=config.default_personas("python", "zh"))
    assert "源码解读" in cfg.title


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as e:
        load(tmp_path)
    assert str(tmp_path / "book.yaml") in str(e.value) and "book init" in e.value.fix
    assert load(tmp_path, require=False) == Config()


@pytest.mark.parametrize("text", ["", "# only comments\n\n", "{}\n"])
def test_empty_file_means_defaults(tmp_path, text):
    assert load(ws_with(tmp_path, text)) == Config()


def test_precedence_flag_over_file_over_default(tmp_path):
    cfg = load(ws_with(tmp_path, "concurrency: 2\nprovider: offline\n"))
    assert cfg.concurrency == 2 and cfg.retries == 3  # file, default
    over = cfg.with_overrides(concurrency=7, provider=None)
    assert over.concurrency == 7 and over.provider == "offline"  # flag wins; None is "not given"


def test_model_for_role(tmp_path):
    cfg = load(ws_with(tmp_path, "model: m1\nmodels: {writer: m2}\n"))
    assert cfg.model_for("writer") == "m2" and cfg.model_for("researcher") == "m1"


# ---------------------------------------------------------------- good values with YAML quirks


@pytest.mark.parametrize("value", ["off", "Off", "OFF", "no", '"off"', "'off'"])
def test_gates_off_bare_or_quoted(tmp_path, value):
    assert load(ws_with(tmp_path, f"gates: {value}\n")).gates == "off"


@pytest.mark.parametrize("value,want", [("normal", "normal"), ("fast", "fast")])
def test_gates_values(tmp_path, value, want):
    assert load(ws_with(tmp_path, f"gates: {value}\n")).gates == want


def test_budget_forms(tmp_path):
    assert load(ws_with(tmp_path, "budget_usd: 3\n")).budget_usd == 3.0
    assert isinstance(load(ws_with(tmp_path, "budget_usd: 3\n")).budget_usd, float)
    assert load(ws_with(tmp_path, "budget_usd: 0\n")).budget_usd == 0.0
    assert load(ws_with(tmp_path, "budget_usd: 2.5\n")).budget_usd == 2.5


# ---------------------------------------------------------------- bad files

PAD = "# a comment\n\ntitle: My book\n\n"  # the bad line is line 5 in most cases below

BAD = {
    # name: (text, line, words in the message, words in the fix or None)
    "unknown key": (PAD + "titel: x\n", 5, ["unknown key 'titel'"], "did you mean 'title'"),
    "unknown key far": (PAD + "zzzzzzzz: 1\n", 5, ["unknown key 'zzzzzzzz'"], "known keys: title"),
    "unknown key close to model": (PAD + "modle: x\n", 5, ["unknown key 'modle'"], "did you mean 'model"),
    "wrong type text": (PAD + "concurrency: four\n", 5, ["concurrency must be a whole number", "'four'"],
                        "for example: concurrency: 4"),
    "wrong type bool": (PAD + "concurrency: true\n", 5, ["concurrency must be a whole number", "bool"], "concurrency: 4"),
    "wrong type float": (PAD + "retries: 1.5\n", 5, ["retries must be a whole number"], "retries: 3"),
    "wrong type title": (PAD + "audience: [a, b]\n", 5, ["audience must be text"], "audience:"),
    "wrong type personas": (PAD + "personas: one reader\n", 5, ["personas must be a list"], "personas:"),
    "wrong type models": (PAD + "models: [a]\n", 5, ["models must be a mapping"], "models: {}"),
    "gates on": (PAD + "gates: on\n", 5, ["gates must be text", "True"], "gates:"),
    "bad choice gates": (PAD + "gates: sometimes\n", 5, ["gates must be one of normal, fast, off", "'sometimes'"], None),
    "bad choice language": (PAD + "language: fr\n", 5, ["language must be one of en, zh", "'fr'"], None),
    "bad choice provider": (PAD + "provider: openai\n", 5, ["provider must be one of auto, anthropic, offline"], None),
    "negative budget": (PAD + "budget_usd: -5\n", 5, ["budget_usd cannot be negative"], None),
    "zero concurrency": (PAD + "concurrency: 0\n", 5, ["concurrency must be at least 1"], None),
    "negative revisions": (PAD + "max_revisions: -1\n", 5, ["max_revisions cannot be negative"], None),
    "empty personas": (PAD + "personas: []\n", 5, ["personas must be a non-empty list"], None),
    "blank persona": (PAD + "personas:\n  - ok\n  - '  '\n", 6, ["personas must be a non-empty list"], None),
    "models values": (PAD + "models: {writer: 3}\n", 5, ["models maps a role to a model name"], "writer: claude"),
    "max_tokens values": (PAD + "max_tokens: {writer: -1}\n", 5, ["positive whole number"], None),
    "duplicate key": (PAD + "title: Again\n", 5, ["key 'title' appears twice"], "keep one of them"),
    "missing source": (PAD + "source: ./nope\n", 5, ["source directory './nope' does not exist"], "point `source:`"),
    "invalid yaml": (PAD + "brief: [unclosed\n", 5, ["not valid YAML"], "indentation and quoting"),
    "invalid yaml tab": (PAD + "brief: x\n\tmodel: y\n", 6, ["not valid YAML"], "indentation and quoting"),
    "invalid yaml colon": (PAD + "brief: a: b\n", 5, ["not valid YAML"], "indentation and quoting"),
    "top level list": ("- a\n- b\n", 1, ["top level must be a mapping"], None),
    "top level text": ("just some words\n", 1, ["top level must be a mapping"], None),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_book_yaml_names_file_line_and_fix(tmp_path, case):
    text, line, words, fix = BAD[case]
    root = ws_with(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load(root)
    err = e.value
    msg = str(err)
    path = str(root / "book.yaml")
    assert err.file == path
    assert err.line == line
    assert msg.startswith(f"{path}:{line}: ")
    for w in words:
        assert w in msg
    if fix is not None:
        assert err.fix and fix in err.fix
        assert f"\n  fix: {err.fix}" in msg
    assert err.exit_code == 2 and isinstance(err, UsageError)


def test_missing_default_source_names_the_file(tmp_path):
    root = ws_with(tmp_path, "title: x\n", src=False)  # no `source:` key: the default ./src is missing
    with pytest.raises(ConfigError) as e:
        load(root)
    assert str(root / "book.yaml") in str(e.value) and "./src" in str(e.value) and e.value.fix
    assert load(root, check_source=False).source == "./src"


def test_not_utf8(tmp_path):
    root = ws_with(tmp_path, b"title: caf\xe9\n")
    with pytest.raises(ConfigError) as e:
        load(root)
    assert str(root / "book.yaml") in str(e.value) and "UTF-8" in str(e.value)


def test_every_schema_key_rejects_a_wrong_type(tmp_path):
    wrong = {str: "[1, 2]", int: '"x"', bool: '"x"', dict: "[1]", list: "{a: 1}", (int, float): '"x"'}
    for k in SCHEMA:
        root = ws_with(tmp_path, f"{k.name}: {wrong[k.type]}\n")
        with pytest.raises(ConfigError) as e:
            load(root)
        assert e.value.line == 1 and k.name in str(e.value)


# ---------------------------------------------------------------- through the command line: exit code 2


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_book_yaml_exits_2_through_the_cli(tmp_path, monkeypatch, capsys, case):
    text, line, words, fix = BAD[case]
    root = ws_with(tmp_path, text)
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    code, out, err = run_main(monkeypatch, capsys, "run", "--workspace", str(root))
    assert code == 2
    assert out == ""
    assert f"book.yaml:{line}:" in err and words[0] in err
    if fix:
        assert "fix:" in err
    assert "Traceback" not in err
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before  # nothing written


@pytest.mark.parametrize("case", ["unknown key", "bad choice gates", "invalid yaml"])
@pytest.mark.slow
def test_bad_book_yaml_exits_2_through_the_console_script(tmp_path, case):
    if not BOOK.exists():
        pytest.skip("the `book` console script is not installed in this environment")
    text, line, words, _ = BAD[case]
    root = ws_with(tmp_path, text)
    proc = subprocess.run([str(BOOK), "run", "--workspace", str(root)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert f"{root / 'book.yaml'}:{line}:" in proc.stderr and words[0] in proc.stderr


def test_scan_of_a_workspace_with_a_bad_book_yaml_exits_2(tmp_path, monkeypatch, capsys):
    root = ws_with(tmp_path, "gates: sometimes\n")
    code, out, err = run_main(monkeypatch, capsys, "scan", "--workspace", str(root))
    assert code == 2 and "book.yaml:1:" in err


def test_gates_off_through_the_cli(tmp_path, monkeypatch, capsys):
    """`gates: off` is accepted end to end (a scan loads the config and changes nothing)."""
    root = ws_with(tmp_path, "gates: off\n")
    code, out, err = run_main(monkeypatch, capsys, "scan", "--json", "--workspace", str(root))
    assert code == 0, err
    assert not (root / "output").exists()


# ---------------------------------------------------------------- bugs found by these tests, fixed


def test_complex_key_is_a_config_error(tmp_path, monkeypatch, capsys):
    root = ws_with(tmp_path, "title: x\n? [a, b]\n: c\n")
    code, _, err = run_main(monkeypatch, capsys, "run", "--workspace", str(root))
    assert code == 2 and "book.yaml:2:" in err


def test_unknown_yaml_tag_is_a_config_error(tmp_path, monkeypatch, capsys):
    root = ws_with(tmp_path, "brief: b\ntitle: !foo x\n")
    code, _, err = run_main(monkeypatch, capsys, "run", "--workspace", str(root))
    assert code == 2 and "book.yaml:2:" in err



def test_empty_value_is_handled(tmp_path, monkeypatch, capsys):
    root = ws_with(tmp_path, "title:\n")
    code, _, err = run_main(monkeypatch, capsys, "scan", "--workspace", str(root))
    assert code == 2 and "book.yaml:1:" in err and "title must be text" in err
    assert load(ws_with(tmp_path, "budget_usd:\n")).budget_usd == 0.0


def test_every_bad_value_error_carries_a_fix(tmp_path):
    for text in ("language: fr\n", "budget_usd: -1\n", "concurrency: 0\n", "personas: []\n", "gates: sometimes\n"):
        with pytest.raises(ConfigError) as e:
            load(ws_with(tmp_path, text))
        assert e.value.fix, text


def test_max_tokens_rejects_booleans(tmp_path):
    with pytest.raises(ConfigError):
        load(ws_with(tmp_path, "max_tokens: {writer: true}\n"))


def test_nan_budget_is_rejected(tmp_path):
    try:
        cfg = load(ws_with(tmp_path, "budget_usd: .nan\n"))
    except ConfigError:
        return
    assert not math.isnan(cfg.budget_usd)


def test_unknown_key_without_a_close_match_lists_every_key(tmp_path):
    with pytest.raises(ConfigError) as e:
        load(ws_with(tmp_path, "zzzzzzzz: 1\n"))
    assert e.value.fix == "known keys: " + ", ".join(KEYS)
