"""The project a source folder belongs to (issue 23): `--source` is often a folder of a
repository (`src/`, `lib/`, `gson/src/main/java`), while what a newcomer reads first — the
README, the docs, the examples, the tests — sits around it. From the source, the project
root is the nearest directory at or above it that has a package manifest or a README, never
above the git work tree it lives in (nor more than MAX_UP levels up outside one); failing
that, the git work tree, else the source itself. Its evidence is listed by the same safe
walker the map uses (nothing outside the project root is read; links out of it, vendored and
generated files are left out), and its name is the one its manifest or README gives."""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MAX_UP = 3  # outside a git work tree, how far above the source a README or manifest is looked for
MANIFESTS = ("pyproject.toml", "package.json", "Cargo.toml", "go.mod", "pom.xml", "build.gradle",
             "build.gradle.kts", "CMakeLists.txt", "setup.cfg", "meson.build", "composer.json", "Gemfile")
README_NAMES = ("readme.md", "readme.rst", "readme.markdown", "readme.rdoc", "readme.txt", "readme")  # (roda's README.rdoc)
DOC_EXT = (".md", ".rst", ".markdown", ".mdx", ".rdoc", ".txt")
DOC_FIRST = ("index", "readme", "intro", "introduction", "overview", "quickstart", "quick-start", "get-started",
             "getting-started", "getting_started", "tutorial", "usage", "userguide", "user-guide", "guide")
NOT_GUIDES = ("changelog", "changes", "history", "license", "licence", "copying", "contributing", "security",
              "code_of_conduct", "authors", "releaseprocess", "release", "news", "notice")


@dataclass(frozen=True)
class ProjectInfo:
    root: Path  # the project's root (resolved)
    source: Path  # the source the book is about (resolved), at or below root
    name: str  # from the manifest, else the README's first heading, else the root's name
    readme: str | None  # path relative to root
    docs: tuple[str, ...]  # guides (Markdown, reStructuredText), the most introductory first
    examples: tuple[str, ...]
    tests: tuple[str, ...]

    @property
    def prefix(self) -> str:
        """The source's path inside the project ('' when they are the same)."""
        rel = os.path.relpath(self.source, self.root)
        return "" if rel == "." else Path(rel).as_posix()

    def in_source(self, rel: str) -> str | None:
        """A project path as a path of the source tree, or None when it lies outside the source."""
        if not self.prefix:
            return rel
        return rel[len(self.prefix) + 1:] if rel.startswith(self.prefix + "/") else None

    def read(self, rel: str) -> str:
        """A file of the project, by the safe reader's rules (inside the root, a regular file, bounded)."""
        from .read import read_source

        return read_source(self.root, rel)


