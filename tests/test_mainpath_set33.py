"""Where chapter 1's main path goes (issue 35, session 31, set 33 as the development set after its measurement).
Each rule on a small source, failing without it."""

from __future__ import annotations

from conftest import traced as _path, write_files as _write

from orchestrator.authoring.project import load

# signale's shape: the package is an instance (`Object.assign(new Signale(), {Signale})`) whose constructor binds its
# `_logger` to each log type; the README's first block calls several of them on the package
_SIGNALE = {
    "readme.md": """# signale

## Usage

### Default Loggers

```js
const signale = require('signale');

signale.success('Operation successful');
signale.debug('Hello', 'from', 'L59');
signale.pending('Write release notes for %s', '1.2.0');
```

### Custom Loggers

```js
const {Signale} = require('signale');

const custom = new Signale({types: {remind: {badge: '**'}}});
custom.remind('Improve documentation.');
```
""",
    "package.json": '{"name": "signale", "main": "index.js"}\n',
    "index.js": "'use strict';\nconst Signale = require('./src/signale');\n\nmodule.exports = Object.assign(new Signale(), {Signale});\n",
    "src/signale.js": """'use strict';
const defaultTypes = {success: {badge: '+'}, debug: {badge: '.'}, pending: {badge: '~'}};

class Signale {
  constructor(options = {}) {
    this._types = Object.assign({}, defaultTypes, options.types);
    this._stream = options.stream || process.stdout;
    Object.keys(this._types).forEach(type => {
      this[type] = this._logger.bind(this, type);
    });
  }

  _buildSignale(type, ...args) {
    return [type.badge, ...args].join(' ').trim().padEnd(10);
  }

  _write(stream, message) {
    stream.write(message.trimEnd() + '\\n');
  }

  _log(message, stream) {
    this._write(stream, message);
  }

  _logger(type, ...messageObj) {
    const message = this._buildSignale(this._types[type], ...messageObj);
    this._log(message, this._stream);
  }
}

module.exports = Signale;
""",
}


def test_a_member_the_constructor_binds_runs_its_method_on_the_packages_own_instance(tmp_path):
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points, example_of
    from orchestrator.authoring.story import _path_walk

    p = load(_write(tmp_path, _SIGNALE))
    ex = example_of(p, entry_points(p))
    assert ex is not None and "signale.success('Operation successful');" in ex.code
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[0] == "Signale._logger" and "Signale._log" in path, path
    text = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en"))
    assert "`Signale` defines no method for the example's `signale.success(…)`: its constructor binds its " \
           "`Signale._logger` (`src/signale.js`, line 25) to each such name (line 9)" in text, text


def test_a_folder_named_for_another_project_at_a_version_is_a_vendored_copy():
    from orchestrator.repo.classify import vendored_copy

    assert vendored_copy("assets/jBCrypt-0.4") == "vendored (a copy of jBCrypt 0.4)"  # (BCrypt.Net's Java original)
    assert vendored_copy("deps/zlib-1.2.13") == "vendored (a copy of zlib 1.2.13)"
    assert vendored_copy("docs/v1.2") is None and vendored_copy("src/utf-8") is None and vendored_copy("lib-1.0") is None


# typedi's shape: the package exports its default container as a class's static field
_TYPEDI = {
    "README.md": """# typedi

## Usage

```ts
import { Container, Service } from 'typedi';

@Service()
class ExampleService {}

const serviceInstance = Container.get(ExampleService);
```
""",
    "package.json": '{"name": "typedi"}\n',
    "src/index.ts": "import { ContainerRegistry } from './container-registry.class';\n\n"
                    "export * from './service.decorator';\n\nexport const Container = ContainerRegistry.defaultContainer;\n",
    "src/service.decorator.ts": "import { ContainerRegistry } from './container-registry.class';\n\n"
                                "export function Service(): ClassDecorator {\n  return target => {\n"
                                "    ContainerRegistry.defaultContainer.set({ id: target, type: target });\n  };\n}\n",
    "src/container-registry.class.ts": """import { ContainerInstance } from './container-instance.class';

export class ContainerRegistry {
  public static readonly defaultContainer: ContainerInstance = new ContainerInstance('default');
}
""",
    "src/container-instance.class.ts": """export class ContainerInstance {
  private metadataMap: Map<unknown, { id: unknown; type: any; value?: unknown }> = new Map();

  constructor(public readonly id: string) {}

  public get<T = unknown>(identifier: unknown): T {
    const metadata = this.metadataMap.get(identifier);
    if (metadata) {
      return this.getServiceValue(metadata) as T;
    }
    throw new Error(`Service not found: ${String(identifier)}`);
  }

  public set(metadata: { id: unknown; type: any }): this {
    this.metadataMap.set(metadata.id, metadata);
    return this;
  }

  private getServiceValue(metadata: { id: unknown; type: any; value?: unknown }): unknown {
    if (metadata.value === undefined) {
      metadata.value = new metadata.type(...this.initializeParams(metadata.type));
    }
    return metadata.value;
  }

  private initializeParams(target: Function): unknown[] {
    const params: unknown[] = Reflect.getMetadata?.('design:paramtypes', target) ?? [];
    return params.map(param => this.get(param));
  }
}
""",
}


