"""The R1 index cache stores a source text whose undecodable bytes were read as lone surrogates
(click's tests hold Latin-1 bytes): `book run` on click's whole repository crashed in R1 with
"UnicodeEncodeError: surrogates not allowed" before."""

from __future__ import annotations

from pathlib import Path

from orchestrator.checks import r1_store


def test_a_text_with_a_lone_surrogate_is_stored_and_read_back(tmp_path: Path):
    fields = {k: set() for k in r1_store._SETS} | {k: {} for k in r1_store._MAPS}
    fields["names"] = {"caf\udce2"}
    fields["text"] = "x = 'caf\udce2'\n"
    db = tmp_path / "state.db"
    r1_store.save(db, "/src", "sig", fields)
    got = r1_store.load(db, "/src", "sig")
    assert got is not None and got["text"] == fields["text"] and got["names"] == {"caf\udce2"}
