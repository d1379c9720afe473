"""The offline writer's chapter openings: each quotes the module doc of the file its chapter is
about (never the package's __init__ because it came first), and no two chapters of a book open
with the same sentence."""

from __future__ import annotations

from pathlib import Path

from orchestrator.authoring import authors as authoring
from orchestrator.outline import parse as parse_outline

CACHE = ('"""A least-recently-used cache, kept in front of the slow store."""\n\n\n'
         'class LRUCache:\n    """A mapping that forgets the least recently used entry."""\n\n'
         '    def __init__(self, n):\n        self.n = n\n        self.d = {}\n\n'
         '    def put(self, k, v):\n        """Keep `v` under `k`."""\n        self.d[k] = v\n        if len(self.d) > self.n:\n'
         '            self.d.pop(next(iter(self.d)))\n\n'
         '    def get(self, k):\n        """The value under `k`, or None."""\n        return self.d.get(k)\n')
STORE = ('"""Storage of records on disk, one file per key."""\n\nimport os\n\n\n'
         'def save(path, key, value):\n    """Write one record."""\n    with open(os.path.join(path, key), "w") as f:\n'
         '        f.write(value)\n\n\n'
         'def load(path, key):\n    """Read one record back."""\n    with open(os.path.join(path, key)) as f:\n'
         '        return f.read()\n')
INIT = '"""kvpkg: a package that stores values.\n\nIt has a cache and a store."""\n\nfrom .cache import LRUCache\n'