def test_an_exported_constant_that_is_a_classs_static_field_has_the_fields_class(tmp_path):
    from orchestrator.authoring.example_calls import built_type

    p = load(_write(tmp_path, _TYPEDI))
    code = "import { Container, Service } from 'typedi';\n\nconst serviceInstance = Container.get(ExampleService);\n"
    assert built_type(p, code, "Container", "typescript") == "ContainerInstance"
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[:2] == ["ContainerInstance.get", "ContainerInstance.getServiceValue"], path


def test_a_step_says_hands_it_the_work_only_where_the_body_hands_its_work_to_that_call(tmp_path):
    import re

    from conftest import symbol
    from test_mainpath_set32 import _CONSOLA, _TABLES, _WHENEVER

    from orchestrator.authoring.handoff import handed_to
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _path_walk

    said = 0
    for k, files in enumerate((_WHENEVER, _CONSOLA, _TABLES, _SIGNALE)):
        p = load(_write(tmp_path / str(k), files))
        for line in _path_walk(p, central_path(p, entry_points(p)), {}, "en"):
            m = re.match(r"\d+\. `([^`]+)` calls `([^`]+)`", line)
            if m is None:
                continue
            a, b = (symbol(p, n.replace("::", ".")) for n in m.groups())
            assert ("hands it the work" in line) == (handed_to(p, a) == (b.rel, b.d.start_line)), line
            said += "hands it the work" in line
    assert said  # (the hand-offs are said)


# p-limit's shape, with its returned function written as a declaration: the README binds what the package's function
# makes and calls that
_LIMIT = {
    "readme.md": """# p-limit

## Usage

```js
import pLimit from 'p-limit';

const limit = pLimit(1);

const input = [
	limit(() => fetchSomething('foo')),
	limit(() => doSomething()),
];

const result = await Promise.all(input);
```
""",
    "package.json": '{"name": "p-limit", "type": "module", "exports": "./index.js"}\n',
    "index.js": """export default function pLimit(concurrency) {
	const queue = [];
	let activeCount = 0;

	function next() {
		activeCount--;
		if (queue.length > 0) {
			queue.shift()();
		}
	}

	async function run(function_, resolve, arguments_) {
		activeCount++;
		const result = (async () => function_(...arguments_))();
		resolve(result);
		try {
			await result;
		} catch {}
		next();
	}

	function enqueue(function_, resolve, arguments_) {
		queue.push(run.bind(undefined, function_, resolve, arguments_));
		if (activeCount < concurrency && queue.length > 0) {
			queue.shift()();
		}
	}

	function generator(function_, ...arguments_) {
		return new Promise(resolve => {
			enqueue(function_, resolve, arguments_);
		});
	}

	return generator;
}
""",
}


def test_a_function_the_example_binds_from_the_packages_maker_and_calls_runs_what_the_maker_returns(tmp_path):
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _path_walk

    p = load(_write(tmp_path, _LIMIT))
    assert _path(p)[:1] == ["pLimit"] and _path(p)[_path(p).index("|") + 1:][:3] == ["pLimit.generator", "pLimit.enqueue", "pLimit.run"], _path(p)
    text = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en"))
    assert "`limit` is the function `pLimit` returns" in text, text
