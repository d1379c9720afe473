"""`book doctor` on a bad book.yaml: one problem, one fix line (the config error's own fix,
not that fix and a generic one after it)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.doctor import config_problem, run_checks
from orchestrator.errors import ConfigError, UsageError


def test_a_duplicate_key_gets_one_fix(tmp_path: Path):
    (tmp_path / "book.yaml").write_text('title: "A"\nlanguage: "en"\ntitle: "B"\n', encoding="utf-8")
    checks = run_checks(tmp_path, "offline", call_model=False)
    assert len(checks) == 1
    c = checks[0]
    assert not c.ok and c.name == "config"
    assert "appears twice" in c.detail and "book.yaml:3" in c.detail
    assert "fix:" not in c.detail  # the fix is printed once, from c.fix
    assert c.fix == "keep one of them"


def test_an_error_without_its_own_fix_gets_the_general_one():
    c = config_problem(UsageError("book.yaml is a directory"))
    assert c.detail == "book.yaml is a directory" and "book init" in c.fix
    c = config_problem(ConfigError("bad value", "book.yaml", 4))
    assert c.detail == "book.yaml:4: bad value" and "book init" in c.fix