def _book(tmp_path: Path) -> dict[str, str]:
    """Every chapter of the demo book (minikv), drafted offline."""
    import shutil

    from orchestrator.resources import builtin

    src = tmp_path / "src"
    shutil.copytree(builtin("example"), src, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    ctx = {"source_root": str(src), "language": "en", "limits": {"max_chapters": 12, "batch_size": 3},
           "book": {"title": "A Book", "audience": "readers", "brief": "How it works."},
           "personas": ["Newcomer: new"], "memory": {"metaphors": [], "glossary": []}, "chapters": []}
    o = parse_outline(authoring.write_outline(ctx), "the plan", src)
    out = {}
    for c in o.chapters:
        cctx = dict(ctx, chapter=c.entry(), outline_yaml=o.to_yaml(),
                    chapters=[{"id": x.id, "title": x.title, "batch": x.batch, "summary": x.summary} for x in o.chapters])
        out[c.id] = authoring.write_draft(dict(cctx, research=authoring.write_research(cctx)))
    return out


def _opening(text: str) -> str:
    """A chapter's opening paragraphs; chapter 1's come after the big picture (issue 23), under
    "The code a user meets first"."""
    head = "\n## The code a user meets first\n"
    if head in text:
        return text.split("\n", 1)[0] + "\n" + text.split(head, 1)[1].split("\n## ", 1)[0]
    return text.split("\n## ", 1)[0]


def test_a_chapter_quotes_the_doc_of_its_own_module_not_the_package_init(tmp_path: Path):
    book = _book(tmp_path)
    cache = next(t for t in book.values() if "class LRUCache" in t)
    head = _opening(cache)
    assert "minikv/__init__.py" in cache  # the chapter covers the package file too ...
    assert "a tiny persistent key-value store" not in head  # ... but its doc does not speak for the cache
    # the noun phrase continues the lead-in
    assert "`minikv/cache.py` describes itself as a least-recently-used cache" in head


def test_no_two_chapters_open_with_the_same_sentence(tmp_path: Path):
    book = _book(tmp_path)
    assert len(book) >= 2
    firsts = [_opening(t).split("\n\n")[1].split(". ")[0] for t in book.values()]
    assert len(set(firsts)) == len(firsts), firsts
    # the audience is named once, by the first chapter
    assert sum("This book is for readers" in _opening(t) for t in book.values()) == 1


def test_doc_file_prefers_the_key_symbols_file(tmp_path: Path):
    from orchestrator.authoring.opening import doc_file
    from orchestrator.authoring.project import load

    src = tmp_path / "src"
    (src / "kvpkg").mkdir(parents=True)
    (src / "kvpkg" / "__init__.py").write_text(INIT)
    (src / "kvpkg" / "cache.py").write_text(CACHE)
    (src / "kvpkg" / "store.py").write_text(STORE)
    p = load(src)
    files = ["kvpkg/__init__.py", "kvpkg/cache.py", "kvpkg/store.py"]
    store = [s for s in p.symbols() if s.name == "save"]
    assert doc_file(p, files, store)[0] == "kvpkg/store.py"
    assert doc_file(p, files, [])[0] == "kvpkg/cache.py"  # a file of its own before the package's
    assert doc_file(p, ["kvpkg/__init__.py"], [])[0] == "kvpkg/__init__.py"  # the only doc there is


def test_a_later_chapter_opens_with_its_code_in_its_own_words(tmp_path: Path):
    from orchestrator.authoring.opening import _own_words
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write import _used

    src = tmp_path / "src"
    src.mkdir()
    (src / "fish.go").write_text("package cobra\n\n// GenFishCompletion generates fish completion file and writes to the "
                                 "passed writer.\nfunc GenFishCompletion(w any) error {\n\treturn nil\n}\n\n"
                                 "// Returns nothing useful.\nfunc other() {}\n")
    p = load(src)
    key = [s for s in p.symbols() if s.name in ("GenFishCompletion", "other")]
    assert _own_words(key, phrases("en")) == \
        "`GenFishCompletion` generates fish completion file and writes to the passed writer."
    assert _own_words([s for s in key if s.name == "other"], phrases("en")) == ""  # not a sentence about it
    # a Chinese book quotes the English comment as the source's own words, never as its prose
    assert _own_words(key, phrases("zh")) == \
        "源码注释这样介绍 `GenFishCompletion`：「GenFishCompletion generates fish completion file and writes to the passed writer.」"
    assert _used(1, 1, phrases("en")) == "used from 1 other source file and 1 test or example"
    assert _used(2, 0, phrases("en")) == "used from 2 other source files and 0 tests or examples"


def test_a_module_doc_that_opens_with_a_title(tmp_path: Path):
    # flask's json/tag.py opens with an RST title: the chapter's draft failed (IndexError)
    src = tmp_path / "src"
    src.mkdir()
    (src / "tag.py").write_text('"""\nTagged JSON\n~~~~~~~~~~~\n\nA compact representation for lossless serialization.\n\n'
                                'It can be extended.\n"""\n\n\nclass Tagger:\n    """A tagger tags values."""\n\n'
                                '    def tag(self, v):\n        """Tag `v`."""\n        return [v]\n')
    ctx = {"source_root": str(src), "language": "en", "limits": {"max_chapters": 12, "batch_size": 3},
           "book": {"title": "A Book", "audience": "readers", "brief": "How it works."},
           "personas": ["Newcomer: new"], "memory": {"metaphors": [], "glossary": []}, "chapters": []}
    o = parse_outline(authoring.write_outline(ctx), "the plan", src)
    c = o.chapters[0]
    cctx = dict(ctx, chapter=c.entry(), outline_yaml=o.to_yaml(),
                chapters=[{"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary}])
    text = authoring.write_draft(dict(cctx, research=authoring.write_research(cctx)))
    head = _opening(text)
    assert "`tag.py` describes itself as a compact representation for lossless serialization." in head
    assert head.count("It can be extended.") == 1


def test_a_trait_is_opened_as_a_contract(tmp_path: Path):
    # anyhow's StdError chapter said of a trait "what it holds, how one is made"
    from orchestrator.authoring.opening import _shape
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write import join

    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.rs").write_text("/// Something that can be shown.\npub trait Show {\n    fn show(&self) -> String;\n}\n\n"
                                "/// A colour.\npub enum Colour {\n    Red,\n    Blue,\n}\n")
    p = load(src)
    show = [s for s in p.symbols() if s.name == "Show"]
    colour = [s for s in p.symbols() if s.name == "Colour"]
    assert "what a type must provide to be one" in _shape(p, show, phrases("en"), join)
    assert "the cases it can be" in _shape(p, colour, phrases("en"), join)
    # type aliases only (ky's KyRequest, ResponsePromise): nothing to follow "step by step"
    (src / "types.ts").write_text("/** A request. */\nexport type KyRequest = Request & {id: string};\n\n"
                                  "/** A promise. */\nexport type ResponsePromise = Promise<Response> & {id: string};\n")
    p = load(src)
    aliases = [s for s in p.symbols() if s.name in ("KyRequest", "ResponsePromise")]
    assert {s.kind for s in aliases} == {"type alias"}
    assert _shape(p, aliases, phrases("en"), join).startswith("It is about the types ")


def test_an_opening_says_what_an_undocumented_symbol_is_and_who_uses_it(tmp_path: Path):
    # anyhow's books opened eight chapters with the same "At its centre is ..." sentence: an
    # imperative doc, a noun-phrase doc (declared with its doc in another file) and, where no doc
    # says anything, who uses the chapter's central symbol lead instead
    from orchestrator.authoring.opening import _own_words, _uses_sentence, third_person
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write import join as _join

    src = tmp_path / "crate" / "src"
    src.mkdir(parents=True)
    (src / "lib.rs").write_text("mod chain;\nmod ptr;\n\n/// Iterator of a chain of source errors.\npub struct Chain {\n"
                                "    n: usize,\n}\n\n/// Construct an ad-hoc error from a string.\npub fn msg(m: &str) -> Ref {\n"
                                "    Ref::new(m)\n}\n")
    (src / "chain.rs").write_text("pub struct Chain {\n    n: usize,\n}\n\nimpl Chain {\n"
                                  "    pub fn len(&self) -> usize { self.n }\n}\n")
    (src / "ptr.rs").write_text("pub struct Ref {\n    p: usize,\n}\n\nimpl Ref {\n"
                                "    pub fn new(_m: &str) -> Ref { Ref { p: 0 } }\n}\n")
    p = load(src.parent)
    en = phrases("en")
    chain = [s for s in p.symbols(["src/chain.rs"]) if s.name == "Chain"]
    assert _own_words(chain, en, p) == "`Chain` is an iterator of a chain of source errors."
    msg = [s for s in p.symbols(["src/lib.rs"]) if s.name == "msg"]
    assert _own_words(msg, en, p) == "`msg` constructs an ad-hoc error from a string."
    ref = [s for s in p.symbols(["src/ptr.rs"]) if s.name == "Ref"]
    assert _own_words(ref, en, p) == ""
    assert _uses_sentence(p, ["src/ptr.rs"], ref, en, _join) == \
        "Only one file outside this chapter reaches for `Ref`: `src/lib.rs`."
    assert [third_person(v) for v in ("Push", "Apply", "Do", "Wrap")] == ["pushes", "applies", "does", "wraps"]