def _git_top(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def _has_front(d: Path) -> bool:
    try:
        names = {n.lower() for n in os.listdir(d)}
    except OSError:
        return False
    return any(m.lower() in names for m in MANIFESTS) or any(r in names for r in README_NAMES)


def find_root(source: str | Path) -> Path:
    """The project root of a source folder (see the module doc)."""
    src = Path(source).resolve()
    top = _git_top(src)
    home = Path.home().resolve()
    levels = [src, *src.parents]
    for k, d in enumerate(levels):
        if top is not None and d != top and top not in d.parents:
            break  # above the work tree: another project's folder
        if top is None and (k > MAX_UP or d == home or d == Path(d.anchor)):
            break
        if _has_front(d):
            # a module of a larger project (gson's gson/ beside the repository's README and guides):
            # the repository's top speaks for it when it names the same project
            if top is not None and d != top and _has_front(top) and _same_name(project_name_at(d), project_name_at(top)):
                return top
            return d
    return top or src


def shown_name(source: str | Path) -> str:
    """The source as a reader is shown it (the outline, the site, the exports): the project's name
    and the source's path inside the project (`click/src/click`), never a path of this machine."""
    src = Path(source).resolve()
    root = find_root(src)
    rel = os.path.relpath(src, root)
    name = project_name_at(root) if root.is_dir() else root.name
    return name if rel == "." else f"{name}/{Path(rel).as_posix()}"


def _same_name(module: str, top: str) -> bool:
    """The module is a part of the project at the top: the same name, or the top's name as whole
    words of its own (`clikt-core`, whose README is headed "Module clikt-core", in clikt's repository;
    `gson` in gson's)."""
    def words(x: str) -> list[str]:
        return [w for w in re.split(r"[^a-z0-9]+", x.lower()) if w]
    mod, want = words(module), "".join(words(top))
    if not want:
        return False
    return any("".join(mod[i:j]) == want for i in range(len(mod)) for j in range(i + 1, len(mod) + 1))


_cache: dict[tuple[str, str], ProjectInfo] = {}


def discover(source: str | Path) -> ProjectInfo:
    """The project around `source`: its root, name, README, guides, examples and tests. Once per
    process and source (a build asks for it from every chapter)."""
    src = Path(source).resolve()
    root = find_root(src)
    key = (str(src), str(root))
    if key not in _cache:
        _cache[key] = _discover(src, root)
    return _cache[key]


def _discover(src: Path, root: Path) -> ProjectInfo:
    from .walk import walk

    readme = None
    # the root's README; without one (a Cargo or npm workspace's root), the nearest above the source:
    # axum's is axum/README.md, beside the crate's src/
    for d in [root] + [a for a in reversed(src.parents) if a != root and root in a.parents] + [src]:
        try:
            found = next((n for n in sorted(os.listdir(d)) if n.lower() in README_NAMES and (d / n).is_file()
                          and not (d / n).is_symlink()), None)
        except OSError:
            found = None
        if found is not None:
            readme = (d / found).relative_to(root).as_posix()
            if d != root:
                continue  # a deeper one is nearer to the source
            break
    if readme is None:  # GitHub shows `.github/README.md`, then `docs/README.md`, when the root has none (FluentValidation)
        for d in (root / ".github", root / "docs"):
            found = next((n for n in (sorted(os.listdir(d)) if d.is_dir() else []) if n.lower() in README_NAMES
                          and (d / n).is_file() and not (d / n).is_symlink()), None)
            if found is not None:
                readme = (d / found).relative_to(root).as_posix()
                break
    docs: list[str] = []
    examples: list[str] = []
    tests: list[str] = []
    try:
        tree = walk(root, max_files=20_000, max_entries=100_000)
    except OSError:
        tree = None
    for f in tree.files if tree is not None else []:
        base = f.rel.rsplit("/", 1)[-1].lower()
        stem = base.rsplit(".", 1)[0].replace(" ", "")
        if f.kind == "example":
            examples.append(f.rel)
        elif f.kind == "test":
            tests.append(f.rel)
        elif base.endswith(DOC_EXT) and f.rel != readme and base != "cmakelists.txt" and "license" not in base and stem not in NOT_GUIDES and not stem.startswith(NOT_GUIDES):
            docs.append(f.rel)

    name = _squash(project_name_at(root, readme))

    def doc_order(rel: str) -> tuple[int, int, str]:
        stem = rel.rsplit("/", 1)[-1].lower().rsplit(".", 1)[0]
        first = next((k for k, w in enumerate(DOC_FIRST) if stem == w or stem.startswith(w)), len(DOC_FIRST))
        # an add-on package's README (RestSharp's src/RestSharp.Serializers.Xml/README.md) tells that add-on:
        # the project's own introduction (docs/docs/intro.md) comes before it
        folder = _squash(rel.rsplit("/", 2)[-2]) if rel.count("/") else ""
        if stem == "readme" and name and folder.startswith(name) and folder != name:
            first = len(DOC_FIRST)
        return (first, rel.count("/"), rel)

    return ProjectInfo(root, src, project_name_at(root, readme), readme, tuple(sorted(docs, key=doc_order)),
                       tuple(examples), tuple(tests))


def _squash(name: str) -> str:
    """A name without case or separators: `RestSharp.Extensions.DependencyInjection` → `restsharpextensionsdependencyinjection`."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


# ---------------------------------------------------------------- the project's name

def project_name_at(root: Path, readme: str | None = None) -> str:
    """The project's name as its own manifest says it (pyproject.toml, a gemspec, package.json,
    Cargo.toml, go.mod, pom.xml), else the README's first heading, else the directory's name."""
    from .read import read_source  # a manifest linked out of the root, or a FIFO, is not read

    try:
        gemspec = next((n for n in sorted(os.listdir(root)) if n.endswith(".gemspec")), "")
        csproj = [n for n in sorted(os.listdir(root)) if n.endswith(".csproj")
                  and n.removesuffix(".csproj").lower() not in ("build", "tests", "test", "benchmarks", "tools")]
    except OSError:  # not a directory, or not ours to list
        gemspec, csproj = "", []
    # a gem's own spec before a package.json that only builds its docs site (faraday's "faraday-docs")
    for name, parse in (("pyproject.toml", _from_pyproject), ("setup.cfg", _from_setup_cfg), ("setup.py", _from_setup_py),
                        (gemspec, _from_gemspec), ("package.json", _from_package_json),
                        ("Cargo.toml", _from_cargo), ("go.mod", _from_go_mod), ("pom.xml", _from_pom)):
        if not name:
            continue
        try:
            found = parse(read_source(root, name))
            if found:
                return found
        except (OSError, ValueError, tomllib.TOMLDecodeError):
            continue
    if len(csproj) == 1:  # a .NET project's package id, else its assembly's name, else the project file's
        try:
            return _from_csproj(read_source(root, csproj[0])) or csproj[0].removesuffix(".csproj")
        except OSError:
            pass
    try:
        found = _from_cmake(read_source(root, "CMakeLists.txt"))
        if found:
            return found
    except OSError:
        pass
    readme = readme or next((n for n in sorted(os.listdir(root)) if n.lower() in README_NAMES), None) \
        if root.is_dir() else readme
    if readme:
        try:
            for line in read_source(root, readme).splitlines()[:60]:
                h1 = re.match(r"^\s*<h1\b[^>]*>\s*([\w.+#-]+(?:\s[\w.+#-]+){0,2})\s*</h1>", line)
                if h1:  # kotlin-csv's `<h1 align="center">kotlin-csv</h1>` above its badges
                    return h1.group(1)
                m = re.match(r"^#\s+(.+?)\s*#*$", line)
                if m and re.search(r"\w", m.group(1)) and "![" not in m.group(1) and "<" not in m.group(1):
                    named = re.match(r"^([\w.+#-]+(?:\s[\w.+#-]+){0,2})\s+[-–—:]\s+\S", m.group(1))
                    if named:  # "Dapper - a simple object mapper for .Net": the name, then what it is
                        return named.group(1).strip("`*_ ")
                    head = m.group(1).strip("`*_ ")
                    if head.lower() in _SECTION_HEADS or len(m.group(1).split()) > MAX_NAME_WORDS \
                            or (len(head.split()) > 1 and head.isupper()) or head.lower().split()[0] in _NOTICES:
                        break  # markdig's src/Markdig/readme.md opens "# Summary": a section, no name; a
                        # tagline is no name either ("Command Line Parser Library for CLR and NetStandard"), nor a
                        # notice (voluptuous's "CONTRIBUTIONS ONLY")
                    return m.group(1).strip("`*_ ")
                if line.startswith("#"):
                    break  # a section heading first ("## Install"): the README gives no name
        except OSError:
            pass
    return folder_name(root)


# a README's first heading that names a section of it, not the project
MAX_NAME_WORDS = 4
_SECTION_HEADS = frozenset({"summary", "overview", "introduction", "intro", "about", "readme", "contents", "description",
                            "getting started", "usage", "documentation", "table of contents", "install", "installation",
                            "quick start", "quickstart", "features", "requirements"})
_NOTICES = frozenset({"deprecated", "warning", "notice", "important", "attention", "unmaintained", "archived", "note"})
GENERIC_DIRS = frozenset({"src", "lib", "source", "sources", "java", "main", "include", "pkg", "app", "code"})


def folder_name(root: Path) -> str:
    """The directory's name, or its parent's when it is a generic folder (`src`, `lib`, `java`)."""
    d = root.resolve()
    while d.name.lower() in GENERIC_DIRS and d.parent != d:
        d = d.parent
    return d.name or root.resolve().name


def _from_pyproject(text: str) -> str:
    data = tomllib.loads(text)
    return str(data.get("project", {}).get("name") or data.get("tool", {}).get("poetry", {}).get("name") or "")


def _from_setup_cfg(text: str) -> str:
    """`name = markdown2` under `[metadata]` of a Python package's setup.cfg."""
    m = re.search(r"^\[metadata\][^\[]*?^name\s*=\s*([\w.+-]+)\s*$", text, re.M | re.S)
    return m.group(1) if m else ""


