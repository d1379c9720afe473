"""A small command line for a minikv store, mostly for trying it out.

Usage, from the directory that contains the `minikv` package::

    python3 -m minikv.cli --dir data put greeting hello
    python3 -m minikv.cli --dir data get greeting
    python3 -m minikv.cli --dir data scan --start a --end m
    python3 -m minikv.cli --dir data delete greeting
    python3 -m minikv.cli --dir data compact
    python3 -m minikv.cli --dir data stats

Keys and values are taken as UTF-8 text. Every command opens the store, which recovers it,
does its one thing and closes it again.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .store import Store


def build_parser() -> argparse.ArgumentParser:
    """Describe the command line: a `--dir` option and one subcommand per operation."""
    parser = argparse.ArgumentParser(prog="minikv",
                                     description="A tiny persistent key-value store.")
    parser.add_argument("--dir", default="minikv-data",
                        help="the store's directory (default: %(default)s)")
    parser.add_argument("--no-sync", action="store_true",
                        help="do not fsync each write (faster, less durable)")
    commands = parser.add_subparsers(dest="command", required=True)
    put = commands.add_parser("put", help="set a key to a value")
    put.add_argument("key")
    put.add_argument("value")
    get = commands.add_parser("get", help="print a key's value")
    get.add_argument("key")
    delete = commands.add_parser("delete", help="remove a key")
    delete.add_argument("key")
    scan = commands.add_parser("scan", help="print keys and values in key order")
    scan.add_argument("--start", help="first key to include")
    scan.add_argument("--end", help="first key to exclude")
    commands.add_parser("flush", help="write the memtable to a table file")
    commands.add_parser("compact", help="merge all table files into one")
    commands.add_parser("stats", help="print the store's counters")
    return parser


def run(store: Store, args: argparse.Namespace) -> int:
    """Carry out the command in `args` on an open `store`; return the exit status."""
    if args.command == "put":
        store.put(args.key, args.value)
    elif args.command == "get":
        value = store.get(args.key)
        if value is None:
            print(f"minikv: no such key: {args.key}", file=sys.stderr)
            return 1
        print(_text(value))
    elif args.command == "delete":
        store.delete(args.key)
    elif args.command == "scan":
        for key, value in store.scan(args.start, args.end):
            print(f"{_text(key)}\t{_text(value)}")
    elif args.command == "flush":
        path = store.flush()
        print(path if path else "nothing to flush")
    elif args.command == "compact":
        store.compact()
    elif args.command == "stats":
        for name, count in store.stats().items():
            print(f"{name}: {count}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default: the process arguments), run the command, return the status."""
    args = build_parser().parse_args(argv)
    with Store(args.dir, sync=not args.no_sync) as store:
        return run(store, args)


def _text(data: bytes) -> str:
    """Render stored bytes for the terminal, escaping anything that is not valid UTF-8."""
    return data.decode("utf-8", errors="backslashreplace")


if __name__ == "__main__":
    sys.exit(main())
