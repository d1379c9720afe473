"""What a file in the source tree is, from its name and its first bytes: its language, its
kind (code, test, example, doc, config, build), or why it is left out (binary, generated,
not source at all). Pure functions of names, modes and bytes: no file system access here."""

from __future__ import annotations

import re
import stat

LONG_LINE = 500  # a file whose lines are mostly longer than this is minified or generated data

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python", ".pyx": "cython",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".ipp": "cpp", ".m": "objc", ".mm": "objcpp", ".cs": "csharp", ".swift": "swift",
    ".rb": "ruby", ".php": "php", ".lua": "lua", ".pl": "perl", ".pm": "perl", ".sh": "shell",
    ".bash": "shell", ".zsh": "shell", ".sql": "sql", ".r": "r", ".R": "r", ".jl": "julia",
    ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hrl": "erlang", ".hs": "haskell",
    ".ml": "ocaml", ".mli": "ocaml", ".dart": "dart", ".zig": "zig", ".nim": "nim", ".vue": "vue",
    ".svelte": "svelte", ".clj": "clojure", ".groovy": "groovy", ".proto": "protobuf",
}
NAME_LANGUAGES = {"Rakefile": "ruby", "Gemfile": "ruby", "Vagrantfile": "ruby"}
SHEBANGS = {"python": "python", "node": "javascript", "bash": "shell", "sh": "shell", "zsh": "shell",
            "ruby": "ruby", "perl": "perl", "deno": "typescript"}
DOC_EXT = {".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".rdoc", ".tex"}
DOC_NAMES = {"README", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CHANGELOG", "CHANGES",
             "HISTORY", "CONTRIBUTING", "CODEOWNERS", "MAINTAINERS"}
CONFIG_EXT = {".toml", ".yaml", ".yml", ".json", ".jsonc", ".json5", ".ini", ".cfg", ".conf", ".properties", ".xml"}
CONFIG_NAMES = {"Gemfile", "Pipfile", "go.mod", "go.work", "MANIFEST.in", "requirements.txt", "Procfile"}
BUILD_NAMES = {"Makefile", "makefile", "GNUmakefile", "CMakeLists.txt", "Dockerfile", "Containerfile", "setup.py",
               "build.rs", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "pom.xml",
               "meson.build", "BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", "SConstruct",
               "SConscript", "configure.ac", "Makefile.am", "justfile", "Justfile", "Rakefile", "noxfile.py"}
BUILD_EXT = {".mk", ".cmake", ".bzl", ".gemspec"}
BINARY_EXT = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd", ".pdf",
              ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".whl", ".egg", ".jar", ".war",
              ".so", ".dylib", ".dll", ".exe", ".o", ".obj", ".a", ".lib", ".class", ".pyc", ".pyo", ".pyd",
              ".wasm", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".avi",
              ".mov", ".mkv", ".webm", ".sqlite", ".sqlite3", ".db", ".bin", ".dat", ".pkl", ".pickle", ".npy",
              ".npz", ".parquet", ".h5", ".onnx", ".pt", ".ckpt", ".safetensors", ".DS_Store", ".iso", ".dmg"}
LOCKFILES = {"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "Cargo.lock",
             "poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock", "go.sum", "composer.lock", "Gemfile.lock",
             "mix.lock", "flake.lock", "packages.lock.json", "Podfile.lock"}
GENERATED_SUFFIXES = (".min.js", ".min.mjs", ".min.css", ".js.map", ".css.map", ".pb.go", "_pb2.py",
                      "_pb2_grpc.py", ".pb.h", ".pb.cc", ".designer.cs", ".g.dart", ".freezed.dart")
VCS_DIRS = {".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj"}
VENDOR_DIRS = {"vendor", "vendors", "third_party", "third-party", "thirdparty", "3rdparty", "node_modules",
               "bower_components", "Godeps", "jspm_packages", "Pods", "Carthage"}
TOOL_DIRS = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".eggs", ".venv",
             "venv", "site-packages", ".gradle", ".idea", ".vscode", ".next", ".nuxt", ".cache", "htmlcov",
             ".terraform", ".svelte-kit"}
