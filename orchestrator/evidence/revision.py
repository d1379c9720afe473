"""The revision a book's source is at: the git commit when the source lies in a git work tree
(with the web URL of its remote, when it has one), else a content hash of the tree.

Git is read from `.git` directly, not by running `git`: a scan asks for the revision every time
and a subprocess per scan costs more than the scan; the machine need not have git installed; and
nothing here may touch the network. What is read: `HEAD`, the ref it names (a loose ref file or
`packed-refs`), `config` for the remote's URL, and `commondir`/`gitdir` files of worktrees and
submodules, and `index` (evidence.gitindex): the commit is the revision only when it holds the
very files the book reads, every one tracked and unchanged. A folder the enclosing repository does
not track (ignored there), or a tree with local changes, is pinned by its content hash, and
`why` says which (issue 34)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_SHA_RE = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


@dataclass(frozen=True)
class Revision:
    kind: str  # "git" | "tree" (a content hash) | "none" (no source)
    id: str  # the full commit id, or "tree:<sha256 prefix>"
    remote: str = ""  # the hosting service's web base (https://github.com/owner/name), or ""
    prefix: str = ""  # the source root inside the repository ("src/flask"; "" at its top)
    host: str = ""  # "github" | "gitlab" | "bitbucket" | "" (another host: no permalink scheme known)
    why: str = ""  # for a content hash inside a git work tree: why not its commit ("not tracked by …")

    @property
    def short(self) -> str:
        return self.id[:12] if self.kind == "git" else self.id

    def label(self) -> str:
        """One line for people: `git 1a2b3c4d5e6f (https://github.com/pallets/flask)`."""
        if self.kind == "none":
            return "no source"
        text = f"git {self.short}" if self.kind == "git" else f"content hash {self.id.removeprefix('tree:')}"
        return text + (f" ({self.remote})" if self.remote else "") + (f" ({self.why})" if self.why else "")

    def permalink(self, path: str, first: int, last: int) -> str | None:
        """The hosting service's page of `path` (relative to the source root) at this commit,
        lines first–last; None when there is no remote whose URL scheme is known."""
        if self.kind != "git" or not self.remote or not self.host:
            return None
        full = f"{self.prefix}/{path}" if self.prefix else path
        if self.host == "gitlab":
            return f"{self.remote}/-/blob/{self.id}/{full}#L{first}" + (f"-{last}" if last > first else "")
        if self.host == "bitbucket":
            return f"{self.remote}/src/{self.id}/{full}#lines-{first}" + (f":{last}" if last > first else "")
        return f"{self.remote}/blob/{self.id}/{full}#L{first}" + (f"-L{last}" if last > first else "")

    def as_dict(self) -> dict[str, str]:
        out = {"kind": self.kind, "id": self.id, "remote": self.remote, "prefix": self.prefix}
        return {**out, "why": self.why} if self.why else out


def web_url(url: str) -> tuple[str, str]:
    """(https base, host kind) of a remote URL in any of git's forms: `git@github.com:o/n.git`,
    `ssh://git@gitlab.com/g/s/n.git`, `https://user@bitbucket.org/o/n`, `git://…`. A host that is
    not one of the three keeps its https base with kind ""; a local path gives ("", "")."""
    u = url.strip()
    m = re.match(r"^(?:[\w+.-]+://)?(?:[^@/]+@)?([\w.-]+)(?::\d+)?[:/](.+?)(?:\.git)?/?$", u)
    if not m or u.startswith(("/", ".", "file:")) or "://" not in u and ":" not in u:
        return "", ""
    host, path = m.group(1).lower(), m.group(2).lstrip("/")
    if "://" not in u and re.match(r"^[A-Za-z]:[\\/]", u):  # a Windows path, not scp syntax
        return "", ""
    if not re.fullmatch(r"[\w.~-]+(?:/[\w.~-]+)+", path):
        return "", ""
    kind = next((k for k in ("github", "gitlab", "bitbucket") if k in host), "")
    return f"https://{host}/{path}", kind


def _git_dir(start: Path) -> tuple[Path, Path] | None:
    """(the work tree's top, its git directory) of the work tree holding `start`, or None."""
    for d in (start, *start.parents):
        g = d / ".git"
        if g.is_dir():
            return d, g
        if g.is_file():  # a worktree or submodule: `gitdir: <path>`
            try:
                text = g.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                p = Path(text[7:].strip())
                return d, (p if p.is_absolute() else (d / p)).resolve()
            return None
    return None


def _read(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _resolve_ref(git: Path, common: Path, ref: str) -> str:
    for base in (git, common):
        sha = _read(base / ref).strip()
        if _SHA_RE.match(sha):
            return sha
    for line in _read(common / "packed-refs").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == ref and _SHA_RE.match(parts[0]):
            return parts[0]
    return ""


def _remote_url(config: str) -> str:
    """The URL of the remote `origin`, else of the first remote the config names."""
    urls: dict[str, str] = {}
    section = None
    for line in config.splitlines():
        s = line.strip()
        if s.startswith("["):
            m = re.match(r'^\[\s*remote\s+"([^"]+)"\s*\]', s)
            section = m.group(1) if m else None
        elif section and (m := re.match(r"^url\s*=\s*(.+)$", s)):
            urls.setdefault(section, m.group(1).strip().strip('"'))
    return urls.get("origin") or next(iter(urls.values()), "")


def git_revision(source: Path) -> Revision | None:
    """The commit the work tree holding `source` is at, or None outside git (or a repository
    with no commit yet)."""
    src = source.resolve()
    found = _git_dir(src)
    if found is None:
        return None
    top, git = found
    common_rel = _read(git / "commondir").strip()
    common = (git / common_rel).resolve() if common_rel else git
    head = _read(git / "HEAD").strip()
    sha = head if _SHA_RE.match(head) else ""
    if head.startswith("ref:"):
        sha = _resolve_ref(git, common, head[4:].strip())
    if not sha:
        return None
    remote, host = web_url(_remote_url(_read(common / "config")))
    prefix = src.relative_to(top).as_posix() if src != top else ""
    return Revision("git", sha, remote, "" if prefix == "." else prefix, host)


def tree_revision(files: list[str], file_hash: Callable[[str], str | None]) -> Revision:
    """A content hash of the tree: its files' paths and content hashes, in order."""
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(f"{rel}\0{file_hash(rel) or '-'}\n".encode("utf-8", "surrogateescape"))
    return Revision("tree", "tree:" + h.hexdigest()[:16])


def source_revision(source: Path | None, file_hash: Callable[[str], str | None] | None = None) -> Revision:
    """The revision of the source tree at `source`: git's commit, else the content hash of the
    files the safe walker reads (hashed through `file_hash(rel)` when given: the workspace's
    hash cache keeps a rescan of an unchanged tree cheap)."""
    if source is None or not Path(source).is_dir():
        return Revision("none", "")
    from ..repo.walk import SourceReadError, walk

    root = Path(source)
    try:
        files = [f.rel for f in walk(root).files]
    except SourceReadError:
        files = []
    rev = git_revision(root)
    why = ""
    if rev is not None:  # the commit only when it holds these very files (evidence.gitindex)
        from .gitindex import differs

        found = _git_dir(root.resolve())
        why = differs(found[0], found[1], rev.prefix, files) if found else "no git work tree"
        if not why:
            return rev

    def sha(rel: str) -> str | None:
        try:
            return hashlib.sha256((root / rel).read_bytes()).hexdigest()
        except OSError:
            return None

    out = tree_revision(files, file_hash or sha)
    return Revision(out.kind, out.id, why=why) if why else out
