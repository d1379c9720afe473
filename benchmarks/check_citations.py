"""Independent check of a book's citations (it shares no code with orchestrator/checks or
orchestrator/evidence): every `[label](source:PATH#Lm-Ln)` in the final chapters must name a
file of the source at the pinned revision, lines that exist in it, and the lines must contain
the last part of every `code name` of the sentence that carries the citation, and call every callee
a "`X` calls `Y`" sentence names. Also: the share of citation spans over 120 lines, the median span.

    python benchmarks/check_citations.py WORKSPACE [--json]

The pinned revision: when the source is a git work tree, the file is read from the commit
(`git show COMMIT:PATH`, the commit recorded in output/memory/claims/*.json, else HEAD);
otherwise from the tree. Prints, per chapter: citations, resolving, claim paragraphs, cited;
then the totals and the median of citations per chapter. Exit 1 if any citation fails."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

LINK = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(source:([^)\s#]+)#L(\d+)(?:-L?(\d+))?\)")
SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
IDENT = re.compile(r"^@?([A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*)(?:\([^()]*\))?[!?]?$")
NOT_NAMES = {"True", "False", "None", "true", "false", "null", "nil", "undefined", "NULL", "self", "this"}
CALLS = re.compile(r"`([^`\s]+)` calls `([^`\s(]+)")
STRINGS = re.compile(r'"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
FILE_EXT = re.compile(r"\.(?:py|pyi|go|js|mjs|cjs|ts|tsx|jsx|rs|java|kt|c|h|cc|cpp|hpp|rb|md|toml|json|ya?ml|cfg|txt)$")


def source_dir(ws: Path) -> Path:
    import yaml

    cfg = yaml.safe_load((ws / "book.yaml").read_text(encoding="utf-8")) or {}
    return (ws / str(cfg.get("source", "./src"))).resolve()


class Tree:
    """Files at the pinned commit (git), else on disk."""

    def __init__(self, src: Path, commit: str | None):
        self.src, self.commit, self.cache = src, commit, {}
        self.top = self.prefix = None
        try:
            top = subprocess.run(["git", "-C", str(src), "rev-parse", "--show-toplevel"], capture_output=True,
                                 text=True, check=True).stdout.strip()
            self.top = Path(top)
            rel = src.relative_to(self.top).as_posix()
            self.prefix = "" if rel == "." else rel + "/"
            if not self.commit:
                self.commit = subprocess.run(["git", "-C", top, "rev-parse", "HEAD"], capture_output=True,
                                             text=True, check=True).stdout.strip()
        except (subprocess.CalledProcessError, FileNotFoundError, ValueError):
            self.top = None

    def lines(self, path: str) -> list[str] | None:
        if path not in self.cache:
            self.cache[path] = self._read(path)
        return self.cache[path]

    def _read(self, path: str) -> list[str] | None:
        if ".." in path.split("/") or path.startswith("/"):
            return None
        if self.top is not None:
            r = subprocess.run(["git", "-C", str(self.top), "show", f"{self.commit}:{self.prefix}{path}"],
                               capture_output=True)
            if r.returncode != 0:
                return None
            data = r.stdout
        else:
            p = self.src / path
            if not p.is_file():
                return None
            data = p.read_bytes()
        lines = data.decode("utf-8", "replace").removeprefix("\ufeff").split("\n")
        return lines[:-1] if lines and lines[-1] == "" else lines


def prose_blocks(md: str) -> list[tuple[int, str]]:
    """(first line, text) of each paragraph or list run outside fences and headings."""
    out, cur, fence = [], [], None
    for i, ln in enumerate(md.split("\n"), 1):
        s = ln.strip()
        m = re.match(r"^\s*(`{3,}|~{3,})", ln)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and s == m.group(1) * 1 or \
                    (m and s.strip(fence[0]) == "" and len(s) >= len(fence)):
                fence = None
            continue
        if m:
            fence = m.group(1)
            if cur:
                out.append(cur)
                cur = []
            continue
        if not s or re.match(r"^ {0,3}#{1,6}\s", ln) or s.startswith("<!--"):
            if cur:
                out.append(cur)
                cur = []
            continue
        cur.append((i, ln))
    if cur:
        out.append(cur)
    return [(b[0][0], "\n".join(t for _, t in b)) for b in out]


def names_in(text: str) -> list[str]:
    out = []
    for m in SPAN.finditer(LINK.sub(lambda x: x.group(1), text)):
        s = m.group(2).strip()
        n = IDENT.match(s)
        if n and s not in NOT_NAMES and not FILE_EXT.search(s) and len(n.group(1)) >= 2:
            out.append(re.split(r"\.|::|->|#", n.group(1))[-1])
    return out


def pieces(text: str) -> list[str]:
    """The sentences (and list items) of a block; a `.` in code or a link ends none."""
    hidden = SPAN.sub(lambda m: "x" * len(m.group()), text)
    hidden = LINK.sub(lambda m: "c" * len(m.group()), hidden)
    cut = [0]
    for m in re.finditer(r"(?<=[.!?])[)\]]?\s+(?=[A-Z`\[*(_\"'\d])|(?<=[。！？；])|\n(?=[ \t]*(?:[-*+]|\d+[.)])[ \t])|\n(?=[ \t]*\|)",
                         hidden):
        cut.append(m.end())
    cut.append(len(text))
    return [text[a:b] for a, b in zip(cut, cut[1:]) if text[a:b].strip()]


def check_chapter(md: str, tree: Tree) -> dict:
    res = {"citations": 0, "resolving": 0, "claims": 0, "cited": 0, "failures": [], "spans": []}
    for first, block in prose_blocks(md):
        quote = all(ln.lstrip().startswith(">") for ln in block.split("\n"))
        links = list(LINK.finditer(block))
        if names_in(block) and not quote:
            res["claims"] += 1
            res["cited"] += bool(links)
        for sent in pieces(block):
            cites = list(LINK.finditer(sent))
            texts = []
            for c in cites:
                res["citations"] += 1
                path, a, b = unquote(c.group(2)), int(c.group(3)), int(c.group(4) or c.group(3))
                res["spans"].append(b - a + 1)
                lines = tree.lines(path.removeprefix("./"))
                if lines is None:
                    res["failures"].append(f"line ~{first}: {path} is not in the source at the pinned revision")
                elif not (1 <= a <= b <= len(lines)):
                    res["failures"].append(f"line ~{first}: {path} has no lines {a}-{b} ({len(lines)} lines)")
                else:
                    texts.append("\n".join(lines[a - 1:b]))
                    res["resolving"] += 1
            if cites and texts:
                joined = "\n".join(texts)
                missing = [n for n in names_in(sent) if not re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", joined)]
                # "`X` calls `Y`": the cited lines call Y (outside strings), not only name it
                code = STRINGS.sub('""', joined)
                uncalled = [y for _x, y in CALLS.findall(sent) if not re.search(
                    rf"(?<![\w$]){re.escape(re.split(r'[.:]+', y)[-1])}\s*!?\s*(?:<[^()]*>)?\(", code)]
                if missing or uncalled:
                    res["resolving"] -= len(texts)
                    why = f"lack {', '.join(missing)}" if missing else f"make no call to {', '.join(uncalled)}"
                    res["failures"].append(f"line ~{first}: cited lines {why}: {sent.strip()[:90]}")
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("workspace")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ws = Path(args.workspace).resolve()
    commit = None
    for f in sorted((ws / "output/memory/claims").glob("ch*.json")):
        rev = json.loads(f.read_text(encoding="utf-8")).get("revision", {})
        if rev.get("kind") == "git":
            commit = rev.get("id")
            break
    tree = Tree(source_dir(ws), commit)
    per = {}
    for f in sorted((ws / "output/chapters/final").glob("ch*-final.md")):
        per[f.name.split("-")[0]] = check_chapter(f.read_text(encoding="utf-8"), tree)
    tot = {k: sum(r[k] for r in per.values()) for k in ("citations", "resolving", "claims", "cited")}
    spans = [n for r in per.values() for n in r.pop("spans")]
    report = {"workspace": str(ws), "commit": tree.commit if tree.top else None, "chapters": per, **tot,
              "median_citations": statistics.median([r["citations"] for r in per.values()]) if per else 0,
              "resolving_share": tot["resolving"] / tot["citations"] if tot["citations"] else 1.0,
              "cited_share": tot["cited"] / tot["claims"] if tot["claims"] else 1.0,
              "spans_over_120": sum(1 for n in spans if n > 120) / len(spans) if spans else 0.0,
              "median_span": statistics.median(spans) if spans else 0}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for ch, r in per.items():
            print(f"{ch}: {r['citations']} citations, {r['resolving']} resolve; {r['cited']}/{r['claims']} claim "
                  f"paragraphs cited")
            for x in r["failures"][:5]:
                print("   ", x)
        print(f"total: {tot['citations']} citations, {report['resolving_share']:.1%} resolve; median "
              f"{report['median_citations']} per chapter; {report['cited_share']:.1%} of claim paragraphs cited")
        print(f"spans: {report['spans_over_120']:.1%} over 120 lines; median {report['median_span']} lines")
    return 0 if tot["resolving"] == tot["citations"] else 1


if __name__ == "__main__":
    sys.exit(main())
