"""Where chapter 1's main path starts and how it goes on (issue 35, session 25, set 20): a Ruby top-level `def`
called as a function; Ruby's paren-less `Const.meth.name(…)`; a class field holding a same-file function; the local function
a maker returns; Go's generic calls; Kotlin's `apply`. Each on a small source, failing without its rule."""

from __future__ import annotations

from conftest import symbol as _sym, traced as _path, write_files as _write

from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, load


def _calls(p: Project, dotted: str, line: int = 0) -> list[str]:
    return [c.dotted for c in all_calls(p, _sym(p, dotted, line))]


def test_a_ruby_top_level_def_called_as_a_function_is_the_entry_and_its_paren_less_chain_resolves(tmp_path):
    # rainbow: `Rainbow("red")` calls `def Rainbow(string)`, though modules of that name are everywhere;
    # its body `Rainbow.global.wrap(…)` calls `global` without parentheses, then `wrap` on the Wrapper it gives
    p = load(_write(tmp_path / "paint", {
        "README.md": "# paint\n\n## Usage\n\n```ruby\nrequire 'paint'\n\nputs Paint(\"this is red\").red\n```\n",
        "lib/paint.rb": "require_relative 'paint/global'\n\nmodule Paint\n  def self.new\n    Wrapper.new\n  end\nend\n",
        "lib/paint/global.rb": """require_relative 'wrapper'

module Paint
  def self.global
    @global ||= Wrapper.new
  end
end

def Paint(string)
  Paint.global.wrap(string.to_s)
end
""",
        "lib/paint/wrapper.rb": """module Paint
  class Wrapper
    def wrap(string)
      text = string.strip
      text = text.squeeze(" ")
      Presenter.new(text)
    end
  end
end
""",
        "lib/paint/presenter.rb": "module Paint\n  class Presenter < ::String\n    def red\n      wrap_with_sgr(31)\n    end\n\n"
                                  "    def wrap_with_sgr(code)\n      \"\\e[#{code}m#{self}\\e[0m\"\n    end\n  end\nend\n",
    }))
    assert entry_points(p)[0].dotted == "Paint" and entry_points(p)[0].kind == "method"
    assert _calls(p, "Paint", 9) == ["Paint.global", "Paint.Wrapper.wrap"]


def test_a_declared_class_is_the_implementation_the_declarations_module_imports(tmp_path):
    # fast-xml-parser: lib/fxp.d.cts declares `XMLParser`; src/xmlparser/ and the next version's src/v6/ both
    # define one, and src/fxp.js imports the first; a constructor's `this.parseXml = parseXml` holds a function
    p = load(_write(tmp_path / "xp", {
        "README.md": "# xp\n\n```js\nconst { XMLParser } = require(\"xp\");\nconst parser = new XMLParser();\n"
                     "let obj = parser.parse(data);\n```\n",
        "package.json": '{"name": "xp", "main": "./lib/fxp.cjs", "module": "./src/fxp.js"}\n',
        "lib/fxp.d.cts": "export class XMLParser {\n  constructor(options?: object);\n  parse(xml: string): any;\n}\n",
        "src/fxp.js": "import XMLParser from './xmlparser/XMLParser.js';\nexport { XMLParser };\n",
        "src/xmlparser/XMLParser.js": """import Ordered from './Ordered.js';

export default class XMLParser {
    constructor(options) {
        this.options = options || {};
    }

    parse(xmlData) {
        const ordered = new Ordered(this.options);
        const result = ordered.parseXml(xmlData);
        return result;
    }
}
""",
        "src/xmlparser/Ordered.js": """export default class Ordered {
    constructor(options) {
        this.options = options;
        this.parseXml = parseXml;
    }
}

const parseXml = function (xmlData) {
    const tags = [];
    for (let i = 0; i < xmlData.length; i++) {
        tags.push(readTag(xmlData, i));
    }
    return tags;
};

function readTag(xmlData, i) {
    return xmlData.slice(i, xmlData.indexOf(">", i));
}
""",
        "src/v6/XMLParser.js": "export default class XMLParser {\n    constructor(options) {\n        this.o = options;\n"
                               "    }\n\n    parse(xmlData) {\n        return xmlData.trim();\n    }\n}\n",
    }))
    assert _calls(p, "XMLParser.parse", 8) == ["Ordered", "parseXml"]


def test_calling_what_a_maker_made_runs_the_local_function_it_returns(tmp_path):
    # ofetch: `export const ofetch = createFetch(…)`, called `ofetch(url)`, runs the `$fetch` createFetch returns
    p = load(_write(tmp_path / "getter", {
        "README.md": "# getter\n\n```js\nimport { getter } from \"getter\";\n\nconst { users } = await getter(\"/api/users\");\n```\n",
        "src/index.ts": "import { createGetter } from \"./fetch.ts\";\n\nexport const getter = createGetter({ fetch });\n",
        "src/fetch.ts": """export function createGetter(globalOptions = {}) {
  const raw: Getter["raw"] = async function raw<
    T = any,
  >(request: string, options = {}) {
    const context = { request, options };
    await callHooks(context, options.onRequest);
    context.response = await globalOptions.fetch(request);
    await callHooks(context, options.onResponse);
    return context.response;
  };

  const $get = async function $get(request, options) {
    const r = await raw(request, options);
    return r._data;
  };

  return $get;
}

export async function callHooks(context, hooks) {
  for (const hook of hooks || []) {
    await hook(context);
  }
}
""",
    }))
    assert _path(p) == ["createGetter", "|", "createGetter.$get", "createGetter.raw", "callHooks"]


def test_a_go_generic_call_with_type_arguments_is_a_call(tmp_path):
    # cast: `ToIntE` is `return toNumberE[int](i, parseInt[int])`
    p = load(_write(tmp_path / "conv", {
        "go.mod": "module example.com/conv\n\ngo 1.21\n",
        "number.go": """package conv

// ToIntE casts a value to an int.
func ToIntE(i any) (int, error) {
	return toNumberE[int](i, parseInt[int])
}

func toNumberE[T int | int64](i any, parse func(string) (T, error)) (T, error) {
	s, ok := i.(string)
	if !ok {
		return 0, nil
	}
	return parse(s)
}

func parseInt[T int | int64](s string) (T, error) {
	var t T
	return t, nil
}
""",
    }))
    assert "toNumberE" in _calls(p, "ToIntE")


def test_kotlin_apply_gives_back_its_receiver(tmp_path):
    # picnic: `fun table(content: TableDsl.() -> Unit) = TableDslImpl().apply(content).create()`
    p = load(_write(tmp_path / "grid", {
        "settings.gradle.kts": "rootProject.name = \"grid\"\n",
        "src/main/kotlin/grid/dsl.kt": """package grid

fun table(content: TableDsl.() -> Unit) = TableDslImpl().apply(content).create()

interface TableDsl {
  fun row(vararg cells: Any?)
}

class TableDslImpl : TableDsl {
  private val rows = mutableListOf<List<Any?>>()

  override fun row(vararg cells: Any?) {
    rows.add(cells.toList())
  }

  fun create() = Table(rows.toList())
}

class Table(val rows: List<List<Any?>>)
""",
    }))
    assert "TableDslImpl.create" in _calls(p, "table")
