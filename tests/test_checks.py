"""Tests of the deterministic checks (orchestrator/checks.py): R1 code, R2 consistency,
R3 structure, the final audit, and findings as text."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from orchestrator.checks import (
    CodeBlock,
    Finding,
    audit_book,
    blocking,
    check_code,
    check_consistency,
    check_structure,
    code_blocks,
    format_findings,
    heading_slugs,
    parse_findings,
    slugify,
    text_length,
)
from orchestrator.contracts.jsonread import one_line

STORE = '''\
"""A tiny key-value store."""
import json
from pathlib import Path

from .wal import WriteAheadLog

DEFAULT_PATH = "data.kv"


def encode_record(key: str, value: str) -> bytes:
    return json.dumps({"k": key, "v": value}).encode()


class Store:
    """An in-memory store backed by a write-ahead log."""

    def __init__(self, path=DEFAULT_PATH):
        self.path = Path(path)
        self._data = {}
        self._wal = WriteAheadLog(self.path)

    def get(self, key, default=None):
        return self._data.get(key, default)

    def put(self, key, value):
        self._wal.append(encode_record(key, value))
        self._data[key] = value
        if len(self._data) > 1000:
            self.compact()

    def compact(self):
        pass
'''

WAL = """\
class WriteAheadLog:
    def __init__(self, path):
        self.path = path

    def append(self, record: bytes) -> None:
        with open(self.path, "ab") as fh:
            fh.write(record + b"\\n")
