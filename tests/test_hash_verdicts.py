"""A scan's checks of a person's files go through the hash cache: judged once per content."""

import os

from orchestrator.state.hashcache import HashCache
from orchestrator.state.reconcile import not_utf8


def test_a_verdict_is_judged_again_only_when_the_file_changes(tmp_path):
    f = tmp_path / "a.md"
    f.write_text("hello\n", encoding="utf-8")
    cache, calls = HashCache(), []

    def judge(data: bytes) -> str:
        calls.append(data)
        return "short" if len(data) < 10 else ""

    assert cache.verdict(str(f), "len", judge) == "short"
    assert cache.verdict(str(f), "len", judge) == "short"
    assert len(calls) == 1  # the second answer came from the cache
    assert cache.verdict(str(f), "other", judge) == "short" and len(calls) == 2  # another check, its own row
    f.write_text("hello, a longer text\n", encoding="utf-8")
    os.utime(f, ns=(1, 1))  # a new size and mtime: judged again
    assert cache.verdict(str(f), "len", judge) == "" and len(calls) == 3
    assert cache.verdict(str(tmp_path / "gone.md"), "len", judge) is None


def test_not_utf8_names_the_line_and_survives_a_reload_of_the_cache(tmp_path):
    (tmp_path / "ch.md").write_bytes(b"fine\n" + b"caf\xe9\n")
    first = HashCache()
    said = not_utf8(tmp_path, ["ch.md"], first)
    assert said and said[0].startswith("ch.md:2: not UTF-8 (byte 0xe9)")
    again = HashCache(dict(first.dirty))  # as the next scan loads it from state.db
    assert not_utf8(tmp_path, ["ch.md"], again) == said and not again.dirty  # not read again
