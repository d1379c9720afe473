"""Synthetic books for the scale benchmarks: a package of N uniform Python modules that do
not import each other, so the offline planner makes one independent chapter per module."""

from __future__ import annotations

from pathlib import Path

MODULE = '''"""{name}: a uniform module of the synthetic package ({i} of {n}).

It keeps records of kind {i} in memory and answers simple queries about them."""

from dataclasses import dataclass


@dataclass
class Record{i}:
    """One record of kind {i}: a key and a value."""

    key: str
    value: int

    def weight(self) -> int:
        """The value scaled by the kind number."""
        return self.value * {i}


class Store{i}:
    """A small in-memory store of Record{i} values, keyed by name."""

    def __init__(self) -> None:
        self.items: dict[str, Record{i}] = {{}}

    def put(self, key: str, value: int) -> Record{i}:
        """Insert or replace one record and return it."""
        rec = Record{i}(key, value)
        self.items[key] = rec
        return rec

    def get(self, key: str) -> Record{i} | None:
        """The record under `key`, or None."""
        return self.items.get(key)

    def total{i}(self) -> int:
        """The sum of every record's weight."""
        return sum(r.weight() for r in self.items.values())


def build_store{i}(pairs: list[tuple[str, int]]) -> Store{i}:
    """A store filled from (key, value) pairs."""
    s = Store{i}()
    for k, v in pairs:
        s.put(k, v)
    return s


def merge_stores{i}(a: Store{i}, b: Store{i}) -> Store{i}:
    """A new store holding the records of both; `b` wins on equal keys."""
    out = Store{i}()
    for src in (a, b):
        for k, rec in src.items.items():
            out.put(k, rec.value)
    return out


def heaviest{i}(s: Store{i}, n: int = 3) -> list[Record{i}]:
    """The n records with the largest weight, heaviest first."""
    return sorted(s.items.values(), key=lambda r: r.weight(), reverse=True)[:n]


def keys_with_prefix{i}(s: Store{i}, prefix: str) -> list[str]:
    """The keys that start with `prefix`, sorted."""
    return sorted(k for k in s.items if k.startswith(prefix))


def drop_below{i}(s: Store{i}, limit: int) -> int:
    """Remove every record whose value is below `limit`; return how many went."""
    gone = [k for k, r in s.items.items() if r.value < limit]
    for k in gone:
        del s.items[k]
    return len(gone)


def describe{i}(s: Store{i}) -> str:
    """One line naming the store's size and total weight."""
    return f"store {i}: {{len(s.items)}} records, total {{s.total{i}()}}"


def histogram{i}(s: Store{i}, width: int = 10) -> dict[int, int]:
    """How many records fall into each bucket of `width` values."""
    out: dict[int, int] = {{}}
    for r in s.items.values():
        b = r.value // width
        out[b] = out.get(b, 0) + 1
    return out


def scaled{i}(s: Store{i}, factor: int) -> Store{i}:
    """A copy of the store with every value multiplied by `factor`."""
    out = Store{i}()
    for k, r in s.items.items():
        out.put(k, r.value * factor)
    return out


def summary{i}(s: Store{i}) -> dict[str, int]:
    """Count, smallest, largest and total value of the store's records."""
    values = [r.value for r in s.items.values()]
    if not values:
        return {{"count": 0, "min": 0, "max": 0, "total": 0}}
    return {{
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "total": sum(values),
    }}
'''


def make_source(dest: Path, n: int) -> Path:
    """dest/synth: n modules mod0001.py … with no imports between them."""
    pkg = dest / "synth"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text('"""synth: a synthetic package of uniform, independent modules."""\n')
    for i in range(1, n + 1):
        name = f"mod{i:04d}"
        (pkg / f"{name}.py").write_text(MODULE.format(name=name, i=i, n=n))
    (dest / "README.md").write_text(f"# synth\n\nA synthetic package of {n} independent modules.\n")
    return dest


def make_book(ws: Path, n: int, **overrides: object) -> Path:
    """A workspace whose source is the synthetic package; one chapter per module."""
    from orchestrator.state.book import init_workspace

    src = make_source(ws.parent / (ws.name + "-src"), n)
    init_workspace(ws, source=str(src), title=f"Synthetic book of {n} modules")
    cfg = ws / "book.yaml"
    settings = {"gates": '"off"', "max_chapters": 1000, "batch_size": 25} | overrides
    lines = []
    for line in cfg.read_text().splitlines():
        key = line.split(":", 1)[0]
        if key in settings:
            line = f"{key}: {settings.pop(key)}"
        lines.append(line)
    lines += [f"{k}: {v}" for k, v in settings.items()]
    cfg.write_text("\n".join(lines) + "\n")
    return ws
