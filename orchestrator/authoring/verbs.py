"""The verbs a title says (issue 35): those a method's name may open with and how a title says them
("find" → "finds"), and their -ing form ("Parsing raw bodies"). ideas.py and doc_phrases.py read them."""

from __future__ import annotations

import re

# verbs a method name may open with, and how a title says them
VERBS = {
    "find": "finds", "resolve": "resolves", "dispatch": "dispatches", "handle": "handles", "route": "routes",
    "serve": "serves", "parse": "parses", "build": "builds", "create": "creates", "render": "renders", "send": "sends",
    "write": "writes", "read": "reads", "load": "loads", "save": "saves", "insert": "inserts", "search": "searches",
    "update": "updates", "remove": "removes", "match": "matches", "invoke": "invokes", "run": "runs",
    "execute": "executes", "register": "registers", "mount": "mounts", "compile": "compiles", "encode": "encodes",
    "decode": "decodes", "serialize": "serializes", "deserialize": "deserializes", "format": "formats",
    "validate": "validates", "convert": "converts", "wrap": "wraps", "complete": "completes", "generate": "generates",
    "open": "opens", "connect": "connects", "listen": "listens", "accept": "accepts", "process": "processes",
    "emit": "emits", "apply": "applies", "merge": "merges", "compose": "composes", "extract": "extracts",
    "redirect": "redirects", "fetch": "fetches", "select": "selects", "filter": "filters", "query": "queries",
    "store": "stores", "lookup": "looks up", "schedule": "schedules", "spawn": "spawns",
    "collect": "collects", "prepare": "prepares", "finalize": "finalizes", "bind": "binds", "consume": "consumes",
    "produce": "produces", "transform": "transforms", "evaluate": "evaluates", "insert_route": "inserts a route",
    "make": "makes", "add": "adds", "print": "prints", "log": "logs", "format_help": "formats its help",
    "install": "installs", "configure": "configures", "dump": "dumps", "flush": "flushes", "close": "closes",
    "upgrade": "upgrades", "stream": "streams", "negotiate": "negotiates", "authenticate": "authenticates",
    "sign": "signs", "verify": "verifies", "cache": "caches", "retry": "retries", "lex": "lexes", "scan": "scans",
    "tokenize": "tokenizes", "expand": "expands", "layout": "lays out", "draw": "draws", "paint": "paints", "stringify": "stringifies",
    # (govaluate's `checkExpressionSyntax`: "Checking expression syntax", not the module's "Token kind")
    "check": "checks", "clean": "cleans", "sanitize": "sanitizes", "escape": "escapes", "split": "splits", "join": "joins",
    "normalize": "normalizes", "compare": "compares", "diff": "diffs", "patch": "patches", "hash": "hashes",
    "encrypt": "encrypts", "decrypt": "decrypts", "compress": "compresses", "decompress": "decompresses",
    "marshal": "marshals", "unmarshal": "unmarshals", "visit": "visits", "walk": "walks", "traverse": "traverses",
    "sort": "sorts", "calculate": "calculates", "compute": "computes", "detect": "detects", "optimize": "optimizes",
    "replace": "replaces", "translate": "translates", "interpolate": "interpolates", "highlight": "highlights",
    "publish": "publishes", "subscribe": "subscribes", "notify": "notifies",
}


def gerund(verb: str) -> str:
    if verb in ("format", "submit", "commit", "omit", "admit", "transmit", "split", "unmarshal", "marshal"):
        return verb + verb[-1] + "ing"  # the stress on the last syllable doubles it
    if verb in ("lookup", "layout"):
        return {"lookup": "looking up", "layout": "laying out"}[verb]
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye")):
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb) and len(verb) <= 4:
        return verb + verb[-1] + "ing"  # run → running, map → mapping
    return verb + "ing"
