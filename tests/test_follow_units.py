"""Releases followed by code (issue 34): a citation of a definition follows that definition (the
same unit, its new lines) when the source moves, so a claim is redone only when what it says no
longer holds."""

from __future__ import annotations

from pathlib import Path

from orchestrator.evidence import claims as cm
from orchestrator.evidence.revision import Revision

OLD = '''class Store:
    """A store."""

    def get(self, key):
        value = self.data.get(key)
        return value

    def put(self, key, value):
        self.data[key] = value
'''
NEW = '''import os


class Store:
    """A store."""

    def keys(self):
        return list(self.data)

    def get(self, key):
        value = self.data.get(key, None)
        self.hits += 1
        return value

    def put(self, key, value):
        self.data[key] = value
'''


def test_a_cited_method_that_moved_and_changed_is_found_again_by_its_definition(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "store.py").write_text(OLD)
    md = ("# Store\n\n## `Store`\n\n`Store.get` reads the `data` of the store "
          "([store.py:4-6](source:store.py#L4-L6)).\n\n"
          "`Store.put` writes a `value` ([store.py:8-9](source:store.py#L8-L9)).\n")
    doc = cm.build("ch01", md, src, Revision("tree", "tree:x"))
    assert doc["evidence"]["store.py#L4-L6"]["unit"]["name"] == "Store.get"
    (src / "store.py").write_text(NEW)
    now = {c["text"][:9]: c for c in cm.health(doc, src)}
    assert now["`Store.ge"]["status"] == "supported"
    assert now["`Store.ge"]["now"]["store.py#L4-L6"] == ("changed", 10, 13)  # the method, not 4-6
    assert now["`Store.pu"]["now"]["store.py#L8-L9"] == ("moved", 15, 16)
    moves = cm.moved_citations(doc, src)
    out = cm.retarget(md, moves)
    assert "(source:store.py#L10-L13)" in out and "(source:store.py#L15-L16)" in out