OUTPUT_DIRS = {"build", "dist", "out"}
MANIFESTS = {"pyproject.toml", "setup.py", "setup.cfg", "package.json", "Cargo.toml", "go.mod", "pom.xml",
             "build.gradle", "build.gradle.kts", "CMakeLists.txt", "meson.build", "Makefile", "Gemfile", "composer.json"}
TEST_DIRS = {"tests", "test", "__tests__", "__test__", "spec", "specs", "testdata", "test_data", "e2e",
             "fuzz", "fuzzing", "ossfuzz", "benches", "bench", "benchmarks",  # (a fuzzing or benchmark harness too)
             "__fixtures__", "__mocks__"}  # (a test's data and fakes: cheerio's `src/__fixtures__/fixtures.ts`)
# a folder named for the tests it serves: toml's `internal/toml-test` (the toml-test suite's runner),
# `cmd/toml-test-decoder`, `test-utils`, `testutil`
TEST_DIR_WORD = re.compile(r"(?i)(?:^|[-_.])tests?(?:$|[-_.])|^test(?:utils?|helpers?|support|kit)$")
# (or a file named for one: ora's `example.js`, `example-overflow.js` beside its `index.js`)
EXAMPLE_FILE = re.compile(r"examples?(?:-[\w-]*)?\.\w+$")  # (not `example_calls.py`: a module)
EXAMPLE_DIRS = {"examples", "example", "_examples", "_example", "samples", "sample", "demo", "demos"}
DOC_DIRS = {"docs", "doc", "documentation"}
# (tsd's type tests, `index.test-d.ts`, and a package's one `test.js`, as sindresorhus' packages write them, are tests)
TEST_FILE = re.compile(
    r"^(test_.*\.(py|rb)|.*_test\.(py|go|rb|rs|c|cc|cpp|exs)|conftest\.py|(?:.*_)?tests?\.py|.*_unittest\.(cc|cpp)|(?:.*_)?tests\.rs"
    r"|.*\.(test|spec|bench|test-d)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)|test\.(js|mjs|cjs|ts|mts)|.*_spec\.rb|.*(Test|Tests|IT)\.(java|kt|cs|swift))$")
GENERATED_LINE = re.compile(  # Go's convention and its relatives, on a comment line near the top
    rb"(?im)^\s*(?:#|//|/\*+|\*|--|;|<!--)\s*(?:code generated|generated by|auto-?generated|automatically generated"
    rb"|this file (?:is|was) (?:auto(?:matically)?[- ]?)?generated)\b")
GENERATED_TAG = re.compile(rb"(?m)^\s*(?:#|//|/\*+|\*|--)[^\n]*@generated\b")


def split_name(name: str) -> tuple[str, str]:
    """(stem, suffix) as PurePosixPath gives them (`.bashrc` has no suffix), without its cost."""
    dot = name.rfind(".")
    return (name[:dot], name[dot:]) if 0 < dot < len(name) - 1 else (name, "")


def language_of(rel: str) -> str | None:
    """The programming language of a path, from its name alone (None for docs, config, text)."""
    name = rel.rsplit("/", 1)[-1]
    return NAME_LANGUAGES.get(name) or LANGUAGES.get(split_name(name)[1])


def classify(rel: str, lang: str | None) -> str:
    """'test' | 'example' | 'build' | 'config' | 'doc' | 'code' for an included file."""
    parts = rel.split("/")
    name, dirs = parts[-1], parts[:-1]
    if TEST_FILE.match(name) or any(d in TEST_DIRS or TEST_DIR_WORD.search(d) for d in dirs):
        return "test"
    if any(d in EXAMPLE_DIRS for d in dirs) or EXAMPLE_FILE.match(name):
        return "example"
    stem, suffix = split_name(name)
    if name in BUILD_NAMES or suffix in BUILD_EXT or name.startswith("Dockerfile."):
        return "build"
    if name in CONFIG_NAMES or suffix in CONFIG_EXT or name.startswith("requirements") and suffix == ".txt":
        return "config"
    if suffix in DOC_EXT or doc_name(stem) or \
            any(d in DOC_DIRS for d in dirs):
        return "doc"
    return "code" if lang else "doc"


