"""The one safe way to list and read the source tree a book is about.

Every reader of the source goes through `walk` (which files count, and why the others do
not) and `read_source` (the bytes of one of them). Both hold the same rules: only regular
files whose real path is inside the real source root; symlinks are resolved and explained,
never followed out; FIFOs, devices and sockets are never opened; other file systems are
not entered (like `find -xdev`, so `source: /` stays out of /proc, /sys and /dev); sizes
are checked before reading. The walk is bounded, reports progress and can be stopped, so
a huge tree or a signal never leaves the caller waiting.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..signals import stop_requested
from .classify import (
    MANIFESTS,
    OUTPUT_DIRS,
    TOOL_DIRS,
    VCS_DIRS,
    VENDOR_DIRS,
    classify,
    head_reason,
    header_language,
    known_name,
    language_of,  # noqa: F401  (re-exported: tests read it here)
    name_reason,
    quoted_includes,
    settle_headers,
    shebang_language,
    type_name,
    vendored_copy,
)
from .read import (  # noqa: F401  (read_source*, source_problem: re-exported, the walk's one reading rule)
    MAX_SOURCE_BYTES,
    SourceReadError,
    _inside,
    _mb,
    _open_checked,
    _read_fd,
    read_source,
    read_source_bytes,
    source_problem,
)

if TYPE_CHECKING:  # pathspec is imported when a .gitignore is actually read
    from pathspec import GitIgnoreSpec

HEAD_BYTES = 8192  # what is read of every file to decide binary / generated; nothing more
PROGRESS_EVERY = 1000
STOP_CHECK_EVERY = 100
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True)
class SourceFile:
    rel: str  # POSIX path relative to the root
    size: int
    lang: str | None  # 'python', 'go', ... or None for docs, configuration and plain text
    kind: str  # 'code' | 'test' | 'example' | 'doc' | 'config' | 'build'


@dataclass(frozen=True)
class Skipped:
    rel: str
    reason: str  # in words a person reads in source-map.md and `book scan`


@dataclass
class SourceTree:
    root: Path
    files: list[SourceFile]  # sorted by rel
    skipped: list[Skipped]  # sorted by rel: what was left out and why
    truncated: bool  # the walk stopped at a bound (the reason is among `skipped`)
    entries: int = 0  # directory entries looked at
    warnings: list[str] = field(default_factory=list)  # e.g. an unreadable .gitignore

    def rels(self, *kinds: str) -> list[str]:
        """Paths of the included files, of the given kinds (all when none are given)."""
        return [f.rel for f in self.files if not kinds or f.kind in kinds]

    def summary(self) -> str:
        """One line for `book scan` and source-map.md: what was read, what was left out and why."""
        def counts(words: list[str]) -> str:
            return ", ".join(f"{n} {w}" for w, n in Counter(words).most_common())
        out = f"{len(self.files)} files ({counts([f.kind for f in self.files])})"
        out += f"; {len(self.skipped)} left out ({counts([_category(s.reason) for s in self.skipped])})" \
            if self.skipped else ""
        return out + self.grammar_note() + ("; the walk stopped at a bound" if self.truncated else "")

    def grammar_note(self) -> str:
        """What no grammar reads, said where the book is summed up (issue 33): read by its lines when
        it is all the code there is, else left out beside the languages the map reads."""
        from .languages import SUPPORTED  # no tree_sitter: the grammars load on first parse

        code = [f.lang for f in self.files if f.kind == "code" and f.lang]
        unread = Counter(lang for lang in code if lang not in SUPPORTED)
        if not unread:
            return ""
        names = ", ".join(f"{n} {lang}" for lang, n in unread.most_common())
        if all(lang not in SUPPORTED for lang in code):
            return (f"; no grammar reads {names} file(s): read by their lines (definitions by their keywords and "
                    "doc comments; calls matched by name, not resolved)")
        return f"; no grammar reads {names} file(s): left out of the map"


def _category(reason: str) -> str:
    """A reason without its details (sizes, link targets), to count alike reasons together."""
    head = reason.split(" (")[0]
    if head.startswith("symlink to ") and not head.startswith(("symlink to outside", "symlink to a ")):
        return "symlink inside the source root"
    return "hard link" if head.startswith("hard link to ") else head


class WalkStopped(Exception):
    """should_stop() turned true: the caller asked the walk to end (a signal, a shutdown)."""


class _Bound(Exception):
    """Internal: a max_* bound was reached."""


def walk(root: Path, *, max_file_bytes: int = MAX_SOURCE_BYTES, max_files: int = 20_000, max_entries: int = 200_000,
         on_progress: Callable[[int], None] | None = None,
         should_stop: Callable[[], bool] | None = None) -> SourceTree:
    """The files of the source tree worth reading, and what was left out and why. Never raises
    for anything found in the tree (links, FIFOs, permissions); raises SourceReadError when the
    root itself is not a readable directory, and WalkStopped when should_stop() turned true."""
    return _Walker(Path(root), max_file_bytes, max_files, max_entries, on_progress, should_stop).run()


# (directory rel, its patterns, one regex that matches whenever any pattern does), outermost first
Specs = tuple[tuple[str, "GitIgnoreSpec", "re.Pattern[str] | None"], ...]


def _quick_filter(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    """All of a .gitignore's patterns as one regex, so that the usual path (matched by none) costs
    one search instead of one per pattern; pathspec still decides every path this one matches."""
    parts = [getattr(p, "regex", None) for p in spec.patterns]
    if not parts or any(r is not None and not (isinstance(r, re.Pattern) and isinstance(r.pattern, str))
                        for r in parts):
        return None
    try:
        return re.compile("|".join(f"(?:{r.pattern.replace('(?P<ps_d>', '(')})" for r in parts
                                   if r is not None) or "(?!)")
    except re.error:
        return None


class _Walker:
    def __init__(self, root: Path, max_file_bytes: int, max_files: int, max_entries: int,
                 on_progress: Callable[[int], None] | None, should_stop: Callable[[], bool] | None):
        self.root = root
        self.max_file_bytes, self.max_files, self.max_entries = max_file_bytes, max_files, max_entries
        self.on_progress, self.should_stop = on_progress, should_stop
        self.files: list[SourceFile] = []
        self.includes: dict[str, list[str]] = {}  # a C header → the project headers it includes
        self.skipped: list[Skipped] = []
        self.warnings: list[str] = []
        self.entries = 0
        self.seen_files: dict[tuple[int, int], str] = {}  # (st_dev, st_ino) -> rel: each file read once
        self.seen_dirs: dict[tuple[int, int], str] = {}  # also catches bind-mount loops
        self.links: list[tuple[str, str, bool]] = []  # (link rel, target rel, target is a directory)
        self.reasons: dict[str, str] = {}  # rel -> why it was skipped, to explain links to it

    def run(self) -> SourceTree:
        try:
            self.root_real = os.path.realpath(self.root, strict=True)
            st = os.stat(self.root_real)
        except OSError as e:
            raise SourceReadError(f"source root {self.root}: {e.strerror}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise SourceReadError(f"source root {self.root}: not a directory")
        self.root_dev = st.st_dev
        self.seen_dirs[(st.st_dev, st.st_ino)] = ""
        specs: Specs = ()
        if os.path.isdir(os.path.join(self.root_real, ".git")) and not os.path.islink(os.path.join(self.root_real, ".git")):
            specs = self._add_spec(specs, "", ".git/info/exclude")
        stack: list[tuple[str, str, Specs]] = [(self.root_real, "", specs)]
        truncated = False
        try:
            while stack:
                self._check_stop()
                self._scan_dir(*stack.pop(), stack)
        except _Bound:
            truncated = True
        self._explain_links()
        if self.on_progress:
            self.on_progress(self.entries)
        langs = settle_headers({f.rel: f.lang for f in self.files}, self.includes)  # `.h`: C or C++ (see classify)
        self.files = [f if langs[f.rel] == f.lang else SourceFile(f.rel, f.size, langs[f.rel], f.kind) for f in self.files]
        return SourceTree(self.root, sorted(self.files, key=lambda f: f.rel),
                          sorted(self.skipped, key=lambda s: (s.rel, s.reason)), truncated, self.entries,
                          self.warnings)

    def _check_stop(self) -> None:
        # the caller's word, or a stop signal a session heard (the walk may run on any thread)
        if stop_requested() or (self.should_stop is not None and self.should_stop()):
            raise WalkStopped(f"walk of {self.root} stopped after {self.entries} entries")

    def _skip(self, rel: str, reason: str) -> None:
        self.skipped.append(Skipped(rel, reason))
        self.reasons[rel] = reason

    def _stop_at(self, rel: str, what: str) -> None:
        self.skipped.append(Skipped(rel or ".", f"walk stopped here: {what}"))
        raise _Bound()

    def _add_spec(self, specs: Specs, dir_rel: str, file_rel: str) -> Specs:
        try:
            text = read_source(Path(self.root_real), file_rel, max_bytes=1_000_000)  # (a .gitignore)
        except SourceReadError as e:
            if os.path.lexists(os.path.join(self.root_real, file_rel)):
                self.warnings.append(f"{e}; its patterns are not applied")
            return specs
        from pathspec import GitIgnoreSpec  # lazy: `book` commands that never walk do not pay for it

        try:
            spec = GitIgnoreSpec.from_lines(text.splitlines())
        except Exception as e:  # a pattern pathspec rejects: the rest of the walk still counts
            self.warnings.append(f"{file_rel}: not applied ({e})")
            return specs
        return specs + ((dir_rel, spec, _quick_filter(spec)),)

    @staticmethod
    def _ignored(specs: Specs, rel: str, is_dir: bool) -> bool:
        for base, spec, quick in reversed(specs):  # the deepest .gitignore that has a say decides, as in git
            sub = rel[len(base) + 1:] if base else rel
            if is_dir:
                sub += "/"
            if quick is not None and not quick.search(sub):
                continue  # no pattern of this file matches: it has no say
            verdict = spec.check_file(sub).include
            if verdict is not None:
                return verdict
        return False

    def _scan_dir(self, path: str, rel: str, specs: Specs, stack: list[tuple[str, str, Specs]]) -> None:
        entries: list[os.DirEntry[str]] = []
        try:
            with os.scandir(path) as it:
                for e in it:
                    self.entries += 1
                    if self.entries % STOP_CHECK_EVERY == 0:
                        self._check_stop()
                    if self.entries % PROGRESS_EVERY == 0 and self.on_progress:
                        self.on_progress(self.entries)
                    if self.entries > self.max_entries:
                        # readdir order is arbitrary, so what lies beyond the bound is dropped unsorted
                        self._stop_at(rel, f"{self.max_entries:,} directory entries looked at "
                                           f"(raise max_entries to walk further)")
                    entries.append(e)
        except OSError as exc:
            self._skip(rel or ".", f"unreadable: {exc.strerror}")
            return
        entries.sort(key=lambda e: e.name)
        names = {e.name for e in entries}
        if ".gitignore" in names:
            specs = self._add_spec(specs, rel, f"{rel}/.gitignore" if rel else ".gitignore")
        subdirs: list[tuple[str, str, Specs]] = []
        for i, e in enumerate(entries, 1):
            if i % STOP_CHECK_EVERY == 0:  # each entry may be a file's head read: a wide directory takes long
                self._check_stop()
            sub = self._entry(e, rel, specs, names)
            if sub is not None:
                subdirs.append(sub)
        stack.extend(reversed(subdirs))  # popped in name order: the same tree walks the same way

    def _entry(self, e: os.DirEntry[str], parent: str, specs: Specs, names: set[str]) -> tuple[str, str, Specs] | None:
        name = e.name
        rel = f"{parent}/{name}" if parent else name
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            self._skip(rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                       "file name is not valid UTF-8")
            return None
        if _CONTROL_RE.search(name) or name != name.strip() or "`" in name:
            # such a name does not come back as the same path from a prompt, the outline or a
            # model's answer (a one-line field is trimmed, its line breaks made spaces; a code
            # span or a fence's `file=` cannot hold a backtick): named here, rather than lost later
            self._skip(_CONTROL_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), rel),
                       "file name has a control character (a newline, a tab), a backtick, or a space at "
                       "its start or end: rename it to include it")
            return None
        try:
            is_link = e.is_symlink()
            is_dir = not is_link and e.is_dir(follow_symlinks=False)
        except OSError as ex:
            self._skip(rel, f"unreadable: {ex.strerror}")
            return None
        if is_dir and (reason := self._dir_name_reason(name, e.path, names) or vendored_copy(rel)):
            self._skip(rel, reason)
            return None
        if name.startswith("."):
            self._skip(rel, "hidden directory" if is_dir else "hidden file")
            return None
        if specs and self._ignored(specs, rel, is_dir):
            self._skip(rel, "ignored by .gitignore")
            return None
        if is_link:
            self._link(e.path, rel)
            return None
        try:
            st = e.stat(follow_symlinks=False)
        except OSError as ex:
            self._skip(rel, f"unreadable: {ex.strerror}")
            return None
        if st.st_dev != self.root_dev:
            self._skip(rel, "on another file system")
            return None
        if stat.S_ISDIR(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key in self.seen_dirs:  # a bind mount of an ancestor or sibling
                self._skip(rel, f"the same directory as {self.seen_dirs[key] or '.'} (already walked)")
                return None
            self.seen_dirs[key] = rel
            return (e.path, rel, specs)
        if not stat.S_ISREG(st.st_mode):
            self._skip(rel, type_name(st.st_mode))  # lstat only: FIFOs and devices are never opened
            return None
        self._file(e.path, rel, name, st)
        return None

    @staticmethod
    def _dir_name_reason(name: str, path: str, names: set[str]) -> str | None:
        if name in VCS_DIRS:
            return "version control directory"
        if name in VENDOR_DIRS:
            return "vendored"
        if name in TOOL_DIRS or name.endswith(".egg-info"):
            return "tool or cache directory"
        if name == "target" and names & {"Cargo.toml", "pom.xml", "build.sbt"}:
            return "build output"
        # `build`, `dist`, `out` are output only beside a project manifest (the repository's root or a
        # package's): SQLAlchemy's docs live in doc/build, and pypa/build has a package called build.
        if (name in OUTPUT_DIRS and names & MANIFESTS) and not os.path.isfile(os.path.join(path, "__init__.py")):
            return "build output"
        if name == "_build":
            return "build output"
        if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
            return "tool or cache directory (a virtual environment)"
        return None

    def _file(self, path: str, rel: str, name: str, st: os.stat_result) -> None:
        if reason := name_reason(name):
            self._skip(rel, reason)
            return
        key = (st.st_dev, st.st_ino)
        if key in self.seen_files:
            self._skip(rel, f"hard link to {self.seen_files[key]} (read there)")
            return
        if st.st_size > self.max_file_bytes:  # stat only: a 50 MB file is never opened
            self._skip(rel, f"too large ({_mb(st.st_size)} > {_mb(self.max_file_bytes)}; raise max_file_bytes)")
            return
        script = not known_name(name)  # no extension: only a script (with a shebang) counts
        if script and not st.st_mode & 0o111:  # not executable: decided without opening it
            self._skip(rel, "not source code, documentation or configuration (no extension)")
            return
        if len(self.files) >= self.max_files:
            self._stop_at(rel, f"{self.max_files:,} files included (raise max_files to include more)")
        try:
            fd, _ = _open_checked(path, st, self.root_real)
            try:
                head = _read_fd(fd, HEAD_BYTES)
            finally:
                os.close(fd)
        except OSError as ex:
            self._skip(rel, f"unreadable: {ex.strerror or ex}")
            return
        if reason := head_reason(head, st.st_size <= HEAD_BYTES):
            self._skip(rel, reason)
            return
        lang = shebang_language(head) if script else header_language(rel, head)
        if script and lang is None:
            self._skip(rel, "not source code, documentation or configuration (no extension, no known #! line)")
            return
        self.seen_files[key] = rel
        if lang == "c" and name.endswith(".h"):
            self.includes[rel] = quoted_includes(head)
        self.files.append(SourceFile(rel, st.st_size, lang, classify(rel, lang)))

    def _link(self, path: str, rel: str) -> None:
        """A symlink is resolved, never walked through: what it points to inside the root is read
        under its own path (once), and anything outside is left out."""
        try:
            real = os.path.realpath(path, strict=True)
            st = os.stat(real)
        except FileNotFoundError:
            self._skip(rel, "dangling symlink")
            return
        except OSError as e:
            self._skip(rel, "symlink loop" if e.errno == errno.ELOOP else f"unreadable symlink: {e.strerror}")
            return
        if not _inside(real, self.root_real):
            self._skip(rel, "symlink to outside the source root")
            return
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            self._skip(rel, f"symlink to a {type_name(st.st_mode)}")
            return
        target = Path(os.path.relpath(real, self.root_real)).as_posix()
        if stat.S_ISDIR(st.st_mode) and (target == "." or rel.startswith(target + "/")):
            self._skip(rel, f"symlink loop (points to its own ancestor {target})")
            return
        self.links.append((rel, target, stat.S_ISDIR(st.st_mode)))

    def _explain_links(self) -> None:
        read = {f.rel for f in self.files}
        walked = set(self.seen_dirs.values())
        for rel, target, is_dir in self.links:
            if target in (walked if is_dir else read):
                self._skip(rel, f"symlink to {target} (read there)")
            elif why := self._why_not(target):
                self._skip(rel, f"symlink to {target}, which is left out: {why}")
            else:
                self._skip(rel, f"symlink to {target}, which the walk did not reach")

    def _why_not(self, target: str) -> str | None:
        parts = target.split("/")
        for i in range(len(parts), 0, -1):  # the target itself, or the directory that excluded it
            if (why := self.reasons.get("/".join(parts[:i]))) is not None:
                return why
        return None