"""

GO = "package server\n\nfunc HandleRequest(w Writer) {\n\tif w != nil {\n\t\tw.Write(nil)\n\t}\n}\n"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "minikv").mkdir(parents=True)
    (root / "minikv" / "__init__.py").write_text("from .store import Store\n\n__all__ = ['Store']\n")
    (root / "minikv" / "store.py").write_text(STORE)
    (root / "minikv" / "wal.py").write_text(WAL)
    (root / "server").mkdir()
    (root / "server" / "server.go").write_text(GO)
    (root / "README.md").write_text("# minikv\n\nA tiny store.\n")
    (tmp_path / "secret.py").write_text("x = 1\n")
    return root


def md_block(code: str, info: str = "python file=minikv/store.py", fence: str = "```") -> str:
    return f"# T\n\nText.\n\n{fence}{info}\n{textwrap.dedent(code).strip(chr(10))}\n{fence}\n"


def checks_of(findings: list[Finding]) -> list[tuple[str, str]]:
    return [(f.check, f.severity) for f in findings]


# ----------------------------------------------------------------- code_blocks


def test_code_blocks_parses_info_string():
    md = "# T\n\n```python file=minikv/store.py lines=10-24\nx = 1\n```\n\n```\nplain\n```\n"
    a, b = code_blocks(md)
    assert a == CodeBlock("python", "minikv/store.py", (10, 24), "x = 1", 3)
    assert (b.lang, b.file, b.lines, b.code, b.line) == ("", None, None, "plain", 7)


def test_code_blocks_file_without_language_and_single_line():
    (b,) = code_blocks("```file=a.py lines=7\ny\n```")
    assert (b.lang, b.file, b.lines) == ("", "a.py", (7, 7))


def test_code_blocks_tilde_and_long_fences_nest():
    md = "~~~text\n```python\nnot a block\n```\n~~~\n\n````markdown\n```python file=x.py\ninner\n```\n````\n"
    blocks = code_blocks(md)
    assert [(b.lang, b.line) for b in blocks] == [("text", 1), ("markdown", 7)]
    assert "```python file=x.py" in blocks[1].code
    assert all(b.file is None for b in blocks)


def test_closing_fence_must_match():
    # a ``` does not close a ~~~ fence, nor a shorter fence a longer one
    (b,) = code_blocks("~~~\na\n```\nb\n~~~\nafter\n")
    assert b.code == "a\n```\nb" and b.closed
    (c,) = code_blocks("````\na\n```\n````\n")
    assert c.code == "a\n```"


def test_unclosed_fence_runs_to_the_end():
    (b,) = code_blocks("# T\n\n```python\ndef f():\n    return 1\n")
    assert not b.closed and b.code == "def f():\n    return 1\n"


def test_indented_fence_is_dedented_and_backtick_info_is_not_a_fence():
    (b,) = code_blocks("1. step\n\n   ```python\n   x = 1\n       y\n   ```\n")
    assert b.code == "x = 1\n    y"
    assert code_blocks("``` a`b\nx\n```\n") == [CodeBlock("", None, None, "", 3, closed=False)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(list("`~ \n\tax=#.<>-*[]()!\r") + ["```", "~~~", "file=", "\n```py\n", "## h\n"])
    )
)
def test_code_blocks_never_raises(parts):
    text = "".join(parts)
    for b in code_blocks(text):
        assert b.line >= 1
    check_structure(text)
    heading_slugs(text)
    check_consistency(
        text, "ch01", glossary={"WAL": "ch01"}, chapters={"ch01": "A"}, metaphors={"post office": "ch02"}
    )


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_text_checks_never_raise_on_any_text(text):
    code_blocks(text)
    check_structure(text, language="zh")
    audit_book({"ch01": text}, glossary={"x": "ch01"}, chapters={"ch01": "One"})


# ----------------------------------------------------------------- R1: code blocks


def test_exact_block_is_verified(src):
    md = md_block("""
        def get(self, key, default=None):
            return self._data.get(key, default)
    """)
    findings, ok = check_code(md, src)
    assert findings == [] and len(ok) == 1 and ok[0].file == "minikv/store.py"


def test_indentation_shifted_block_is_verified(src):
    # quoted at the method's indentation, dedented, or indented more: all the same code
    for code in (
        "    def get(self, key, default=None):\n        return self._data.get(key, default)",
        "def get(self, key, default=None):\n  return self._data.get(key, default)",
        "            def get(self, key, default=None):\n                return self._data.get(key, default)",
    ):
        findings, ok = check_code(f"# T\n\n```python file=minikv/store.py\n{code}\n```\n", src)
        assert findings == [] and ok, code


def test_tabs_in_source_match_spaces_in_block(src):
    md = md_block(
        "func HandleRequest(w Writer) {\n    if w != nil {\n        w.Write(nil)\n    }\n}",
        "go file=server/server.go",
    )
    assert check_code(md, src) == ([], code_blocks(md))


def test_a_tab_inside_a_line_is_the_same_line_whatever_its_indentation(src):
    # echo's aligned comments (a backticked word, a space and two tabs, then text), quoted with its tabs
    (src / "server" / "csrf.go").write_text("package server\n\ntype C struct {\n\t// - `same-site` \t\tsame domain\n\tX int\n}\n")
    for code in ("type C struct {\n\t// - `same-site` \t\tsame domain\n\tX int\n}",
                 "// - `same-site` \t\tsame domain\nX int"):
        md = md_block(code, "go file=server/csrf.go")
        assert check_code(md, src) == ([], code_blocks(md)), code


def test_wrong_relative_indentation_is_blocking(src):
    md = md_block("""
        if len(self._data) > 1000:
        self.compact()
    """)
    findings, ok = check_code(md, src)
    assert checks_of(findings) == [("r1.code", "blocking")] and ok == []
    assert "indented differently" in findings[0].message


def test_changed_code_is_blocking_and_named(src):
    md = md_block("""
        def get(self, key, default=None):
            return self._data[key]
    """)
    (f,), ok = check_code(md, src)
    assert (f.check, f.severity, f.line) == ("r1.code", "blocking", 5)
    assert f.message.startswith("code block at line 5 is not in minikv/store.py")
    assert "return self._data[key]" in f.message and ok == []


def test_blank_lines_at_the_ends_and_trailing_spaces_are_ignored(src):
    md = "# T\n\n```python file=minikv/store.py\n\n   \nclass Store:   \n\n\n```\n"
    assert check_code(md, src)[0] == []


@pytest.mark.parametrize("elision", ["...", "# ...", "    ..."])
def test_elided_block_is_verified(src, elision):
    md = md_block(f"""
        class Store:
        {elision}
            def put(self, key, value):
                self._wal.append(encode_record(key, value))
        {elision}
                    self.compact()
    """)
    assert check_code(md, src)[0] == []


def test_elided_pieces_must_be_in_order(src):
    md = md_block("""
        def compact(self):
            pass
        # ...
        def get(self, key, default=None):
    """)
    (f,), _ = check_code(md, src)
    assert f.severity == "blocking" and "another order" in f.message


def test_missing_or_escaping_file_is_blocking(src):
    for path, why in (
        ("minikv/nope.py", "does not exist"),
        ("../secret.py", "outside"),
        ("/etc/passwd", "outside"),
        ("minikv", "does not exist"),
    ):
        (f,), ok = check_code(md_block("x = 1", f"python file={path}"), src)
        assert (f.check, f.severity) == ("r1.code", "blocking") and why in f.message and path in f.message
        assert ok == []


def test_symlink_out_of_the_source_is_blocking(src):
    try:
        os.symlink(src.parent / "secret.py", src / "link.py")
    except OSError:
        pytest.skip("no symlinks here")
    (f,), _ = check_code(md_block("x = 1", "python file=link.py"), src)
    assert f.severity == "blocking" and "outside" in f.message


def test_declared_lines_are_checked(src):
    good = md_block(
        "def get(self, key, default=None):\n    return self._data.get(key, default)",
        "python file=minikv/store.py lines=22-23",
    )
    assert check_code(good, src)[0] == []
    bad = good.replace("lines=22-23", "lines=3-4")
    (f,), ok = check_code(bad, src)
    assert (f.check, f.severity) == ("r1.code", "minor") and "at lines 22-23" in f.message and len(ok) == 1


def test_source_with_bom_and_crlf(src):
    (src / "bom.py").write_bytes("\ufeffimport os\r\n\r\ndef f():\r\n    return os.sep\r\n".encode())
    md = md_block("import os\n...\n    return os.sep", "python file=bom.py")
    assert check_code(md, src)[0] == []


def test_illustrative_blocks_are_not_verified(src):
    md = md_block("this is not in any file()", "python")
    assert check_code(md, src) == ([], [])


# ----------------------------------------------------------------- R1: paths and symbols


def test_inline_paths(src):
    md = (
        "# T\n\nSee `minikv/store.py`, `store.py`, `README.md`, `minikv/`, `minikv/store.py:12`,\n"
        "`./minikv/wal.py` and `src/minikv/wal.py`.\n\nBut `minikv/nope.py` and `docs/guide.md` are gone.\n"
    )
    findings, _ = check_code(md, src)
    assert checks_of(findings) == [("r1.path", "major")] * 2
    assert {f.line for f in findings} == {6}
    assert "`docs/guide.md`" in findings[0].message and "`minikv/nope.py`" in findings[1].message


def test_existing_symbols_pass(src):
    md = (
        "# T\n\n`Store.get()`, `Store.get`, `encode_record`, `minikv.wal.WriteAheadLog`, `WriteAheadLog.append()`,\n"
        "`self._wal`, `Store.path`, `Store._data`, `DEFAULT_PATH`, `minikv.Store`, `store.Store`, `Store.__init__`,\n"
        "`os.path.join`, `json.dumps()`, `dict.get`, `len()`, `store.get(key)`, `self._wal.append()`, `Path.open`,\n"
        "`default`, `record`, `HandleRequest` (Go, found as text), `@dataclass`, `Store::get`.\n"
    )
    assert check_code(md, src)[0] == []
    (f,), _ = check_code("# T\n\nThe parameter `default_value`.\n", src)
    assert f.message == "`default_value` is cited but no such name is defined in the source"


def test_missing_symbols_are_major(src):
    md = "# T\n\n`Store.delete()` and `decode_record` and `minikv.wal.Journal` and `HandleResponse()` and `Store.compact`.\n"
    findings, _ = check_code(md, src)
    assert checks_of(findings) == [("r1.symbol", "major")] * 4
    messages = " ".join(f.message for f in findings)
    assert "class `Store` has no member `delete`" in messages
    assert "`decode_record`" in messages and "`HandleResponse()`" in messages
    assert "module `minikv.wal` defines no `Journal`" in messages


def test_words_commands_and_literals_are_not_checked(src):
    md = (
        "# T\n\n`store`, `key`, `python -m minikv put a b`, `42`, `3.11`, `v1.2.3`, `\"abc\"`, `'x'`, `None`,\n"
        "`--force`, `Store`, `WAL`, `https://example.com/x.py`, `*.py`, `x[0]`, `a -> b`, ``code with `tick` ``.\n"
    )
    assert check_code(md, src)[0] == []


def test_inline_code_inside_fences_is_not_checked(src):
    md = "# T\n\n```text\n`minikv/nope.py` and `Nope.nope()`\n```\n"
    assert check_code(md, src) == ([], [])


def test_chinese_text_with_citations(src):
    md = "# 存储\n\n`Store.get()` 方法读取 `minikv/store.py` 中的数据，而 `Store.remove()` 并不存在。\n"
    (f,), _ = check_code(md, src)
    assert (f.check, f.line) == ("r1.symbol", 3) and "`Store.remove()`" in f.message


def test_symbol_index_follows_source_edits(src):
    md = "# T\n\n`Store.delete()`\n"
    assert len(check_code(md, src)[0]) == 1
    store = src / "minikv" / "store.py"
    store.write_text(STORE + "\n    def delete(self, key):\n        self._data.pop(key, None)\n")
    os.utime(store, ns=(1, 1_000_000_000_000))  # a different mtime even on a coarse clock
    assert check_code(md, src)[0] == []


def test_inheritance_and_external_bases(src):
    (src / "minikv" / "extra.py").write_text(
        "from enum import Enum\n\nclass Base:\n    def close(self): ...\n\n"
        "class Child(Base):\n    kind: str = 'x'\n\nclass Color(Enum):\n    RED = 1\n"
    )
    md = "# T\n\n`Child.close()`, `Child.kind`, `Color.RED`, `Color.value`, but `Child.open()`.\n"
    findings, _ = check_code(md, src)
    assert [f.message for f in findings] == ["`Child.open()` is cited but class `Child` has no member `open`"]


# ----------------------------------------------------------------- R2: consistency

CHAPTERS = {"ch01": "Storage", "ch02": "The log", "ch03": "Recovery"}


def consistency(md, chapter="ch02", glossary=None, metaphors=None):
    return check_consistency(
        md, chapter, glossary=glossary or {}, chapters=CHAPTERS, metaphors=metaphors or {}
    )


def test_chapter_links():
    md = "# T\n\nSee [storage](ch01.md), [recovery](ch03.md#replay), [x](ch09.md), [me](ch02.md#a)\nand `[code](ch07.md)`.\n"
    findings = consistency(md)
    assert [(f.check, f.severity, f.line) for f in findings] == [
        ("r2.xref", "minor", 3),
        ("r2.xref", "major", 3),
    ]
    assert "itself" in findings[0].message and "ch09.md" in findings[1].message


def test_redefinition_of_another_chapters_term():
    gl = {"write-ahead log": "ch01", "segment": "ch02", "预写日志": "ch01"}
    md = (
        "# T\n\n**Write-ahead log**: a file of records.\n\n**segment**: a piece of the log.\n\n"
        "**预写日志**（WAL）是一种日志。\n\n**write-ahead log:** again.\n\nA **bold** remark: fine.\n"
    )
    findings = consistency(md, glossary=gl)
    assert [(f.check, f.line) for f in findings] == [
        ("r2.glossary", 3),
        ("r2.glossary", 7),
        ("r2.glossary", 9),
    ]
    assert findings[0].message == "redefines 'write-ahead log', defined in ch01; link to it instead"
    assert "'预写日志'" in findings[1].message


def test_glossary_capitalisation():
    gl = {"write-ahead log": "ch01", "MemTable": "ch01"}
    md = (
        "# T\n\n## The Write-Ahead Log\n\nWrite-ahead log entries come first. The write-ahead log is fsynced.\n\n"
        "A memtable holds recent writes; `memtable` in code is fine, and so is [link](memtable.md).\n\n"
        "Then the Write-Ahead Log again. A memtables plural is not the term.\n"
    )
    findings = consistency(md, glossary=gl)
    assert [(f.line, f.message) for f in findings] == [
        (7, "writes 'memtable' for the glossary term 'MemTable'; use 'MemTable'"),
        (9, "writes 'Write-Ahead Log' for the glossary term 'write-ahead log'; use 'write-ahead log'"),
    ]


def test_lowercase_common_word_for_a_capitalised_term_is_fine():
    gl = {"Record": "ch01", "Store": "ch01", "SSTable": "ch01"}
    md = "# T\n\nEach record goes to the store, and a RECORD is odd. An sstable is not an SSTable.\n"
    findings = consistency(md, glossary=gl)
    assert [f.message for f in findings] == ["writes 'RECORD' for the glossary term 'Record'; use 'Record'",
                                             "writes 'sstable' for the glossary term 'SSTable'; use 'SSTable'"]


def test_metaphor_reuse():
    md = "# T\n\nThe log is like a Post Office for writes. `post office` in code is fine.\n\nOur own ledger image.\n"
    findings = consistency(md, metaphors={"post office": "ch01", "ledger": "ch02", "库房": "ch03"})
    assert [(f.check, f.severity, f.line) for f in findings] == [("r2.metaphor", "minor", 3)]
    assert findings[0].message.startswith("reuses the metaphor 'post office' of ch01")
    zh = consistency("# 标题\n\n日志就像一个库房。\n", metaphors={"库房": "ch03"})
    assert [f.check for f in zh] == ["r2.metaphor"]


def test_consistent_chapter_has_no_findings():
    md = "# T\n\nThe write-ahead log, see [storage](ch01.md), is like a courier.\n"
    assert consistency(md, glossary={"write-ahead log": "ch01"}, metaphors={"courier": "ch02"}) == []


# ----------------------------------------------------------------- R3: structure


def chapter(words: int = 400, extra: str = "") -> str:
    para = " ".join(["word"] * (words // 2))
    return f"# Title\n\nIntro.\n\n## One\n\n{para}\n\n## Two\n\n{para}\n{extra}"


def test_good_structure():
    assert check_structure(chapter()) == []
    assert check_structure(chapter() + "\n<!-- DRAFT_COMPLETE -->\n") == []


def test_titles():
    (f,) = check_structure(chapter().replace("# Title\n", "Title\n"))
    assert (f.check, f.severity, f.line) == ("r3.title", "major", 0)
    (f,) = check_structure(chapter() + "\n# Another\n\ntext\n")
    assert (f.check, f.severity) == ("r3.title", "major") and "2 H1" in f.message and f.line > 1


def test_sections_and_headings_in_code():
    md = "# Title\n\n" + " ".join(["w"] * 400) + "\n\n## Only\n\ntext\n\n```md\n## not a heading\n```\n"
    (f,) = check_structure(md)
    assert (f.check, f.severity, f.line) == ("r3.sections", "major", 0) and "1 `##`" in f.message


def test_length_bounds():
    (f,) = check_structure(chapter(100))
    assert (f.check, f.severity) == ("r3.length", "minor") and "300" in f.message  # a note (issue 38)
    (f,) = check_structure(chapter(400), max_words=200)
    assert f.check == "r3.length" and "maximum is 200" in f.message
    # code does not count as words
    assert check_structure(chapter(100, "\n```\n" + "x " * 500 + "\n```\n"))[0].check == "r3.length"


def test_chinese_length_counts_characters():
    assert text_length("预写日志 WAL 保证 durability。") == 8
    zh = "# 标题\n\n引言。\n\n## 第一节\n\n" + "字" * 200 + "\n\n## 第二节\n\n" + "文" * 200 + "\n"
    assert check_structure(zh, language="zh") == []
    (f,) = check_structure(zh, language="zh", min_words=1000)
    assert "characters" in f.message


def test_unclosed_fence_is_blocking():
    findings = check_structure(chapter(extra="\n```python\ndef f(\n"))
    assert checks_of(findings) == [("r3.fence", "blocking")]
    assert blocking(findings)


def test_level_jump_and_empty_sections():
    md = chapter(
        extra="\n#### Deep\n\ntext\n\n## Empty\n\n## Parent\n\n### Child\n\ntext\n\n## Last\n\n<!-- DRAFT_COMPLETE -->\n"
    )
    findings = check_structure(md)
    assert [(f.check, f.severity) for f in findings] == [("r3.sections", "minor")] * 3
    msgs = [f.message for f in findings]
    assert (
        "jumps from ## to ####" in msgs[0] and "'Empty' is empty" in msgs[1] and "'Last' is empty" in msgs[2]
    )


# ----------------------------------------------------------------- slugs


@pytest.mark.parametrize(
    "text,slug",
    [
        ("Recovery", "recovery"),
        ("The `Store.get()` method", "the-storeget-method"),
        ("What's new?", "whats-new"),
        ("恢复 流程", "恢复-流程"),
        ("snake_case and kebab-case", "snake_case-and-kebab-case"),
        ("[Linked](ch01.md) title", "linked-title"),
    ],
)
def test_slugify(text, slug):
    assert slugify(text) == slug


def test_heading_slugs_dedupe_and_skip_code():
    md = "# Intro\n\n## Setup\n\n```\n# comment\n```\n\n## Setup\n\n### Setup\n\n## Custom {#my-id}\n"
    assert heading_slugs(md) == ["intro", "setup", "setup-1", "setup-2", "my-id"]


# ----------------------------------------------------------------- final audit

GOOD = {
    "ch01": "# Storage\n\n## The write-ahead log\n\n"
    "See [recovery](ch02.md#replay), [site](https://x.org) and [below](#details).\n\n"
    "## Details\n\nText.\n\n<!-- CHAPTER_FINAL body=abc -->\n",
    "ch02": "# 恢复\n\n## Replay\n\n见[第1章](ch01.md#the-write-ahead-log)与第2章。\n\n## 恢复 流程\n\n文字。\n",
}


def audit(finals, glossary=None, chapters=None):
    return audit_book(
        finals, glossary=glossary or {}, chapters=chapters or {"ch01": "Storage", "ch02": "恢复"}
    )


def test_audit_of_a_clean_book():
    assert audit(GOOD, glossary={"write-ahead log": "ch01"}) == []


def test_audit_links():
    finals = dict(GOOD)
    finals["ch02"] += (
        "\n[a](ch09.md) [b](ch01.md#nope) [c](#恢复-流程) [d](#missing) [e](notes/x.md)\n"
        "[f](ch03.md) [g](mailto:a@b.c)\n"
    )
    findings = audit(finals, chapters={"ch01": "S", "ch02": "R", "ch03": "Later"})
    got = [(f.chapter, f.check, f.severity, f.line) for f in findings]
    assert got == [("ch02", "audit.link", "major", 11)] * 3 + [
        ("ch02", "audit.link", "minor", 11),
        ("ch02", "audit.xref", "minor", 12),
    ]
    text = " ".join(f.message for f in findings)
    assert "ch09.md" in text and "no heading 'nope'" in text and "#missing" in text and "notes/x.md" in text


def test_audit_leftovers():
    md = (
        "# T\n\n## A\n\nTODO: explain this. A FIXME too.\n\n`TODO` in code is fine, and so is TODOS.\n\n"
        "Lorem ipsum dolor.\n\nA claim [citation needed].\n\nSee <insert diagram here> and <章节名>.\n\n"
        "Fine: <br>, <kbd>Ctrl</kbd>, <https://x.org>, a < b > c.\n\n<!-- DRAFT_COMPLETE -->\n\n"
        "```\n# TODO in a fence\n<!-- DRAFT_COMPLETE -->\n```\n\n<!-- just a note -->\n\n<!-- CHAPTER_FINAL -->\n"
    )
    findings = audit({"ch01": md}, chapters={"ch01": "T"})
    assert {(f.check, f.severity, f.chapter) for f in findings} == {("audit.leftover", "major", "ch01")}
    assert [f.line for f in findings] == [5, 5, 9, 11, 13, 13, 17]


def test_audit_catches_neutralised_markers():
    md = "# T\n\n## A\n\ntext\n\n<!-- (quoted) DRAFT_COMPLETE body=1 -->\n\n## B\n\ntext\n"
    (f,) = audit({"ch01": md}, chapters={"ch01": "T"})
    assert (f.check, f.line) == ("audit.leftover", 7) and "(quoted) DRAFT_COMPLETE" in f.message


def test_audit_glossary_and_textual_cross_references():
    finals = {
        "ch01": "# T\n\n## A\n\nSee Chapter 3 and ch07 and 第十二章, but Chapter 2 and 第二章 exist.\n\n## B\n\n`SSTable` rows.\n"
    }
    findings = audit(
        finals, glossary={"sstable": "ch02", "bloom filter": "ch01"}, chapters={"ch01": "T", "ch02": "U"}
    )
    assert [(f.chapter, f.check, f.line) for f in findings] == [
        ("ch01", "audit.glossary", 0),
        ("ch01", "audit.xref", 5),
        ("ch01", "audit.xref", 5),
        ("ch01", "audit.xref", 5),
    ]
    assert "'bloom filter'" in findings[0].message
    assert {"'Chapter 3'", "'ch07'", "'第十二章'"} == {f.message.split(" refers")[0] for f in findings[1:]}


# ----------------------------------------------------------------- findings as text


def test_format_and_parse():
    fs = [
        Finding("r1.code", "blocking", 12, "code block at line 12 is not in minikv/store.py"),
        Finding("r3.title", "major", 0, "the chapter has no title"),
        Finding("audit.link", "minor", 3, "link: ch09.md", chapter="ch02"),
    ]
    text = format_findings(fs)
    assert (
        text.splitlines()[0]
        == "- **blocking** `r1.code` line 12: code block at line 12 is not in minikv/store.py"
    )
    assert text.splitlines()[1] == "- **major** `r3.title`: the chapter has no title"
    assert text.splitlines()[2] == "- **minor** `audit.link` ch02 line 3: link: ch09.md"
    assert parse_findings("## R1\n\n" + text + "\n\n<!-- R1_CODE_REVIEW_COMPLETE -->\n") == fs
    assert format_findings([]) == "- none" and parse_findings("- none") == []
    assert blocking(fs) and not blocking(fs[1:])


findings_st = st.builds(
    Finding,
    check=st.from_regex(r"(r[123]|audit)\.[a-z]{1,10}", fullmatch=True),
    severity=st.sampled_from(["blocking", "major", "minor"]),
    line=st.integers(min_value=0, max_value=10**6),
    # a finding has a message (the contracts Finding refuses an empty one)
    message=st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",))).filter(lambda m: one_line(m) != ""),
    chapter=st.none() | st.from_regex(r"ch\d{2,3}", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(findings_st, max_size=8))
@pytest.mark.slow
def test_format_parse_round_trip(fs):
    assert parse_findings(format_findings(fs)) == fs


def test_findings_are_sorted_by_line_then_message(src):
    md = "# T\n\n`zeta_missing` `alpha_missing`\n\n```python file=nope.py\nx\n```\n"
    findings, _ = check_code(md, src)
    assert [(f.line, f.message[:6]) for f in findings] == [(3, "`alpha"), (3, "`zeta_"), (5, "code b")]
