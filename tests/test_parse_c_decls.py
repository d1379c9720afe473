"""C/C++ declarations as their users write them (issue 23 item 5): `typedef struct X {…} Y` is
known as `Y` with `X` an alias and the comment above the typedef as its doc, and the names a
`#define` body writes are references of the map."""

from __future__ import annotations

from orchestrator.repo.parse import PARSER_VERSION, parse_source
from orchestrator.repo.rank import build_graph

HEADER = """#ifndef READ_H
#define READ_H

/* The reader: feeds bytes, gives replies. */
typedef struct redisReaderImpl {
    int err;
    struct redisReaderImpl *next;
} redisReader;

/* Options of a connection. */
typedef struct {
    int type;
} redisOptions;

/* Context for a connection. */
typedef struct redisContext {
    int fd;
} redisContext;

#define READER_FEED(r, buf) readerFeed((r), (buf), 1)
#define READER_MAX 1024
#endif
"""


def test_a_typedef_struct_is_known_by_its_typedef_name_with_its_tag_as_an_alias():
    fm = parse_source(HEADER, "c")
    by = {d.name: d for d in fm.definitions}
    assert "redisReaderImpl" not in by  # the tag is not a definition of its own
    reader = by["redisReader"]
    assert (reader.kind, reader.aliases, reader.doc) == ("struct", ["redisReaderImpl"], "The reader: feeds bytes, gives replies.")
    assert reader.signature == "typedef struct redisReaderImpl {…} redisReader"
    assert (reader.start_line, reader.end_line) == (5, 8)
    anon = by["redisOptions"]  # `typedef struct {…} Y`
    assert (anon.kind, anon.aliases, anon.doc, anon.signature) == ("struct", [], "Options of a connection.",
                                                                    "typedef struct {…} redisOptions")
    same = by["redisContext"]  # tag and name alike: one definition, no alias
    assert (same.kind, same.aliases, same.doc) == ("struct", [], "Context for a connection.")
    assert sum(1 for d in fm.definitions if d.name == "redisContext") == 1


def test_a_macro_ends_on_its_own_line_and_its_body_names_are_references():
    fm = parse_source(HEADER, "c")
    feed = next(d for d in fm.definitions if d.name == "READER_FEED")
    assert (feed.start_line, feed.end_line) == (20, 20)  # not the next line, where its newline ends
    assert fm.references.get("readerFeed") == 1  # in the body of READER_FEED
    assert "r" not in fm.references and "buf" not in fm.references or fm.references.get("buf", 0) <= 1


def test_the_tag_written_elsewhere_links_to_the_typedefs_file():
    files = {"read.h": parse_source(HEADER, "c"),
             "read.c": parse_source('#include "read.h"\nint f(struct redisReaderImpl *r) { return r->err; }\n', "c"),
             "feed.c": parse_source("int readerFeed(void *r, const char *b, int n) { return n; }\n", "c")}
    graph = build_graph(files, {rel: "code" for rel in files})
    assert "read.h" in graph.edges["read.c"]  # through the alias `redisReaderImpl`
    assert "feed.c" in graph.edges["read.h"]  # the macro body's call


def test_the_parser_version_is_new_so_cached_maps_are_read_again():
    assert PARSER_VERSION >= 8
