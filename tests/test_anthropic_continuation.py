"""Continuations never lose or add a character: every cut point of realistic answers (a
repeated code line at the cut, CJK text, whitespace at the cut), through the real SDK and the
fake API, in both continuation modes (prefill on 4.5-class models, a continue turn on 4.6+)."""

from __future__ import annotations

import asyncio

import pytest
from conftest_fake_api import DUMMY_KEY, fake_api  # noqa: F401  (fixture)
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from orchestrator.providers.anthropic import AnthropicProvider, join_continuation
from orchestrator.providers.anthropic.continuation import WhitespaceSkipper, seam, split_prefill
from orchestrator.providers.base import Request, Sink
from orchestrator.testing.fake_api import FakeAPI

CODE = ("# The cache\n\nThe loop reads each line:\n\n```python\nfor line in lines:\n    total += 1\n"
        "for line in lines:\n    total += 1\n```\n\nIt returns the value.  Then it stops.\n\n\n"
        "## Next\n\n- one\n- one\n- one\n")
CJK = "# 缓存\n\n缓存保存每个文件的哈希值。缓存保存每个文件的哈希值。\n\n重复的行:\n重复的行:\n\n结束 — done ✓ 🙂\n"
PROSE = ("This chapter explains how the code works, one piece at a time. " * 4 + "\n\n"
         + "It returns  the value. " * 3 + "\n")
ANSWERS = {"code": CODE, "cjk": CJK, "prose": PROSE}


def run_all(model: str, answer: str, cuts: list[int], fake: FakeAPI) -> list[tuple[int, str, str, int]]:
    """(cut, joined text, what the sink received, fake.diverged) for each cut point, one client."""
    fake.answerer = lambda req: answer
    p = AnthropicProvider(concurrency=1, base_delay=0.01, cache_gate=False)

    async def go():
        out = []
        try:
            for cut in cuts:
                fake.clear()
                fake.max_tokens(at=cut / len(answer))
                pieces: list[str] = []
                res = await p.generate(Request(role="writer", step="draft", chapter="ch01", system="S " * 50,
                                               prompt="P", model=model, max_tokens=4000), Sink(text=pieces.append))
                out.append((cut, res.text, "".join(pieces), fake.diverged))
        finally:
            await p.aclose()
        return out

    return asyncio.run(go())


def test_join_restores_the_whitespace_exactly():
    assert join_continuation("It returns ", "the value") == "It returns the value"
    assert join_continuation("It returns ", " the value") == "It returns the value"  # not doubled
    assert join_continuation("It returns", " the value") == "It returns the value"
    assert join_continuation("para.\n\n", "\n\n## Two") == "para.\n\n## Two"
    assert join_continuation("para.\n\n", "\n## Two") == "para.\n\n## Two"
    # a repeated code line after the held newline is genuine text: nothing is trimmed
    assert join_continuation("for line in lines:\n", "\nfor line in lines:\n") == "for line in lines:\nfor line in lines:\n"
    # a continuation that restates the line it was cut in (without the newline it would begin with): dropped
    assert join_continuation("for line in lines:\n", "for line in lines:\n    x\n") == "for line in lines:\n    x\n"
    assert join_continuation("# T\n\nIt returns the va", "It returns the value.\n") == "# T\n\nIt returns the value.\n"
    assert join_continuation("a\nb\nc d", "b\nc de") == "a\nb\nc de"  # two lines restated
    assert join_continuation("x -", "- y") == "x -- y"  # one character proves nothing
    assert split_prefill("a b  \n") == ("a b", "  \n")


def test_the_streamed_pieces_skip_only_the_regenerated_whitespace():
    sk = WhitespaceSkipper("\n\n")
    assert [sk.feed(x) for x in ["\n", "\n#", "# x"]] == ["", "#", "# x"]
    sk = WhitespaceSkipper(" ")
    assert sk.feed("the") == "the" and sk.feed(" ") == " "


def ambiguous(answer: str, cut: int) -> bool:
    """A cut inside a line, with no whitespace at it, right where the line repeats what it began
    with (`AB。AB。` cut after the first `AB。`): the exact continuation reads like a model restating
    the line it was cut in, and is taken for one (continuation.py). The only cut points the seam
    cannot tell apart; `test_a_line_repeated_at_the_cut_is_the_one_ambiguity` pins them down."""
    sent, held = split_prefill(answer[:cut])
    after = answer[len(sent):]  # what the model writes after the text it was sent (the held whitespace first)
    return seam(answer[:cut], after) > len(held)


def test_a_line_repeated_at_the_cut_is_the_one_ambiguity():
    counted = {name: [c for c in range(1, len(a)) if ambiguous(a, c)] for name, a in ANSWERS.items()}
    assert counted["code"] == [] and counted["prose"] == []
    assert len(counted["cjk"]) == 1  # `缓存保存每个文件的哈希值。` twice on one line, cut between them


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-sonnet-4-5"])  # continue turn, prefill
@pytest.mark.parametrize("name", sorted(ANSWERS))
@pytest.mark.slow
def test_every_cut_point_joins_to_the_uncut_answer(fake_api, model, name):
    answer = ANSWERS[name]
    # every cut point on the default (continue-turn) model; every 5th with a prefill
    cuts = [c for c in range(1, len(answer), 1 if "5-5" in model else 5) if not ambiguous(answer, c)]
    for cut, text, streamed, diverged in run_all(model, answer, cuts, fake_api):
        assert text == answer, (name, cut)
        assert streamed == answer, (name, cut)  # what the .partial received, too
        assert diverged == 0
    bodies = [r["body"] for r in fake_api.message_requests()]
    assert [m["role"] for m in bodies[-1]["messages"]][-1] == ("user" if "5-5" in model else "assistant")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(ANSWERS)), share=st.floats(0.01, 0.99))
@pytest.mark.slow
def test_property_any_cut_share_of_any_answer(fake_api, name, share):
    answer = ANSWERS[name]
    cut = max(1, min(len(answer) - 1, int(len(answer) * share)))
    assume(not ambiguous(answer, cut))
    [(_, text, streamed, diverged)] = run_all("claude-opus-5", answer, [cut], fake_api)
    assert text == answer and streamed == answer and diverged == 0


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_seeded_cut_mode_cuts_continuations_too_and_every_answer_is_whole(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    with FakeAPI(lambda req: CODE * 3 + CJK, cut_share=0.5, cut_seed=1) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        p = AnthropicProvider(concurrency=4, base_delay=0.01, max_continuations=12)

        async def go():
            try:
                return await asyncio.gather(*(p.generate(Request(role="writer", step="draft", chapter=f"ch{i:02d}",
                                                                 system="S", prompt=f"chapter {i}",
                                                                 model="claude-sonnet-5-5"), Sink())
                                              for i in range(12)))
            finally:
                await p.aclose()

        results = asyncio.run(go())
        assert all(r.text == CODE * 3 + CJK for r in results)
        assert fake.cuts >= 6 and fake.diverged == 0
        assert any(r.calls >= 3 for r in results)  # a continuation was cut again, and continued


def test_the_fake_cut_mode_is_deterministic():
    a = FakeAPI(lambda req: PROSE, cut_share=0.3, cut_seed=1)
    b = FakeAPI(lambda req: PROSE, cut_share=0.3, cut_seed=1)
    body = {"model": "m", "max_tokens": 9999, "messages": [{"role": "user", "content": "x"}]}
    for i in range(20):
        body["messages"][0]["content"] = f"x{i}"
        assert a._answer(body, None) == b._answer(body, None)