def _from_setup_py(text: str) -> str:
    """`setup(name="markdown2", …)` in a Python package's setup.py, a literal name only."""
    m = re.search(r"\bsetup\s*\((?:[^()]|\([^()]*\))*?\bname\s*=\s*['\"]([\w.+-]+)['\"]", text)
    return m.group(1) if m else ""


def _from_gemspec(text: str) -> str:
    """`spec.name = "faraday"` (or `s.name = 'rack'`) in a Ruby gem's spec."""
    m = re.search(r"^\s*\w+\.name\s*=\s*['\"]([^'\"]+)['\"]", text, re.M)
    return m.group(1) if m else ""


def _from_package_json(text: str) -> str:
    data = json.loads(text)
    return str(data.get("name") or "") if isinstance(data, dict) else ""


def _from_cargo(text: str) -> str:
    data = tomllib.loads(text)
    return str(data.get("package", {}).get("name") or "")


def _from_go_mod(text: str) -> str:
    m = re.search(r"^module\s+(\S+)", text, re.M)
    if not m:
        return ""
    # `module "gopkg.in/yaml.v3"` (a quoted path, gopkg.in's version suffix) is the package `yaml`
    parts = [p for p in m.group(1).strip("\"'`").split("/") if not re.fullmatch(r"v\d+", p)]
    return re.sub(r"\.v\d+$", "", parts[-1]) if parts else ""


