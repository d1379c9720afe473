"""Issue 35: the named functions a JavaScript or TypeScript function declares in its own body are steps
of the main path (yargs-parser's `parse` → `setArg` → `setKey`; body-parser's `json` returns
`jsonParser`), and their calls are theirs, not the enclosing function's."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.local_defs import in_scope, local_functions
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import load

PARSER_TS = """export class Parser {
  parse (args: string[]): object {
    const argv: { [key: string]: any } = {}
    for (const arg of args) {
      if (arg.startsWith('--')) {
        setArg(arg.slice(2), true)
      } else {
        setArg('_', arg)
      }
    }
    setArg('$0', 'cli')
    return argv

    function setArg (key: string, val: any): void {
      const value = processValue(key, val)
      setKey(argv, key.split('.'), value)
    }

    function processValue (key: string, val: any) {
      return typeof val === 'string' ? val.trim() : val
    }

    function setKey (obj: { [key: string]: any }, keys: string[], value: any): void {
      let o = obj
      keys.slice(0, -1).forEach(function (key) {
        o[key] = o[key] || {}
        o = o[key]
      })
      o[keys[keys.length - 1]] = sanitize(value)
      return
    }
  }
}

export function sanitize (value: any): any {
  if (value === '__proto__') {
    return '___proto___'
  }
  return value
}
"""

JSON_JS = """'use strict'

module.exports = json

/**
 * Create a middleware to parse JSON bodies.
 */
function json (options) {
  const opts = options || {}
  const limit = opts.limit || 100

  return function jsonParser (req, res, next) {
    read(req, res, next, limit)
  }
}

function read (req, res, next, limit) {
  const stream = contentstream(req)
  stream.on('data', function (chunk) {
    next(chunk.length > limit)
  })
}

function contentstream (req) {
  const encoding = req.headers['content-encoding']
  const stream = encoding ? req.pipe(decoder(encoding)) : req
  stream.length = req.headers['content-length']
  return stream
}

function decoder (encoding) {
  return encoding === 'gzip' ? 'gunzip' : 'inflate'
}
"""


def test_a_functions_own_functions_are_found_with_their_lines_and_reached_by_a_bare_call(tmp_path: Path):
    p = load(_write(tmp_path / "cli", {"package.json": '{"name": "cli"}\n', "lib/parser.ts": PARSER_TS}))
    parse = next(s for s in p.symbols() if s.dotted == "Parser.parse")
    local = {x.short: x for x in local_functions(p, parse)}
    assert list(local) == ["setArg", "processValue", "setKey"]  # (the `forEach` callback is setKey's, unnamed)
    # setKey's parameter type holds braces (`{ [key: string]: any }`): its body still ends at its own `}`
    assert (local["setKey"].d.start_line, local["setKey"].d.end_line) == (23, 31)
    assert local["setArg"].dotted == "Parser.parse.setArg"
    # a bare call in a sibling reaches it, as JavaScript's scope says
    assert in_scope(p, local["setArg"], "setKey") is local["setKey"]
    # the enclosing function calls setArg; setKey is called in setArg's body, so it is setArg's call, not parse's
    assert [c.short for c in all_calls(p, parse)] == ["setArg"]
    assert [c.short for c in all_calls(p, local["setArg"])] == ["processValue", "setKey"]
    assert [c.short for c in all_calls(p, local["setKey"])] == ["sanitize"]


def test_the_main_path_runs_through_a_returned_middleware_named_in_its_function(tmp_path: Path):
    readme = "# bp\n\n```js\nconst bodyParser = require('bp')\napp.use(bodyParser.json())\n```\n"
    p = load(_write(tmp_path / "bp", {"package.json": '{"name": "bp", "main": "index.js"}\n', "README.md": readme,
                                       "index.js": "exports.json = require('./lib/json')\n", "lib/json.js": JSON_JS}))
    path = [s.dotted for s in central_path(p, entry_points(p))]
    assert path[:3] == ["json", "json.jsonParser", "read"], path
