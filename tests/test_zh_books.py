"""Chinese books that read as Chinese (issue 23, item 7): one language's punctuation at a time,
English source text quoted as a quotation, step lists said by what each step does, and
personas and audience that follow the project's language and the book's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestrator import config
from orchestrator.authoring.phrases import audience_in, phrases, step_sentence
from orchestrator.defaults import LEGACY_PERSONAS, default_personas, main_language
from orchestrator.state.book import init_workspace
from orchestrator.text import zh_punct
from orchestrator.text.measure import cjk_share

ZH, EN = phrases("zh"), phrases("en")


# ---------------------------------------------------------------- punctuation

def test_an_english_sentence_quoted_in_chinese_keeps_one_stop():
    assert zh_punct.normalise("它的注释说：“Route is an interface.”。然后") == "它的注释说：“Route is an interface.”然后"
    assert zh_punct.normalise("注释：「A sorted map.」。本章") == "注释：「A sorted map.」本章"
    assert zh_punct.normalise("它说 done. 。接着") == "它说 done.接着"


def test_doubled_and_mixed_stops_become_one_chinese_stop():
    assert zh_punct.normalise("`encode`：`a.py` 中的函数（第 70–82 行）.") == "`encode`：`a.py` 中的函数（第 70–82 行）。"
    assert zh_punct.normalise("先读这个，，再读那个。。") == "先读这个，再读那个。"
    assert zh_punct.normalise("先读这个，。") == "先读这个。"
    assert zh_punct.normalise("这是函数, 那是类; 最后") == "这是函数，那是类；最后"
    assert zh_punct.normalise("编写。 本章讲解它。") == "编写。本章讲解它。"


def test_code_and_quoted_source_keep_their_own_punctuation():
    text = ("调用 `f(a, b).`，然后返回。\n\n```go\nx := \"中文.\" // 注释，，\n```\n\n"
            "~~~\n值。。\n~~~\n\n> English. Quoted, 中文.\n\n> ```\n> 代码。。\n> ```")
    out = zh_punct.normalise(text)
    assert "`f(a, b).`" in out
    assert 'x := "中文." // 注释，，' in out and "值。。" in out
    assert "> English. Quoted, 中文." in out and "> 代码。。" in out
    assert zh_punct.normalise("English only, no change. Not at all.") == "English only, no change. Not at all."


def test_problems_finds_english_glued_into_chinese_and_spares_quotations():
    bad = "本书写给developers who will work on this code，从这里讲起。注释说：“A sorted map from key.”。"
    found = zh_punct.problems(bad)
    assert "developers who will work on this code" in found["ascii_run"]
    assert "A sorted map from key." not in found["ascii_run"] and any("A sorted map" in x for x in found["ascii_run"])
    assert found["punct"]  # .”。
    good = ("本书写给「developers who will work on this code」。注释说：「A sorted map from key.」\n\n"
            "> Route describes the details of a routing handler.\n\n调用 `run the thing`，见 [第一章](ch01.md)。")
    assert zh_punct.problems(good) == {"ascii_run": [], "punct": [], "code_glued": []}
    assert zh_punct.english_lines("中文。\n\nThis line is English scaffolding.\n\n> quoted English\n") == \
        ["This line is English scaffolding."]


def test_an_english_audience_is_quoted_in_a_chinese_sentence():
    assert audience_in("developers who will work on this code", "zh") == "「developers who will work on this code」"
    assert audience_in("新同事", "zh") == "新同事"
    assert audience_in("developers", "en") == "developers"


# ---------------------------------------------------------------- step lists

def _steps(pairs: list[tuple[str, str]], t: dict[str, str]) -> list[str]:
    return [step_sentence(kind, code, sum(1 for k, _ in pairs[:i] if k == kind), i == len(pairs) - 1, t)
            for i, (kind, code) in enumerate(pairs)]


def test_steps_are_said_by_what_they_do():
    pairs = [("set", "view = memoryview(buffer)"), ("check", "len(view) - offset < HEADER_SIZE"),
             ("check", "err != nil"), ("check", "value is None"), ("check", "kind not in KINDS \\"),
             ("set", "end = start + size"), ("call", "self.flush()"), ("call", "self.reset()"),
             ("loop", "record in records"), ("return", "result")]
    zh = _steps(pairs, ZH)
    assert zh[0] == "调用 `memoryview(buffer)`，结果存入 `view`。"
    assert zh[1] == "核对长度：`len(view) - offset < HEADER_SIZE`。"
    assert zh[2] == "检查是否出错：`err != nil`。" and zh[3] == "判断值是否为空：`value is None`。"
    assert zh[4] == "再判断 `kind not in KINDS` 是否成立。"  # a later check; the line continuation dropped
    assert zh[5] == "令 `end` 为 `start + size`。"
    assert zh[6] != zh[7].replace("reset", "flush")  # two calls in a row, said two ways
    assert zh[8] == "依次取出 `records` 中的每个 `record`。" and zh[9] == "最后返回 `result`。"
    openings = {s.split("`")[0] for s in zh}
    assert len(openings) >= 8
    en = _steps(pairs, EN)
    assert en[0] == "It calls `memoryview(buffer)` and keeps the result in `view`." and en[-1] == "Finally it returns `result`."
    assert not any("先检查条件" in s for s in zh)


def test_a_list_literal_is_not_called_a_call_and_a_bare_return_has_no_empty_code():
    assert step_sentence("set", "sources = [self.scan(low, high)]", 0, False, ZH) == \
        "令 `sources` 为 `[self.scan(low, high)]`。"
    assert step_sentence("return", "", 0, True, ZH) == "到此返回。"
    assert step_sentence("loop", "_, mw := range middlewares", 0, False, ZH) == "依次取出 `middlewares` 中的每个 `mw`。"


# ---------------------------------------------------------------- personas and audience

def _go_repo(root: Path) -> Path:
    src = root / "router"
    src.mkdir()
    (src / "go.mod").write_text("module example.org/router\n\ngo 1.22\n")
    for name in ("mux", "tree", "context"):
        (src / f"{name}.go").write_text(f"package router\n\n// {name.title()} does one thing.\nfunc {name.title()}() {{}}\n")
    (src / "tools.py").write_text("print('a helper script')\n")
    return src


def test_the_newcomer_of_a_go_repository_knows_go_not_python(tmp_path: Path):
    src = _go_repo(tmp_path)
    assert main_language(src) == "go"
    for lang in ("en", "zh"):
        ws = tmp_path / f"book-{lang}"
        init_workspace(ws, source=str(src), language=lang)
        text = (ws / "book.yaml").read_text(encoding="utf-8")
        personas = config.load(ws).personas
        assert "Python" not in text.split("personas:")[1].split("\n#")[0]
        assert not any("Python" in p for p in personas) and "Go" in personas[0], personas
    assert config.load(tmp_path / "book-zh").personas == default_personas("go", "zh")
    assert config.load(tmp_path / "book-zh").personas[0].startswith("新人:")


def test_an_untouched_old_default_follows_the_source_and_a_persons_own_stays(tmp_path: Path):
    src = _go_repo(tmp_path)
    ws = tmp_path / "ws"
    init_workspace(ws, source=str(src), language="zh")
    path = ws / "book.yaml"
    text = path.read_text(encoding="utf-8")
    # an older book.yaml: the Python personas and the English audience, as `book init` once wrote them
    old = re.sub(r"(?ms)^personas:\n(?:  - .*\n)+", "personas:\n" + "".join(f'  - "{p}"\n' for p in LEGACY_PERSONAS), text)
    old = re.sub(r"(?m)^audience:.*$", 'audience: "developers who will work on this code"', old)
    path.write_text(old, encoding="utf-8")
    cfg = config.load(ws)
    assert cfg.personas == default_personas("go", "zh")
    assert cfg.audience == config.LOCALIZED_DEFAULTS["zh"]["audience"]
    mine = re.sub(r"(?ms)^personas:\n(?:  - .*\n)+", 'personas:\n  - "ops: runs it in production, knows Python"\n', old)
    mine = re.sub(r"(?m)^audience:.*$", 'audience: "运维同事"', mine)
    path.write_text(mine, encoding="utf-8")
    cfg = config.load(ws)
    assert cfg.personas == ["ops: runs it in production, knows Python"] and cfg.audience == "运维同事"


# ---------------------------------------------------------------- the demo book, whole

@pytest.mark.slow
def test_the_demo_chinese_book_reads_as_chinese(tmp_path: Path):
    from orchestrator.testing.helpers import run_book

    ws = tmp_path / "demo"
    init_workspace(ws, example=True, language="zh")
    cfg = ws / "book.yaml"
    text = re.sub(r"(?m)^gates:.*$", 'gates: "off"', cfg.read_text(encoding="utf-8"))
    cfg.write_text(re.sub(r"(?m)^provider:.*$", 'provider: "offline"', text), encoding="utf-8")
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    finals = sorted((ws / "output/chapters/final").glob("ch*-final.md"))
    assert len(finals) >= 4
    book = "\n".join(f.read_text(encoding="utf-8") for f in finals)
    found = zh_punct.problems(book)
    assert found == {"ascii_run": [], "punct": [], "code_glued": []}, found
    assert zh_punct.english_lines(book) == []
    assert "先检查条件" not in book and "developers who" not in book
    lists, cur, on = [], [], False
    for ln in book.splitlines():
        if "逐步来看" in ln:
            on = True
        elif on and re.match(r"^\d+\. ", ln):
            cur.append(re.sub(r"^\d+\. ", "", ln).split("`")[0])
        elif ln.strip() and cur:
            lists, cur, on = lists + [cur], [], False
    assert len(lists) >= 5
    openings = [o for x in lists for o in x]
    assert len(set(openings)) >= 8  # not one template per step
    assert max(openings.count(o) for o in set(openings)) < len(openings) / 3
    assert sum(1 for x in lists if len(x) > 1 and len(set(x)) == 1) <= 1
    assert cjk_share(book) >= 0.6


def test_an_english_init_switched_to_chinese_gets_chinese_defaults(tmp_path: Path):
    src = _go_repo(tmp_path)
    ws = tmp_path / "ws"
    init_workspace(ws, source=str(src))  # English, then a person sets `language: zh`
    path = ws / "book.yaml"
    assert "knows Go" in path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(?m)^language:.*$", 'language: "zh"', path.read_text(encoding="utf-8")), encoding="utf-8")
    cfg = config.load(ws)
    assert cfg.personas == default_personas("go", "zh")
    assert cfg.audience == config.LOCALIZED_DEFAULTS["zh"]["audience"]
    assert cfg.brief == config.LOCALIZED_DEFAULTS["zh"]["brief"]


def test_go_steps_nil_checks_and_type_assertions():
    assert step_sentence("check", "mx.handler == nil", 0, False, ZH) == "判断值是否为空：`mx.handler == nil`。"
    assert step_sentence("set", "rctx, _ := r.Context().Value(RouteCtxKey)", 0, False, ZH) == \
        "调用 `r.Context().Value(RouteCtxKey)`，结果存入 `rctx`。"
    assert step_sentence("set", "subr, ok := handler.(*Mux)", 0, False, ZH) == "把 `handler` 断言为 `*Mux` 类型，存入 `subr, ok`。"


def test_quoted_source_is_not_counted_as_the_books_prose():
    assert cjk_share("本章讲解路由。源码注释：「Route describes the details of a routing handler.」") == 1.0


def test_a_loop_keeps_the_brackets_of_what_it_walks():
    assert step_sentence("loop", "record in merge_records(sources)", 0, False, EN) == \
        "It takes each `record` of `merge_records(sources)` in turn."
    assert step_sentence("loop", "(const k of keys(obj))", 0, False, ZH) == "依次取出 `keys(obj)` 中的每个 `k`。"
    assert step_sentence("check", "not self._tables", 0, False, ZH) == "判断是否为空：`not self._tables`。"


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_persons_english_audience_and_brief_are_quoted_in_a_chinese_outline(tmp_path: Path):
    from orchestrator.testing.helpers import run_book

    ws = tmp_path / "ws"
    init_workspace(ws, example=True, language="zh")
    cfg = ws / "book.yaml"
    text = re.sub(r"(?m)^gates:.*$", 'gates: "off"', cfg.read_text(encoding="utf-8"))
    text = re.sub(r"(?m)^audience:.*$", 'audience: "backend engineers new to storage"', text)
    text = re.sub(r"(?m)^brief:.*$", 'brief: "Explain the storage engine."', text)
    cfg.write_text(re.sub(r"(?m)^provider:.*$", 'provider: "offline"', text), encoding="utf-8")
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    outline = (ws / "output/memory/outline.md").read_text(encoding="utf-8")
    assert "本书为「backend engineers new to storage」讲解" in outline
    assert "「Explain the storage engine.」" in outline
    ch1 = (ws / "output/chapters/final/ch01-final.md").read_text(encoding="utf-8")
    assert "写给「backend engineers new to storage」" in ch1
    assert zh_punct.problems(ch1)["ascii_run"] == []


def test_go_loops_appends_and_returned_functions():
    assert step_sentence("loop", "i, p := range trustedIPPrefixes", 0, False, ZH) == \
        "遍历 `trustedIPPrefixes`，每次得到 `i` 与 `p`。"
    assert step_sentence("set", "hr[header] = append(hr[header], r)", 0, False, ZH) == \
        "向 `hr[header]` 追加元素：`append(hr[header], r)`。"
    # an elided `append(…)` may append to another slice: it is only said to be a call
    assert step_sentence("set", "hr[header] = append(…)", 0, False, ZH) == "调用 `append(…)`，结果存入 `hr[header]`。"
    assert step_sentence("set", "out = append(out, x)", 0, False, EN) == "It appends to `out`: `append(out, x)`."
    assert step_sentence("return", "func(h http.Handler) http.Handler", 2, True, ZH) == \
        "最后返回一个函数：`func(h http.Handler) http.Handler`。"
    assert step_sentence("check", 'encoding == ""', 0, False, ZH) == '判断是否为空：`encoding == ""`。'
    assert step_sentence("check", "_, ok := encoder.(ioResetterWriter); ok", 0, False, ZH).startswith("检查类型")


def test_a_presence_check_and_a_compound_condition_are_told_apart():
    assert step_sentence("check", "rctx != nil", 0, False, EN) == "It checks that a value is there: `rctx != nil`."
    assert step_sentence("check", "value is not None", 0, False, ZH) == "确认值存在：`value is not None`。"
    assert step_sentence("check", "ok && subr.h == nil", 1, False, ZH) == "再判断 `ok && subr.h == nil` 是否成立。"
    assert step_sentence("check", "x is None or y", 0, False, EN) == "First it checks `x is None or y`."


def test_a_citation_in_chinese_prose_sits_in_chinese_brackets():
    cited = "代码从 `TinyDB` 读起 ([tinydb/database.py:17-274](source:tinydb/database.py#L17-L274))。"
    assert zh_punct.normalise(cited) == \
        "代码从 `TinyDB` 读起（[tinydb/database.py:17-274](source:tinydb/database.py#L17-L274)）。"
    english = "It starts at `TinyDB` ([tinydb/database.py:17](source:tinydb/database.py#L17))."
    assert zh_punct.normalise(english) == english
    assert zh_punct.normalise(zh_punct.normalise(cited)) == zh_punct.normalise(cited)