# a file named for another project at a version: a copy of that project's code, not this one's
_VERSIONED = re.compile(r"([A-Za-z][\w.-]*?)-(\d+\.\d+\.\d+(?:[-+][\w.]+)?)(?:\.min)?")


def name_reason(name: str) -> str | None:
    """Why a file is left out from its name alone (no system call), or None."""
    suffix = split_name(name)[1]
    if suffix.lower() in BINARY_EXT or name in BINARY_EXT:
        return f"binary ({suffix or name})"
    if name in LOCKFILES:
        return "generated (lockfile)"
    if name.endswith(GENERATED_SUFFIXES):
        return "generated (by its name)"
    if (v := _VERSIONED.fullmatch(split_name(name)[0])) and known_name(name):  # (prettyplease's cargo-expand/syn-1.0.97.rs,
        return f"vendored (a copy of {v.group(1)} {v.group(2)})"  # a test corpus; `jquery-3.6.0.js`)
    if suffix and not known_name(name):  # extension-less files may be scripts: see shebang_language
        return f"not source code, documentation or configuration ({suffix})"
    return None


def doc_name(stem: str) -> bool:
    """README, LICENSE-MIT, CHANGES_1.x: the conventional names of a project's documents."""
    return re.split(r"[-_]", stem, maxsplit=1)[0] in DOC_NAMES


def known_name(name: str) -> bool:
    """Whether the name alone says the file is source, documentation, configuration or build."""
    stem, suffix = split_name(name)
    return (suffix in LANGUAGES or suffix in DOC_EXT or suffix in CONFIG_EXT or suffix in BUILD_EXT
            or name in NAME_LANGUAGES or name in BUILD_NAMES or name in CONFIG_NAMES
            or doc_name(stem) or name.startswith("Dockerfile"))


def head_reason(head: bytes, whole: bool) -> str | None:
    """Why a file is left out from its first 8 KB head, or None."""
    if b"\0" in head:
        return "binary (NUL byte in the first 8 KB)"
    low = head.lower()  # substring tests first: the regexes only run on the few heads that need them
    if b"generated" in low and (GENERATED_TAG.search(head) or (b"do not edit" in low and GENERATED_LINE.search(head))):
        return "generated (its header says so)"
    lines = head.split(b"\n")
    if max(map(len, lines)) <= LONG_LINE:  # the common case
        return None
    if not whole and len(lines) > 1:
        lines.pop()  # cut at 8 KB head: the last line is partial
    lines = [ln for ln in lines if ln.strip()]
    if lines and sum(len(ln) > LONG_LINE for ln in lines) * 2 > len(lines):
        return f"generated or minified (most lines are longer than {LONG_LINE} characters)"
    return None


def shebang_language(head: bytes) -> str | None:
    if not head.startswith(b"#!"):
        return None
    words = head[2:head.find(b"\n") if b"\n" in head else 200].decode("ascii", "replace").split()
    for w in words[:2]:  # `#!/usr/bin/env python3 -u` or `#!/bin/sh`
        base = re.sub(r"[\d.]+$", "", w.rsplit("/", 1)[-1])
        if base in SHEBANGS:
            return SHEBANGS[base]
    return None


def type_name(mode: int) -> str:
    """A file type in words, from a stat mode (never from opening the file)."""
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISDIR(mode):
        return "directory"
    return "not a regular file"


# A `.h` is C or C++ by what it says: these constructs exist only in C++ (comments aside, and
# `extern "C"` is how a C header talks to C++, so it is not among them).
_CPP_MARKERS = re.compile(
    rb"(?m)^\s*(?:namespace\s+[\w:]*\s*\{|template\s*<|(?:class|struct)\s+\w+\s*(?:final\s*)?:\s*(?:public|private|protected)\b"
    rb"|class\s+\w+\s*\{|(?:public|private|protected)\s*:|using\s+namespace\b|#\s*include\s*<(?:string|vector|memory|"
    rb"type_traits|utility|iterator|limits|cstdint|cstddef|cstdio|cstdlib|cstring|iostream|ostream|algorithm|"
    rb"functional|map|chrono|atomic)>)"
    rb"|\bstd::\w|\bconstexpr\b|\bnoexcept\b|\btypename\b")