def _from_cmake(text: str) -> str:
    """`project(hiredis LANGUAGES C)`, `project(FMT CXX)` (a name in capitals is said in lower case)."""
    m = re.search(r"^\s*project\s*\(\s*([A-Za-z][\w.+-]*)", text, re.M | re.I)
    if not m:
        return ""
    return m.group(1).lower() if m.group(1).isupper() else m.group(1)


def _from_csproj(text: str) -> str:
    m = re.search(r"<PackageId[^>]*>\s*([^<\s$]+)\s*</PackageId>", text) or \
        re.search(r"<AssemblyName[^>]*>\s*([^<\s$]+)\s*</AssemblyName>", text)
    return m.group(1) if m else ""


def _from_pom(text: str) -> str:
    """The project's own artifactId (not its parent's): the first one outside <parent>."""
    text = re.sub(r"<parent>.*?</parent>", "", text, flags=re.S)
    text = re.sub(r"<(dependencies|build|dependencyManagement|profiles)>.*?</\1>", "", text, flags=re.S)
    m = re.search(r"<artifactId>\s*([^<\s]+)\s*</artifactId>", text)
    group = re.search(r"<groupId>\s*([^<\s]+)\s*</groupId>", text)
    if m and group and re.search(r"<packaging>\s*pom\s*</packaging>", text) and "<modules>" in text:
        # an aggregator's artifactId names the build, not the project (minimal-json's is `build`): its group does
        return group.group(1).rsplit(".", 1)[-1]
    return m.group(1).removesuffix("-parent") if m else ""
