"""The counts of benchmarks/ZH.md for one or more built Chinese books: English word runs inside
Chinese sentences, doubled or mixed punctuation, prose lines left wholly in English, step lists
and the share of them whose steps all open the same way, the most common step opening, the
personas that name a language other than the project's, and the CJK share of the prose.

    .venv/bin/python benchmarks/zh_counts.py WORKSPACE [WORKSPACE ...]
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orchestrator import config  # noqa: E402
from orchestrator.defaults import main_language  # noqa: E402
from orchestrator.text import zh_punct  # noqa: E402
from orchestrator.text.measure import cjk_share  # noqa: E402

_STEP = re.compile(r"^\d+\. ")


def step_lists(md: str) -> list[list[str]]:
    """The step lists of a chapter (the numbered list after "逐步来看" or "step by step"), each as
    its items' openings (up to the first code span)."""
    lists, cur, on = [], [], False
    for ln in md.splitlines():
        if "逐步来看" in ln or "step by step" in ln:
            on = True
        elif _STEP.match(ln) and on:
            cur.append(_STEP.sub("", ln).split("`")[0].strip() or "`")
        elif ln.strip() and cur:
            lists.append(cur)
            cur, on = [], False
    return lists + ([cur] if cur else [])


def counts(ws: Path) -> dict[str, object]:
    cfg = config.load(ws)
    finals = sorted((ws / "output/chapters/final").glob("ch*-final.md"))
    text = "\n".join(f.read_text(encoding="utf-8") for f in finals)
    found = zh_punct.problems(text)
    lists = [x for x in step_lists(text) if len(x) >= 2]
    openings = Counter(o for x in lists for o in x)
    lang = main_language(cfg.source_dir) or ""
    others = {"python", "go", "javascript", "java", "rust", "ruby", "typescript"} - {lang}
    import yaml  # the personas as book.yaml holds them (config.load replaces an untouched default)

    personas = (yaml.safe_load((ws / "book.yaml").read_text(encoding="utf-8")) or {}).get("personas") or cfg.personas
    wrong = [p for p in personas if any(re.search(rf"\b{o}\b", p, re.I) for o in others)]
    top = openings.most_common(1)[0] if openings else ("", 0)
    firsts = Counter(x[0] for x in lists)
    return {"chapters": len(finals), "ascii_run": len(found["ascii_run"]), "punct": len(found["punct"]), "code_glued": len(found["code_glued"]),
            "english_lines": len(zh_punct.english_lines(text)), "step_lists": len(lists),
            "uniform_lists": sum(1 for x in lists if len(set(x)) == 1),
            "top_opening": f"{top[0]} ×{top[1]}", "step_items": sum(openings.values()), "distinct_openings": len(openings),
            "top_first_step": (lambda f: f"{f[0]} ×{f[1]}")(firsts.most_common(1)[0]) if firsts else "",
            "先检查条件": text.count("先检查条件"), "本书写给 + English": len(re.findall(r"本书写给[A-Za-z]", text)),
            "persona_wrong_lang": len(wrong), "cjk_share": round(cjk_share(text), 3),
            "examples": (found["ascii_run"][:3], found["punct"][:3])}


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(arg, counts(Path(arg)))