_C_COMMENT = re.compile(rb"/\*.*?(?:\*/|$)|//[^\n]*", re.S)  # `std::strtod` in a C header's comment is not C++
_QUOTED_INCLUDE = re.compile(rb'(?m)^\s*#\s*include\s*"([^"\n]+)"')


def header_language(rel: str, head: bytes) -> str | None:
    """The language of a file from its name and first bytes: a `.h` with C++ in it is `cpp`."""
    lang = language_of(rel)
    if lang == "c" and rel.endswith(".h") and _CPP_MARKERS.search(_C_COMMENT.sub(b"", head)):
        return "cpp"
    return lang


def quoted_includes(head: bytes) -> list[str]:
    """The project headers a C/C++ file includes (`#include "format.h"`), as written."""
    return [m.group(1).decode("utf-8", "replace") for m in _QUOTED_INCLUDE.finditer(head)]


def settle_headers(langs: dict[str, str | None], includes: dict[str, list[str]] | None = None
                   ) -> dict[str, str | None]:
    """`.h` files whose content did not decide (`langs` maps path → language): C++ when they
    include a C++ header of the repository (fmt's core.h includes base.h), or when the
    repository's other sources are C++ and none is C (a `.h` next to `.cc` files); C otherwise."""
    langs = dict(langs)
    sources = [lang for rel, lang in langs.items() if not rel.endswith(".h")]
    if "cpp" in sources and "c" not in sources:
        return {rel: "cpp" if rel.endswith(".h") and lang == "c" else lang for rel, lang in langs.items()}
    by_name: dict[str, list[str]] = {}
    for rel in langs:
        by_name.setdefault(rel.rsplit("/", 1)[-1], []).append(rel)
    changed = True
    while changed:  # through chains of includes: core.h → base.h
        changed = False
        for rel, names in (includes or {}).items():
            if langs.get(rel) != "c" or not rel.endswith(".h"):
                continue
            folder = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
            for name in names:
                target = folder + name if folder + name in langs else next(iter(by_name.get(name.rsplit("/", 1)[-1], [])), "")
                if langs.get(target) == "cpp":
                    langs[rel], changed = "cpp", True
                    break
    return langs


# Third-party libraries projects copy in (test frameworks above all): a directory of one of these
# names inside a test or dependency folder is that library, not the project (fmt's test/gtest).
# Only there: the googletest repository's own `googletest/` is its code.
VENDORED_LIBRARIES = {"gtest": "googletest", "gmock": "googlemock", "googletest": "googletest",
                      "googlemock": "googlemock", "catch2": "Catch2", "Catch2": "Catch2", "catch": "Catch2",
                      "doctest": "doctest", "unity": "Unity", "cmocka": "cmocka", "benchmark": "google benchmark"}
_VENDORING_PARENTS = TEST_DIRS | {"deps", "external", "extern", "contrib", "libs", "ext"}


def vendored_copy(rel: str) -> str | None:
    """Why the directory `rel` is left out as a copy of a third-party library, or None."""
    parts = rel.split("/")
    lib = VENDORED_LIBRARIES.get(parts[-1])
    if lib and any(p in _VENDORING_PARENTS for p in parts[:-1]):
        return f"vendored (a copy of {lib})"
    # (or a folder named for another project at a version, wherever it is: BCrypt.Net's `assets/jBCrypt-0.4`, the
    # Java original it was ported from, is no code of this C# project)
    if len(parts) > 1 and (v := _VERSIONED_DIR.fullmatch(parts[-1])):
        return f"vendored (a copy of {v.group(1)} {v.group(2)})"
    return None


_VERSIONED_DIR = re.compile(r"([A-Za-z][\w.]*?)-v?(\d+\.\d+(?:\.\d+)*(?:[-+][\w.]+)?)")
