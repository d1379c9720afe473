"""Chapter 1's main path (issue 35): started from the README example's serving call, followed
through what a call graph cannot see (authoring/hops.py), ended where the work leaves the map, and
each step still citing lines that show it (evidence.resolve.claim_problem), on small sources."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.mainpath import central_path, handed_out
from orchestrator.authoring.overview import entry_points, first_example
from orchestrator.authoring.project import Project, load
from orchestrator.authoring.story import _path_walk
from orchestrator.evidence.cite import blocks
from orchestrator.evidence.resolve import SourceFiles, claim_problem, sentence_calls


def _path(p: Project) -> list[str]:
    return [s.name for s in central_path(p, entry_points(p))]


def _walk(p: Project) -> str:
    return "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en"))


def _steps_hold(p: Project, walk: str) -> None:
    """Every numbered step cites lines, and they show what it says (names, and a call it says is made)."""
    steps = [s for b in blocks(walk) for s in b.sentences if s.text.lstrip()[:1].isdigit()]
    assert steps and all(s.cites for s in steps), walk
    problems = [claim_problem(s.names, sentence_calls(s.text), s.cites, SourceFiles(p.root)) for s in steps]
    assert problems == [None] * len(steps), (problems, walk)


EXPRESS_README = """# expressy

```js
const express = require('expressy')
const app = express()

app.get('/', (req, res) => {
  res.send('Hello World')
})

app.listen(3000)
```
"""
EXPRESS_INDEX = "module.exports = require('./lib/expressy');\n"
EXPRESS_MAIN = """var proto = require('./application');

exports = module.exports = createApplication;

function createApplication() {
  var app = function(req, res, next) {
    app.handle(req, res, next);
  };
  app.init();
  return app;
}
"""
EXPRESS_APP = """var http = require('node:http');
var Router = require('router');

var app = exports = module.exports = {};

app.init = function init() {
  this.settings = {};
  this.defaultConfiguration();
};

app.defaultConfiguration = function defaultConfiguration() {
  this.set('x-powered-by', true);
  this.set('env', 'development');
};

app.set = function set(setting, val) {
  this.settings[setting] = val;
  return this;
};

app.enabled = function enabled(setting) {
  return Boolean(this.set(setting));
};

app.handle = function handle(req, res, callback) {
  if (this.enabled('x-powered-by')) {
    res.setHeader('X-Powered-By', 'Expressy');
  }
  this.router.handle(req, res, callback);
};

app.route = function route(path) {
  return this.router.route(path);
};

app.get = function get(path) {
  var route = this.route(path);
  this.lazyRouter(path);
  return this;
};

app.lazyRouter = function lazyRouter(path) {
  this.defaultConfiguration();
  this.init();
};

app.listen = function listen() {
  var server = http.createServer(this);
  return server.listen.apply(server, arguments);
};
"""


def test_a_server_is_followed_from_the_examples_listen_into_the_handler_it_serves(tmp_path: Path):
    root = _write(tmp_path / "repo", {"Readme.md": EXPRESS_README, "package.json": '{"name": "expressy"}',
                                      "index.js": EXPRESS_INDEX, "lib/expressy.js": EXPRESS_MAIN,
                                      "lib/application.js": EXPRESS_APP})
    p = load(root)
    # the example sets up (`app.get`) and then runs (`app.listen`): the run is the call to follow;
    # `http.createServer(this)` calls the app for each request, which runs its `handle`; `handle` ends
    # in `this.router.handle(…)`, another package's router: the path ends there, not in `app.enabled`
    assert _path(p) == ["app.listen", "app.handle"]
    walk = _walk(p)
    assert "1. `app.listen` runs `app.handle` through `http.createServer` (line " in walk
    assert "Here the map stops: `app.handle` goes on with `this.router.handle(…)`" in walk
    _steps_hold(p, walk)


CHI_README = """# chy

```go
package main

import (
	"net/http"

	"github.com/x/chy"
)

func main() {
	r := chy.NewRouter()
	r.Get("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("welcome"))
	})
	http.ListenAndServe(":3000", r)
}
```
"""
CHI_MUX = """package chy

import "net/http"

// Mux is the router.
type Mux struct {
	handler http.Handler
	tree    *node
}

// NewRouter returns a new Mux.
func NewRouter() *Mux {
	return &Mux{tree: &node{}}
}

// ServeHTTP is the single method of the http.Handler interface.
func (mx *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if mx.handler == nil {
		mx.updateRouteHandler()
	}
	mx.handler.ServeHTTP(w, r)
}

// Get adds a route for GET requests.
func (mx *Mux) Get(pattern string, h http.HandlerFunc) {
	mx.handle("GET", pattern, h)
}

func (mx *Mux) handle(method, pattern string, h http.Handler) {
	mx.tree.InsertRoute(method, pattern, h)
}

func (mx *Mux) routeHTTP(w http.ResponseWriter, r *http.Request) {
	h := mx.tree.FindRoute(r.Method, r.URL.Path)
	h.ServeHTTP(w, r)
}

func (mx *Mux) updateRouteHandler() {
	mx.handler = http.HandlerFunc(mx.routeHTTP)
}
"""
CHI_TREE = """package chy

import "net/http"

type node struct {
	children []*node
	handler  http.Handler
}

// InsertRoute adds a route.
func (n *node) InsertRoute(method, pattern string, h http.Handler) {
	n.addChild(pattern)
	n.setEndpoint(h)
}

func (n *node) addChild(pattern string) {
	n.children = append(n.children, &node{})
	n.grow(pattern)
}

func (n *node) grow(pattern string) {
	n.setEndpoint(nil)
}

func (n *node) setEndpoint(h http.Handler) {
	n.handler = h
}

// FindRoute finds the handler of a request.
func (n *node) FindRoute(method, path string) http.Handler {
	return n.findRoute(path)
}

func (n *node) findRoute(path string) http.Handler {
	for _, c := range n.children {
		return c.handler
	}
	return n.handler
}
"""


def test_a_go_handler_given_to_listen_and_serve_is_served_through_serve_http_and_its_field(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": CHI_README, "go.mod": "module github.com/x/chy\n",
                                      "mux.go": CHI_MUX, "tree.go": CHI_TREE})
    p = load(root)
    # not the set-up (`Get -> handle -> InsertRoute -> …`) but the serving: `http.ListenAndServe(":3000", r)`
    # serves the Mux through `ServeHTTP`, whose `mx.handler` is set from `mx.routeHTTP`
    assert _path(p)[:3] == ["Mux.ServeHTTP", "Mux.routeHTTP", "node.FindRoute"], _path(p)
    walk = _walk(p)
    assert "1. `Mux.ServeHTTP` runs `Mux.routeHTTP` through `mx.handler.ServeHTTP` (line 21): the field is set " \
           "from `routeHTTP` (`mux.go`, line 39)" in walk
    assert "(source:mux.go#L39-L39)" in walk  # the line that fills the field is cited
    # who calls `ServeHTTP`: the server the example starts, named in words (it is not this source's code)
    assert "The example hands the `Mux` that `NewRouter` returns to the server it starts (http.ListenAndServe" in walk
    _steps_hold(p, walk)


HTTPY_README = """# httpy

```pycon
>>> import httpy
>>> r = httpy.get('https://www.example.org/')
>>> r.status_code
200
```
"""
HTTPY_API = '''from ._client import Client


def get(url):
    """Sends a GET request."""
    return request("GET", url)


def request(method, url):
    """Sends a request with a client of its own."""
    with Client(
        timeout=5,
    ) as client:
        return client.request(method, url)
'''
HTTPY_CLIENT = '''class Client:
    """An HTTP client."""

    def __init__(self, timeout=None):
        self.timeout = timeout

    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass

    def request(self, method, url):
        """Builds a request and sends it."""
        req = (method, url)
        return self.send(req)

    def send(self, req):
        """Sends the request through the transport."""
        return self._send_single(req)

    def _send_single(self, req):
        return self.transport(req)

    def transport(self, req):
        return req
'''


def test_a_local_made_from_a_project_type_resolves_its_method_calls(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": HTTPY_README, "pyproject.toml": '[project]\nname = "httpy"\n',
                                      "httpy/__init__.py": "from ._api import get, request\n",
                                      "httpy/_api.py": HTTPY_API, "httpy/_client.py": HTTPY_CLIENT})
    p = load(root / "httpy")
    assert _path(p)[:4] == ["get", "request", "Client.request", "Client.send"], _path(p)
    walk = _walk(p)
    assert "`request` calls `Client.request`" in walk  # the line says `client.request(`: a call it makes
    _steps_hold(p, walk)


AXIOSY_README = """# axiosy

## Installing

```js
import axiosy from 'axiosy';
console.log(axiosy.isCancel('something'));
```

## Example

```js
import axiosy from 'axiosy';

axiosy.request({url: '/user?ID=12345'}).then(function (response) {
  console.log(response);
});
```
"""
AXIOSY_INDEX = """import Axiosy from './core/Axiosy.js';

function isCancel(value) {
  return !!(value && value.__CANCEL__);
}

const axiosy = new Axiosy();
axiosy.isCancel = isCancel;
export default axiosy;
"""
AXIOSY_CORE = """import dispatchRequest from './dispatchRequest.js';

class Axiosy {
  constructor() {
    this.defaults = {};
  }

  request(config) {
    return this._request(config);
  }

  _request(config) {
    const merged = this.merge(config);
    return dispatchRequest.call(this, merged);
  }

  merge(config) {
    return Object.assign({}, this.defaults, config);
  }
}

export default Axiosy;
"""
AXIOSY_DISPATCH = """import adapters from '../adapters/adapters.js';

export default function dispatchRequest(config) {
  const adapter = adapters.getAdapter(config.adapter);

  return adapter(config).then(function onAdapterResolution(response) {
    return transformResponse(response);
  });
}

function transformResponse(response) {
  return normalize(response);
}

function normalize(response) {
  return response;
}
"""


def test_f_call_is_a_call_of_f_and_a_function_got_at_run_time_ends_the_path(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": AXIOSY_README, "package.json": '{"name": "axiosy"}',
                                      "lib/axiosy.js": AXIOSY_INDEX, "lib/core/Axiosy.js": AXIOSY_CORE,
                                      "lib/core/dispatchRequest.js": AXIOSY_DISPATCH,
                                      "lib/adapters/adapters.js": "export default {getAdapter: (a) => a};\n"})
    p = load(root / "lib")
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and "axiosy.request(" in ex.code  # the Example heading's, not the install note's
    assert _path(p) == ["Axiosy.request", "Axiosy._request", "dispatchRequest"], _path(p)
    dispatch = central_path(p, entry_points(p))[-1]
    assert handed_out(p, dispatch) == ("adapter", 6)  # `return adapter(config)…`: the docs take over
    walk = _walk(p)
    assert "`Axiosy._request` runs `dispatchRequest` through `dispatchRequest.call`" in walk
    _steps_hold(p, walk)


KOA_README = """# koay

```js
const Koay = require('koay');
const app = new Koay();

app.use(ctx => {
  ctx.body = 'Hello';
});

app.listen(3000);
```
"""
KOA_APP = """const http = require('http');

module.exports = class Application {
  constructor() {
    this.middleware = [];
  }

  use(fn) {
    this.middleware.push(fn);
    return this;
  }

  listen(...args) {
    const server = http.createServer(this.callback());
    return server.listen(...args);
  }

  callback() {
    const fn = compose(this.middleware);
    const handleRequest = (req, res) => {
      const ctx = this.createContext(req, res);
      return this.handleRequest(ctx, fn);
    };
    return handleRequest;
  }

  createContext(req, res) {
    return {req, res};
  }

  handleRequest(ctx, fnMiddleware) {
    return fnMiddleware(ctx).then(() => respond(ctx));
  }
};

function compose(middleware) {
  return (ctx) => Promise.resolve(middleware.length);
}

function respond(ctx) {
  ctx.res.end(ctx.body);
}
"""


def test_the_handler_a_method_returns_is_what_the_server_runs(tmp_path: Path):
    root = _write(tmp_path / "repo", {"Readme.md": KOA_README, "package.json": '{"name": "koay"}',
                                      "lib/application.js": KOA_APP})
    p = load(root / "lib")
    # `callback` returns the handler the server runs; its calls (`this.handleRequest`) come after
    # (the arrow it returns, `const handleRequest = (req, res) => {…}`, is a step of its own: local_defs)
    assert _path(p)[:4] == ["Application.listen", "Application.callback", "Application.callback.handleRequest",
                            "Application.handleRequest"], _path(p)
    _steps_hold(p, _walk(p))


CLI_GUIDE = """# Getting started

```go
package main

import (
	"context"
	"os"

	"github.com/x/cly"
)

func main() {
	(&cly.Command{}).Run(context.Background(), os.Args)
}
```
"""
CLI_OLD_GUIDE = CLI_GUIDE.replace("(&cly.Command{}).Run(context.Background(), os.Args)",
                                  "app := cly.NewApp()\n\tapp.Setup(os.Args)")
CLI_COMMAND = """package cly

import "context"

// Command is a command of the program.
type Command struct {
	Action func(context.Context, *Command) error
	flags  []string
}

// Run runs the command.
func (cmd *Command) Run(ctx context.Context, args []string) error {
	return cmd.run(ctx, args)
}

func (cmd *Command) run(ctx context.Context, args []string) error {
	tracef("running %v", args)
	cmd.parseFlags(args)
	tracef("parsed %v", args)
	return cmd.Action(ctx, cmd)
}

func (cmd *Command) parseFlags(args []string) {
	cmd.flags = args
}

// Setup prepares an app (an old API).
func (cmd *Command) Setup(args []string) {
	cmd.flags = args
}

func tracef(format string, a ...any) {
	debugPrint(format, a)
}

func debugPrint(format string, a []any) {
	_ = format
}
"""


def test_a_readme_without_code_sends_to_the_newest_guide_and_ends_at_the_users_action(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": "# cly\n\nA simple package for command line apps.\n",
                                      "docs/v1/getting-started.md": CLI_OLD_GUIDE,
                                      "docs/v3/getting-started.md": CLI_GUIDE,
                                      "go.mod": "module github.com/x/cly\n", "command.go": CLI_COMMAND})
    p = load(root)
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.rel == "docs/v3/getting-started.md"
    # `Run` hands to `run`, which ends in the user's `cmd.Action(…)` (not the trace print `tracef`)
    assert _path(p) == ["Command.Run", "Command.run"], _path(p)
    assert "`Command.run` goes on with `cmd.Action(…)`" in _walk(p)


def test_a_trace_print_is_no_step_and_no_hand_off(tmp_path: Path):
    from orchestrator.authoring.handoff import handed_to

    root = _write(tmp_path / "repo", {"README.md": "# cly\n", "docs/v3/getting-started.md": CLI_GUIDE,
                                      "go.mod": "module github.com/x/cly\n", "command.go": CLI_COMMAND})
    p = load(root)
    run = next(s for s in p.symbols() if s.name == "Command.run")
    parse = next(s for s in p.symbols() if s.name == "Command.parseFlags")
    # `tracef("parsed …")` is the last call the map resolves in `run`: the work is handed to `parseFlags`
    assert handed_to(p, run) == (parse.rel, parse.d.start_line)


AXUM_README = """# axumy

```rust
use axumy::{routing::get, Router};

#[tokio::main]
async fn main() {
    let app = Router::new().route("/", get(root));
    let listener = tokio::net::TcpListener::bind("0.0.0.0:3000").await.unwrap();
    axumy::serve(listener, app).await;
}
```
"""
AXUM_LIB = """pub mod routing;
pub mod serve;

pub use routing::Router;
pub use serve::serve;
"""
AXUM_ROUTING = """use std::future::Future;

pub struct Router {
    routes: Vec<String>,
}

impl Router {
    pub fn new() -> Self {
        Router { routes: Vec::new() }
    }

    pub fn route(mut self, path: &str, h: MethodRouter) -> Self {
        self.routes.push(path.to_owned());
        self.fallback(h)
    }

    pub fn fallback(self, h: MethodRouter) -> Self {
        MethodRouter::merge(h);
        self
    }

    fn call_with_state(&self, req: Request) -> Response {
        Response::from(req)
    }
}

impl Service<Request> for Router {
    fn call(&mut self, req: Request) -> Response {
        self.call_with_state(req)
    }
}

pub struct MethodRouter;

impl MethodRouter {
    pub fn merge(h: MethodRouter) -> MethodRouter {
        MethodRouter::layer(h)
    }

    fn layer(h: MethodRouter) -> MethodRouter {
        h
    }
}

pub fn get(h: MethodRouter) -> MethodRouter {
    MethodRouter::merge(h)
}
"""
AXUM_SERVE = """pub struct Serve<L, M> {
    listener: L,
    make_service: M,
}

pub fn serve<L, M>(listener: L, make_service: M) -> Serve<L, M> {
    Serve { listener, make_service }
}

impl<L, M> Serve<L, M> {
    async fn run(self) {
        let Self { listener, mut make_service } = self;
        loop {
            let io = listener.accept().await;
            handle_connection(&mut make_service, io).await;
        }
    }
}

impl<L, M> IntoFuture for Serve<L, M> {
    type Output = ();

    fn into_future(self) -> Self::IntoFuture {
        ServeFuture(Box::pin(async move { self.run().await }))
    }
}

async fn handle_connection<M>(make_service: &mut M, io: Io) {
    let service = make_service
        .call(io)
        .await;
    service.finish();
}
"""


def test_a_rust_server_is_followed_through_into_future_to_the_routers_service_call(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": AXUM_README, "Cargo.toml": '[package]\nname = "axumy"\n',
                                      "src/lib.rs": AXUM_LIB, "src/routing.rs": AXUM_ROUTING, "src/serve.rs": AXUM_SERVE})
    p = load(root / "src")
    # `axumy::serve(listener, app).await`: the serve future runs the server loop, which calls the Router
    # it was handed for each request (not the set-up `Router::route -> fallback -> MethodRouter::merge …`)
    assert _path(p) == ["serve", "Serve::into_future", "Serve::run", "handle_connection", "Router::call",
                        "Router::call_with_state"], _path(p)
    walk = _walk(p)
    assert "1. `serve` runs `Serve::into_future` through `IntoFuture` (line 6)" in walk
    assert "4. `handle_connection` runs `Router::call` through `make_service.call` (line 30)" in walk
    _steps_hold(p, walk)


KY_README = """# kyy

```js
import kyy from 'kyy';

const json = await kyy.post('https://example.com', {json: {foo: true}}).json();
```
"""
KY_INDEX = """import {Kyy} from './core/Kyy.js';

const createInstance = (defaults) => {
  const kyy = (input, options) => Kyy.create(input, options);
  for (const method of ['get', 'post']) {
    kyy[method] = (input, options) => Kyy.create(input, {...options, method});
  }
  return kyy;
};

const kyy = createInstance();

export default kyy;
"""
KY_CORE = """export class Kyy {
  static create(input, options) {
    const kyy = new Kyy(input, options);
    const result = kyy.#retry(input);
    return result;
  }

  constructor(input, options) {
    this.input = input;
  }

  #retry(input) {
    return this.#fetch(input);
  }

  #fetch(input) {
    return fetch(input);
  }
}
"""


def test_a_constant_made_by_a_function_starts_there_and_a_local_reaches_private_methods(tmp_path: Path):
    root = _write(tmp_path / "repo", {"readme.md": KY_README, "package.json": '{"name": "kyy"}',
                                      "source/index.ts": KY_INDEX, "source/core/Kyy.ts": KY_CORE})
    p = load(root / "source")
    # `kyy.post(…)` is built at run time by `createInstance`; `new Kyy(…)` makes `kyy.#retry(` `Kyy.#retry`
    assert _path(p) == ["createInstance", "Kyy.create", "Kyy.#retry", "Kyy.#fetch"], _path(p)
    _steps_hold(p, _walk(p))


POET_README = """# poet

```java
TypeSpec hello = TypeSpec.classBuilder("Hello").build();
JavaFile javaFile = JavaFile.builder("com.example", hello).build();
javaFile.writeTo(System.out);
```
"""
POET_TYPESPEC = """package poet;

public final class TypeSpec {
  public final String name;

  private TypeSpec(String name) {
    this.name = name;
  }

  public static TypeSpec classBuilder(String name) {
    return new TypeSpec(name);
  }

  public TypeSpec build() {
    validate();
    return this;
  }

  private void validate() {
    checkName(name);
  }

  private void checkName(String n) {
    checkLength(n);
  }

  private void checkLength(String n) {
    checkChars(n);
  }

  private void checkChars(String n) {
    n.chars();
  }

  public String toString() {
    return name;
  }

  void emit(CodeWriter codeWriter) {
    codeWriter.emit(name);
  }
}
"""
POET_FILE = """package poet;

public final class JavaFile {
  public final TypeSpec typeSpec;

  private JavaFile(TypeSpec typeSpec) {
    this.typeSpec = typeSpec;
  }

  public static JavaFile builder(String packageName, TypeSpec typeSpec) {
    return new JavaFile(typeSpec);
  }

  public JavaFile build() {
    return this;
  }

  public void writeTo(Appendable out) {
    CodeWriter codeWriter = new CodeWriter(out);
    emit(codeWriter);
  }

  private void emit(CodeWriter codeWriter) {
    codeWriter.pushPackage();
    typeSpec.emit(codeWriter);
  }
}
"""
POET_WRITER = """package poet;

public final class CodeWriter {
  private final Appendable out;

  CodeWriter(Appendable out) {
    this.out = out;
  }

  public void pushPackage() {
    emit("package");
  }

  public void emit(String s) {
    emitAndIndent(s);
  }

  public void emitAndIndent(String s) {
    out.append(s);
  }
}
"""


def test_the_example_ends_with_the_call_that_runs_what_it_built_and_a_field_call_resolves(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": POET_README, "pom.xml": "<project></project>\n",
                                      "src/main/java/poet/TypeSpec.java": POET_TYPESPEC,
                                      "src/main/java/poet/JavaFile.java": POET_FILE,
                                      "src/main/java/poet/CodeWriter.java": POET_WRITER})
    p = load(root / "src/main/java")
    # the example builds a TypeSpec and a JavaFile and ends with `javaFile.writeTo(System.out)`; in `emit`,
    # `typeSpec.emit(codeWriter)` goes through the field `typeSpec`, a TypeSpec
    path = _path(p)
    assert path[:4] == ["JavaFile.writeTo", "JavaFile.emit", "TypeSpec.emit", "CodeWriter.emit"], path
    _steps_hold(p, _walk(p))


COBRA_README = """# cobry

```go
cmd := &cobry.Command{Use: "hugo"}
cmd.Execute()
```
"""
COBRA_COMMAND = """package cobry

import "fmt"

// Command is a command.
type Command struct {
	Use      string
	commands []*Command
	args     []string
}

// Execute runs the command.
func (c *Command) Execute() error {
	_, err := c.ExecuteC()
	return err
}

// ExecuteC finds the subcommand and executes it.
func (c *Command) ExecuteC() (cmd *Command, err error) {
	var flags []string
	cmd, flags, err = c.Find(c.args)
	if err != nil {
		return c, err
	}
	err = cmd.execute(flags)
	if err != nil {
		c.Println(cmd.UsageString())
	}
	return cmd, err
}

// Find finds the subcommand.
func (c *Command) Find(args []string) (*Command, []string, error) {
	return c.findNext(args), args, nil
}

func (c *Command) findNext(args []string) *Command {
	for _, sub := range c.commands {
		return sub
	}
	return c
}

func (c *Command) execute(a []string) error {
	c.preRun(a)
	return c.run(a)
}

func (c *Command) preRun(a []string) {
	c.args = a
}

func (c *Command) run(a []string) error {
	return c.postRun(a)
}

func (c *Command) postRun(a []string) error {
	c.args = nil
	return nil
}

// UsageString is the usage of the command.
func (c *Command) UsageString() string {
	return c.usageTemplate()
}

func (c *Command) usageTemplate() string {
	return c.longUsage()
}

func (c *Command) longUsage() string {
	return c.usageLine()
}

func (c *Command) usageLine() string {
	return c.useLine()
}

func (c *Command) useLine() string {
	return c.Use
}

// Println prints a line.
func (c *Command) Println(s string) {
	fmt.Println(s)
}
"""


def test_a_go_local_from_a_multi_value_method_is_followed_on_the_main_line_not_the_error_branch(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": COBRA_README, "go.mod": "module github.com/x/cobry\n",
                                      "command.go": COBRA_COMMAND})
    p = load(root)
    # `cmd, flags, err = c.Find(…)` makes `cmd` a Command: `cmd.execute(flags)` is the work handed on; the
    # deeper `cmd.UsageString()` is in the error's branch
    assert _path(p)[:4] == ["Command.Execute", "Command.ExecuteC", "Command.execute", "Command.run"], _path(p)
    _steps_hold(p, _walk(p))


GSON_GSON = """package gsn;

public final class Gson {
  public void toJson(Object src, JsonWriter writer) {
    TypeAdapter adapter = getAdapter(src);
    boolean old = writer.isLenient();
    writer.setLenient(true);
    try {
      adapter.write(writer, src);
    } finally {
      writer.setLenient(old);
    }
  }

  TypeAdapter getAdapter(Object src) {
    return new TypeAdapter();
  }
}
"""
GSON_WRITER = """package gsn;

public final class JsonWriter {
  private boolean lenient;

  public boolean isLenient() {
    return lenient;
  }

  public void setLenient(boolean lenient) {
    this.lenient = lenient;
  }
}
"""
GSON_ADAPTER = """package gsn;

public class TypeAdapter {
  public void write(JsonWriter out, Object value) {
    out.setLenient(false);
  }
}
"""


def test_the_hand_off_is_the_work_not_a_finally_that_restores_state(tmp_path: Path):
    from orchestrator.authoring.handoff import handed_to

    root = _write(tmp_path / "repo", {"gsn/Gson.java": GSON_GSON, "gsn/JsonWriter.java": GSON_WRITER,
                                      "gsn/TypeAdapter.java": GSON_ADAPTER})
    p = load(root)
    to_json = next(s for s in p.symbols() if s.name == "Gson.toJson")
    write = next(s for s in p.symbols() if s.name == "TypeAdapter.write")
    assert handed_to(p, to_json) == (write.rel, write.d.start_line)  # not `setLenient`, called last in `finally`


SCHEMA_README = """# shapely

```python
from shapely import Schema, fields

class AlbumSchema(Schema):
    title = fields.Str()

schema = AlbumSchema()
result = schema.dump(album)
```

`schema.dumps(album)` gives the same as a JSON string.
"""
SCHEMA_PY = '''from .fields import Field


class Schema:
    def __init__(self):
        self._hooks = {}
        self.dump_fields = {}  # type: dict[str, Field]

    def _invoke_processors(self, tag, data):
        for hook in self._hooks.get(tag, []):
            data = hook(data)
        return data

    def _invoke_dump_processors(self, tag, data):
        data = self._invoke_processors(tag, data)
        return data

    def _serialize(self, obj):
        ret = {}
        for attr_name, field_obj in self.dump_fields.items():
            ret[attr_name] = field_obj.serialize(attr_name, obj)
        return ret

    def dump(self, obj):
        if self._hooks.get("pre_dump"):
            obj = self._invoke_dump_processors("pre_dump", obj)
        result = self._serialize(obj)
        if self._hooks.get("post_dump"):
            result = self._invoke_dump_processors("post_dump", result)
        return result

    def dumps(self, obj):
        serialized = self.dump(obj)
        return str(serialized)
'''
FIELDS_PY = '''class Field:
    def _serialize(self, value, attr, obj):
        return value

    def get_value(self, obj, attr):
        return getattr(obj, attr, None)

    def serialize(self, attr, obj):
        value = self.get_value(obj, attr)
        return self._serialize(value, attr, obj)


class Str(Field):
    pass
'''


def test_a_wrapper_start_an_unconditional_hand_off_and_a_containers_element_type(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": SCHEMA_README, "shapely/__init__.py": "from .schema import Schema\n",
                                      "shapely/schema.py": SCHEMA_PY, "shapely/fields.py": FIELDS_PY})
    p = load(root)
    # `dumps` only wraps the `dump` the example calls: the path starts at `dump`; `dump` hands the work
    # to `_serialize` (the post-dump processors run only under `if`), and `field_obj` is a `Field`: the
    # elements of `dump_fields`, declared `dict[str, Field]`
    assert _path(p) == ["Schema.dump", "Schema._serialize", "Field.serialize", "Field._serialize"]
    _steps_hold(p, _walk(p))


def test_conditional_depths_by_braces_indentation_and_ruby_end():
    from orchestrator.authoring.sideroads import cond_depths

    py = "x = 1\nif a:\n    f()\nelse:\n    g()\nh()\nfor y in z:\n    k()\n"
    assert cond_depths(py, "python") == [0, 0, 1, 0, 1, 0, 0, 0]
    go = "if root := r.trees[m]; root != nil {\n\tif v := root.getValue(p); v != nil {\n\t\tv()\n\t}\n}\nfor {\n\tr.do()\n}\n"
    assert cond_depths(go, "go") == [0, 1, 2, 2, 1, 0, 0, 0]  # (a closing brace is still inside its block)
    rb = "if x\n  a(1)\nelsif y\n  b(2)\nend\nd(4)\n"
    assert cond_depths(rb, "ruby") == [0, 1, 1, 1, 0, 0]
    # a condition over several lines opens its block at the `{` that ends it (cac's version check)
    ts = "if (\n  this.options.version &&\n  this.showVersionOnExit\n) {\n  this.outputVersion()\n}\nthis.run()\n"
    assert cond_depths(ts, "typescript") == [0, 0, 0, 0, 1, 1, 0]


ROUTER_GO = """package rt

type node struct {
	path string
}

func (n *node) getValue(path string) func() {
	if n.path == path {
		return n.walk(path)
	}
	return nil
}

func (n *node) walk(path string) func() {
	return nil
}

type Router struct {
	trees map[string]*node
}

func (r *Router) ServeHTTP(method, path string) {
	if root := r.trees[method]; root != nil {
		if handle := root.getValue(path); handle != nil {
			handle()
			return
		}
	}
}
"""


def test_a_local_taken_from_a_go_map_field_is_of_the_maps_value_type(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    p = load(_write(tmp_path / "repo", {"go.mod": "module example.com/rt\n", "router.go": ROUTER_GO}))
    serve = next(s for s in p.symbols() if s.dotted == "Router.ServeHTTP")
    assert [c.dotted for c in all_calls(p, serve)] == ["node.getValue"]


CSV_README = """# csvy

```rust
let mut rdr = csvy::Reader::from_path("a.csv")?;
for result in rdr.records() {
    let record = result?;
    println!("{:?}", record);
}
```
"""
CSV_LIB = """pub struct Record { fields: Vec<u8> }

impl Record {
    pub fn new() -> Record {
        Record::with_capacity(0)
    }

    pub fn with_capacity(n: usize) -> Record {
        Record { fields: Vec::with_capacity(n) }
    }

    pub fn push(&mut self, b: u8) {
        self.fields.push(b);
    }
}

pub struct Reader { pos: usize }

impl Reader {
    pub fn from_path(path: &str) -> Result<Reader, String> {
        Ok(Reader { pos: 0 })
    }

    pub fn records(&mut self) -> RecordsIter<'_> {
        RecordsIter::new(self)
    }

    pub fn read_record(&mut self, record: &mut Record) -> bool {
        self.read_byte(record)
    }

    fn read_byte(&mut self, record: &mut Record) -> bool {
        record.push(1);
        true
    }
}

pub struct RecordsIter<'r> { rdr: &'r mut Reader, rec: Record }

impl<'r> RecordsIter<'r> {
    fn new(rdr: &'r mut Reader) -> RecordsIter<'r> {
        RecordsIter { rdr: rdr, rec: Record::new() }
    }
}

impl<'r> Iterator for RecordsIter<'r> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        let mut rec = Record::new();
        if self.rdr.read_record(&mut rec) { Some(rec) } else { None }
    }
}
"""


def test_a_loop_over_a_returned_iterator_runs_its_next_not_its_constructor(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": CSV_README, "Cargo.toml": '[package]\nname = "csvy"\n',
                                        "src/lib.rs": CSV_LIB}))
    # `records` returns a `RecordsIter`: the example's loop runs its `next`; `RecordsIter::new` →
    # `Record::new` → `Record::with_capacity` is deeper, but only makes values
    path = _path(p)
    assert path[:3] == ["Reader::records", "RecordsIter::next", "Reader::read_record"], path
    walk = _walk(p)
    assert "looping over one runs its `next`" in walk
    _steps_hold(p, walk)


VALIDATOR_README = """# Checky

```c#
public class CustomerValidator : AbstractValidator<Customer> {
  public CustomerValidator() {
    RuleFor(x => x.Surname).NotEmpty().WithMessage("Please specify a surname");
    RuleFor(x => x.Forename).NotEmpty().WithMessage("Please specify a first name");
  }
}

var customer = new Customer();
var validator = new CustomerValidator();

// Execute the validator.
ValidationResult results = validator.Validate(customer);
bool success = results.IsValid;
```
"""
VALIDATOR_CS = """namespace Checky;

public class ValidationResult {
	public bool IsValid { get; set; }
}

public abstract partial class AbstractValidator<T> {
	public RuleBuilder RuleFor(string name) {
		return new RuleBuilder(name);
	}

	public ValidationResult Validate(T instance) {
		return ValidateInternal(instance);
	}

	[CreateSyncVersion]
	private async ValueTask<ValidationResult> ValidateInternalAsync(T instance) {
		var result = new ValidationResult();
		RunRules(instance, result);
		return result;
	}

	private void RunRules(T instance, ValidationResult result) {
		result.IsValid = instance != null;
	}
}

public class RuleBuilder {
	public RuleBuilder(string name) { }

	public RuleBuilder NotEmpty() {
		return this;
	}

	public RuleBuilder WithMessage(string message) {
		Messages.Check(message);
		return this;
	}
}

public static class Messages {
	public static void Check(string message) {
		Messages.Trim(message);
	}

	public static string Trim(string message) {
		return message.Trim();
	}
}
"""


def test_a_users_subclass_runs_the_base_method_and_a_generated_sync_twin_is_followed(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": VALIDATOR_README, "src/AbstractValidator.cs": VALIDATOR_CS}))
    # the example builds rules in its own subclass, then runs them: `validator.Validate(customer)` is
    # `AbstractValidator.Validate`; `ValidateInternal` is written at build time from `ValidateInternalAsync`
    assert _path(p) == ["AbstractValidator.Validate", "AbstractValidator.ValidateInternalAsync", "AbstractValidator.RunRules"]
    walk = _walk(p)
    assert "marked `[CreateSyncVersion]`" in walk
    _steps_hold(p, walk)


def test_a_common_method_name_the_readme_calls_on_the_projects_own_module_is_an_entry_point(tmp_path: Path):
    # `.new(` and `.get(` are every object's, but `Faradayy.new(` names the project's own module function
    lib = "module Faradayy\n  class << self\n    def new(url)\n      Connection.new(url)\n    end\n  end\n\n" \
          "  class Connection\n    def initialize(url)\n      @url = url\n    end\n  end\nend\n"
    readme = "# Faradayy\n\n```ruby\nconn = Faradayy.new('http://example.org')\n```\n"
    p = load(_write(tmp_path / "repo", {"README.md": readme, "faradayy.gemspec": "Gem::Specification.new do |s|\n  s.name = 'faradayy'\nend\n",
                                        "lib/faradayy.rb": lib}))
    from orchestrator.authoring.entry import readme_weight

    assert readme_weight(p, next(s for s in p.symbols() if s.dotted == "Faradayy.new")) > 0


HTTPROUTER_README = """# rt

```go
func main() {
    router := rt.New()
    router.GET("/", Index)
    log.Fatal(http.ListenAndServe(":8080", router))
}
```
"""
HTTPROUTER_GO = """package rt

import "net/http"

type node struct {
	path string
}

func (n *node) getValue(path string) http.HandlerFunc {
	for len(path) > 0 {
		path = path[1:]
	}
	return nil
}

func (n *node) findCaseInsensitivePath(path string) (string, bool) {
	return n.findRec(path, lower(path))
}

func (n *node) findRec(path, lo string) (string, bool) {
	return shift(lo), true
}

func shift(s string) string {
	return lower(s)
}

func lower(s string) string {
	return s
}

type Router struct {
	trees             map[string]*node
	RedirectFixedPath bool
}

func New() *Router {
	return &Router{}
}

func (n *node) addRoute(path string, h http.HandlerFunc) {
	n.insertChild(path, h)
}

func (n *node) insertChild(path string, h http.HandlerFunc) {
	n.path = path
}

func (r *Router) Handle(method, path string, h http.HandlerFunc) {
	root := r.trees[method]
	root.addRoute(path, h)
}

func (r *Router) GET(path string, h http.HandlerFunc) {
	r.Handle(http.MethodGet, path, h)
}

func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	path := req.URL.Path
	if root := r.trees[req.Method]; root != nil {
		if handle := root.getValue(path); handle != nil {
			handle(w, req)
			return
		}
		if r.RedirectFixedPath {
			fixed, found := root.findCaseInsensitivePath(path)
			if found {
				http.Redirect(w, req, fixed, 301)
			}
		}
	}
}
"""


def test_a_branch_under_the_objects_own_setting_is_an_option_not_the_way(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": HTTPROUTER_README, "go.mod": "module example.com/rt\n",
                                        "router.go": HTTPROUTER_GO}))
    # the fixed-path redirect runs only `if r.RedirectFixedPath`: deeper, but an option; the request is
    # served through `getValue`, the value of the `trees` map
    assert _path(p) == ["Router.ServeHTTP", "node.getValue"]
    _steps_hold(p, _walk(p))


def test_what_the_example_sets_up_on_the_value_it_serves_is_traced_first(tmp_path: Path):
    from orchestrator.authoring.example_setup import setup_path
    from orchestrator.authoring.story import overview_sections

    p = load(_write(tmp_path / "repo", {"README.md": HTTPROUTER_README, "go.mod": "module example.com/rt\n",
                                        "router.go": HTTPROUTER_GO}))
    entries = entry_points(p)
    # `router.GET(…)` is called on the value the server is handed: the set-up, before `ServeHTTP`
    setup = setup_path(p, entries, central_path(p, entries))
    assert [s.name for s in setup] == ["Router.GET", "Router.Handle", "node.addRoute", "node.insertChild"]
    chapters = [{"id": "ch01", "title": "rt", "sources": ["router.go"]}]
    text = "\n".join(overview_sections({"book": {"audience": "developers"}}, p, chapters, "en"))
    section = text.split("## Following one call", 1)[1].split("\n## ", 1)[0]
    assert section.index("`Router.GET` calls `Router.Handle`") < section.index("`Router.ServeHTTP` calls `node.getValue`")
    _steps_hold(p, section)


def test_a_setting_is_a_flag_tested_as_it_is_not_a_field_compared_or_passed():
    from orchestrator.authoring.sideroads import _option

    assert _option("\tif r.RedirectFixedPath {", ("r",))
    assert _option("\t} else if r.HandleMethodNotAllowed { // 405", ("r",))
    assert _option("\tif req.Method == http.MethodOptions && r.HandleOPTIONS {", ("r",))
    assert _option("        if not self.debug:", ("self",))
    assert not _option("\tif r.PanicHandler != nil {", ("r",))  # a handler it holds, run when set
    assert not _option("        if self.callback is not None:", ("self",))
    assert not _option("\tif h := root.getValue(path, r.getParams); h != nil {", ("r",))
    assert not _option("        if self._hooks[POST_DUMP]:", ("self",))
    assert not _option("    if (this._actionHandler) {", ("this",))  # a held function, run when given


def test_a_ruby_constant_is_looked_up_through_its_modules_and_new_runs_initialize(tmp_path: Path):
    files = {
        "README.md": "# Faradayy\n\n```ruby\nconn = Faradayy.new('http://example.org')\n```\n",
        "faradayy.gemspec": "Gem::Specification.new do |s|\n  s.name = 'faradayy'\nend\n",
        "lib/faradayy.rb": "module Faradayy\n  class << self\n    def new(url)\n      url = Utils.normalize(url)\n"
                           "      Connection.new(url)\n    end\n  end\nend\n",
        "lib/faradayy/utils.rb": "module Faradayy\n  module Utils\n    def self.normalize(url)\n      url.strip\n    end\n  end\nend\n",
        "lib/faradayy/connection.rb": "module Faradayy\n  class Connection\n    def initialize(url)\n"
                                      "      @url = url\n      build_stack(url)\n    end\n\n    def build_stack(url)\n"
                                      "      @stack = [url]\n      @stack.freeze\n      finish(url)\n    end\n\n"
                                      "    def finish(url)\n      url\n    end\n  end\nend\n",
    }
    p = load(_write(tmp_path / "repo", files))
    path = _path(p)
    # `Connection.new(` inside `module Faradayy` is `Faradayy::Connection`, and `new` runs `initialize`
    assert path[:2] == ["Faradayy::new", "Faradayy::Connection::initialize"], path
    _steps_hold(p, _walk(p))


def test_a_call_on_what_a_call_returns_is_the_returned_types_method(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    code = '''class Signer:
    def get_signature(self, value):
        return value

    def sign(self, value):
        return value + self.get_signature(value)


class Serializer:
    def make_signer(self, salt=None) -> "Signer":
        return Signer()

    def dumps(self, obj, salt=None):
        payload = str(obj)
        return self.make_signer(salt).sign(payload)
'''
    p = load(_write(tmp_path / "repo", {"dang/serializer.py": code}))
    dumps = next(s for s in p.symbols() if s.dotted == "Serializer.dumps")
    # `make_signer` declares it returns a `Signer`: what `.sign(` then calls is `Signer.sign`
    assert [c.dotted for c in all_calls(p, dumps)] == ["Serializer.make_signer", "Signer.sign"]


def test_a_router_registered_with_http_handle_is_served_not_its_own_handle(tmp_path: Path):
    readme = HTTPROUTER_README.replace('log.Fatal(http.ListenAndServe(":8080", router))', 'http.Handle("/", router)')
    p = load(_write(tmp_path / "repo", {"README.md": readme, "go.mod": "module example.com/rt\n", "router.go": HTTPROUTER_GO}))
    # `http.Handle` hands the router to Go's default server (not the router's own `Handle`, a set-up call)
    assert _path(p) == ["Router.ServeHTTP", "node.getValue"]


def test_an_abstract_method_runs_its_one_implementation_and_two_are_no_way(tmp_path: Path):
    from orchestrator.authoring.hops import hops

    files = {
        "src/main/java/retro/ServiceMethod.java": "package retro;\n\nabstract class ServiceMethod<T> {\n"
                                                   "  abstract T invoke(Object[] args);\n}\n",
        "src/main/java/retro/HttpServiceMethod.java": "package retro;\n\nabstract class HttpServiceMethod<R> extends ServiceMethod<R> {\n"
                                                       "  @Override\n  final R invoke(Object[] args) {\n    return adapt(args);\n  }\n\n"
                                                       "  protected abstract R adapt(Object[] args);\n}\n",
        "src/main/java/retro/CallAdapted.java": "package retro;\n\nfinal class CallAdapted<R> extends HttpServiceMethod<R> {\n"
                                                 "  @Override\n  protected R adapt(Object[] args) {\n    return null;\n  }\n}\n",
        "src/main/java/retro/Suspended.java": "package retro;\n\nfinal class Suspended<R> extends HttpServiceMethod<R> {\n"
                                               "  @Override\n  protected R adapt(Object[] args) {\n    return null;\n  }\n}\n",
    }
    p = load(_write(tmp_path / "repo", files))
    by = {s.dotted: s for s in p.symbols()}
    # `ServiceMethod.invoke` is declared only; `HttpServiceMethod.invoke` is the one that runs (its
    # subclasses override `adapt`, not `invoke`); `adapt` has two implementations: no way to pick
    assert [(h.callee.dotted, h.how, h.via) for h in hops(p, by["ServiceMethod.invoke"])] == \
        [("HttpServiceMethod.invoke", "implemented", "ServiceMethod")]
    assert hops(p, by["HttpServiceMethod.adapt"]) == []


def test_the_examples_last_call_on_what_it_built_may_span_lines_and_be_printed_after(tmp_path: Path):
    readme = ("# diffy\n\n```java\nDiffRowGenerator generator = DiffRowGenerator.create()\n        .showInlineDiffs(true)\n"
              "        .build();\nList<DiffRow> rows = generator.generateDiffRows(\n        Arrays.asList(\"a\"),\n"
              "        Arrays.asList(\"b\"));\nSystem.out.println(rows.get(0).getOldLine());\n```\n")
    gen = ("package diffy;\n\npublic final class DiffRowGenerator {\n"
           "  public static Builder create() {\n    return new Builder();\n  }\n\n"
           "  public List<DiffRow> generateDiffRows(List<String> original, List<String> revised) {\n"
           "    return generateDiffRows(original, DiffUtils.diff(original, revised));\n  }\n\n"
           "  public List<DiffRow> generateDiffRows(List<String> original, Patch patch) {\n"
           "    return buildRows(original, patch);\n  }\n\n"
           "  private List<DiffRow> buildRows(List<String> original, Patch patch) {\n    return null;\n  }\n\n"
           "  public static class Builder {\n    public Builder showInlineDiffs(boolean v) {\n      return this;\n    }\n\n"
           "    public DiffRowGenerator build() {\n      return new DiffRowGenerator();\n    }\n  }\n}\n")
    utils = ("package diffy;\n\npublic final class DiffUtils {\n  public static Patch diff(List<String> a, List<String> b) {\n"
             "    return Myers.compute(a, b);\n  }\n}\n")
    myers = ("package diffy;\n\nfinal class Myers {\n  static Patch compute(List<String> a, List<String> b) {\n"
             "    return Myers.build(a);\n  }\n\n  static Patch build(List<String> a) {\n    return null;\n  }\n}\n")
    root = "src/main/java/diffy/"
    p = load(_write(tmp_path / "repo", {"README.md": readme, root + "DiffRowGenerator.java": gen, root + "DiffUtils.java": utils,
                                        root + "Myers.java": myers}))
    # the run is `generator.generateDiffRows(…)` over three lines, then a print of its result: both
    # overloads are where the user's call may begin, above the set-up calls
    from orchestrator.authoring.mainpath import SERVING_BONUS, _starts

    runs = [s.name for s, bonus in _starts(p, entry_points(p)) if bonus == SERVING_BONUS]
    assert runs == ["DiffRowGenerator.generateDiffRows"] * 2, runs
    assert _path(p)[0] == "DiffRowGenerator.generateDiffRows", _path(p)


def test_a_generic_call_is_a_call_and_a_diamond_is_not(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    cs = ("namespace Dap;\n\npublic static class SqlMapper {\n"
          "  public static IEnumerable<T> Query<T>(this IDbConnection cnn, string sql) {\n"
          "    var data = QueryImpl<T>(cnn, sql);\n    return data;\n  }\n\n"
          "  private static IEnumerable<T> QueryImpl<T>(IDbConnection cnn, string sql) {\n    return null;\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/SqlMapper.cs": cs}))
    query = next(s for s in p.symbols() if s.dotted == "SqlMapper.Query")
    assert [c.dotted for c in all_calls(p, query)] == ["SqlMapper.QueryImpl"]
    from orchestrator.authoring.callres import CALL_RE

    assert [m.group(1) for m in CALL_RE.finditer("List<String> xs = new ArrayList<>(n);")] == []


def test_an_exported_default_app_is_served_through_its_fetch(tmp_path: Path):
    readme = "# honey\n\n```ts\nimport { Honey } from 'honey'\n\nconst app = new Honey()\n\napp.get('/', (c) => c.text('hi'))\n\nexport default app\n```\n"
    base = ("export class Honey {\n  routes: string[] = []\n\n  get(path: string): Honey {\n    this.routes.push(path)\n    return this\n  }\n\n"
            "  /** The entry point of the app: a runtime calls it for each request. */\n"
            "  fetch = (request: Request): Response => {\n    return this.#dispatch(request)\n  }\n\n"
            "  #dispatch(request: Request): Response {\n    const res = this.match(request)\n    return res ?? this.notFoundHandler(request)\n  }\n\n"
            "  notFoundHandler(request: Request): Response {\n    return this.match(request)\n  }\n\n"
            "  match(request: Request): Response {\n    return new Response(request.url)\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "package.json": '{"name": "honey"}', "src/honey.ts": base}))
    # a class field holding a function is a method; `export default app` hands `app` to a runtime of
    # fetch handlers, which calls its `fetch` for each request
    # (the 404 handler is the miss, not the work: `#dispatch` goes on through `match`)
    assert _path(p) == ["Honey.fetch", "Honey.#dispatch", "Honey.match"], _path(p)
    walk = _walk(p)
    assert "exports the `Honey` it makes as its module's default" in walk
    _steps_hold(p, walk)


def test_a_go_value_handed_to_a_function_that_takes_an_http_handler_is_served(tmp_path: Path):
    readme = "# ech\n\n```go\nfunc main() {\n  e := ech.New()\n  e.Start(\":8080\")\n}\n```\n"
    code = ("package ech\n\nimport \"net/http\"\n\ntype StartConfig struct {\n\tAddress string\n}\n\n"
            "func (sc StartConfig) Start(h http.Handler) error {\n\treturn http.ListenAndServe(sc.Address, h)\n}\n\n"
            "type Echo struct {\n\tserveHTTPFunc func(http.ResponseWriter, *http.Request)\n}\n\n"
            "func New() *Echo {\n\te := &Echo{}\n\te.serveHTTPFunc = e.serveHTTP\n\treturn e\n}\n\n"
            "func (e *Echo) Start(address string) error {\n\tsc := StartConfig{Address: address}\n\treturn sc.Start(e)\n}\n\n"
            "func (e *Echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\te.serveHTTPFunc(w, r)\n}\n\n"
            "func (e *Echo) serveHTTP(w http.ResponseWriter, r *http.Request) {\n\te.route(r)\n}\n\n"
            "func (e *Echo) route(r *http.Request) {\n\tr.URL.Path = \"/\"\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "go.mod": "module example.com/ech\n", "echo.go": code}))
    # `sc.Start(e)` takes an `http.Handler`: the server it starts runs `e.ServeHTTP`, whose field holds `serveHTTP`
    assert _path(p)[:3] == ["Echo.Start", "Echo.ServeHTTP", "Echo.serveHTTP"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_method_called_on_an_element_of_a_container_field_resolves(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    cs = ("namespace Fv;\n\npublic interface IRule {\n  void Run(object ctx);\n}\n\n"
          "public class Validator {\n  internal List<IRule> Rules { get; } = new();\n\n"
          "  public void Validate(object ctx) {\n    for (int i = 0; i < Rules.Count; i++) {\n"
          "      Rules[i].Run(ctx);\n    }\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/Validator.cs": cs}))
    validate = next(s for s in p.symbols() if s.dotted == "Validator.Validate")
    # `Rules[i].Run(…)`: an element of `List<IRule> Rules`, named without `this.`
    assert [c.dotted for c in all_calls(p, validate)] == ["IRule.Run"]


def test_a_go_value_set_as_an_http_servers_handler_is_served(tmp_path: Path):
    readme = "# gn\n\n```go\nfunc main() {\n  r := gn.Default()\n  r.Run()\n}\n```\n"
    code = ("package gn\n\nimport \"net/http\"\n\ntype Engine struct {\n\tname string\n}\n\n"
            "func Default() *Engine {\n\treturn &Engine{}\n}\n\n"
            "func (engine *Engine) Handler() http.Handler {\n\treturn engine\n}\n\n"
            "func (engine *Engine) Run(addr string) error {\n\tserver := &http.Server{\n\t\tAddr:    addr,\n"
            "\t\tHandler: engine.Handler(),\n\t}\n\treturn server.ListenAndServe()\n}\n\n"
            "func (engine *Engine) ServeHTTP(w http.ResponseWriter, req *http.Request) {\n\tengine.handleHTTPRequest(req)\n}\n\n"
            "func (engine *Engine) handleHTTPRequest(req *http.Request) {\n\treq.URL.Path = \"/\"\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "go.mod": "module example.com/gn\n", "gin.go": code}))
    # the server a `&http.Server{Handler: engine.Handler()}` starts runs the engine's `ServeHTTP`
    assert _path(p)[:3] == ["Engine.Run", "Engine.ServeHTTP", "Engine.handleHTTPRequest"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_ruby_dsl_app_is_served_through_its_rack_call_and_bare_calls_are_followed(tmp_path: Path):
    readme = "# sin\n\n```ruby\nrequire 'sin'\n\nget '/' do\n  'Hello world!'\nend\n```\n"
    code = ("module Sin\n  class Base\n    def call(env)\n      dup.call!(env)\n    end\n\n"
            "    def call!(env)\n      @env = env\n      invoke { dispatch! }\n    end\n\n"
            "    def invoke(&block)\n      yield\n    end\n\n"
            "    def dispatch!\n      filter! :before\n      route!\n    end\n\n"
            "    def filter!(type)\n      type\n    end\n\n"
            "    def route!\n      route = @env['PATH_INFO']\n      process_route(route)\n    end\n\n"
            "    def process_route(route)\n      route.upcase\n    end\n\n"
            "    class << self\n      def get(path, &block)\n        route('GET', path, &block)\n      end\n\n"
            "      def route(verb, path, &block)\n        [verb, path]\n      end\n    end\n  end\nend\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "sin.gemspec": "Gem::Specification.new do |s|\n  s.name = 'sin'\nend\n",
                                        "lib/sin/base.rb": code}))
    # `get '/' do` sets up an app Rack runs through `call(env)`; `dispatch!`, `route!` are called without parentheses
    # (`route = …` in `route!` is a local, not the class's `route`)
    assert _path(p)[:5] == ["Sin::Base::call", "Sin::Base::call!", "Sin::Base::dispatch!", "Sin::Base::route!",
                            "Sin::Base::process_route"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_small_helper_called_last_is_no_hand_off_while_a_call_that_goes_on_is_made(tmp_path: Path):
    readme = "# hp\n\n```rust\nlet mut req = hp::Request::new();\nreq.parse(buf);\n```\n"
    code = ("pub struct Request {\n    pub n: usize,\n}\n\nimpl Request {\n    pub fn new() -> Request {\n        Request { n: 0 }\n    }\n\n"
            "    pub fn parse(&mut self, buf: &[u8]) -> usize {\n        let n = parse_method(buf);\n"
            "        let h = parse_headers(buf);\n        self.n = finish(n + h);\n        self.n\n    }\n}\n\n"
            "fn parse_method(buf: &[u8]) -> usize {\n    token(buf)\n}\n\nfn token(buf: &[u8]) -> usize {\n    token_char(buf)\n}\n\n"
            "fn token_char(buf: &[u8]) -> usize {\n    byte_class(buf)\n}\n\nfn byte_class(buf: &[u8]) -> usize {\n    buf.len()\n}\n\n"
            "fn parse_headers(buf: &[u8]) -> usize {\n    header_name(buf) + header_value(buf)\n}\n\n"
            "fn header_name(buf: &[u8]) -> usize {\n    token_char(buf)\n}\n\nfn header_value(buf: &[u8]) -> usize {\n    buf.len()\n}\n\n"
            "fn finish(n: usize) -> usize {\n    n\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "Cargo.toml": "[package]\nname = \"hp\"\n", "src/lib.rs": code}))
    # `finish(…)` is called last, but is a two-line leaf: the work is handed to `parse_headers`, however
    # deep `parse_method` goes
    assert _path(p)[:2] == ["Request::parse", "parse_headers"], _path(p)


def test_an_overload_handing_to_another_of_its_name_is_no_deeper(tmp_path: Path):
    from orchestrator.authoring.mainpath import path_value

    cs = ("namespace Cl;\n\npublic class Help {\n  public static string Build(int a) {\n    return Build(a, 1);\n  }\n\n"
          "  public static string Build(int a, int b) {\n    return Build(a, b, 2);\n  }\n\n"
          "  public static string Build(int a, int b, int c) {\n    return Render(a);\n  }\n\n"
          "  public static string Render(int a) {\n    return a.ToString();\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/Help.cs": cs}))
    syms = {(x.dotted, x.d.start_line): x for x in p.symbols()}
    chain = [syms[("Help.Build", 4)], syms[("Help.Build", 8)], syms[("Help.Build", 12)], syms[("Help.Render", 16)]]
    # three overloads of one name are one operation: two steps of depth, not four
    assert path_value(p, chain) - path_value(p, chain[2:]) < 0.5


def test_the_examples_last_call_is_found_on_a_value_a_call_returns_even_inside_a_print(tmp_path: Path):
    readme = ("# mj\n\n```rust\nuse mj::Environment;\n\nfn main() {\n    let mut env = Environment::new();\n"
              "    env.add_template(\"hello.txt\", \"Hello {{ name }}!\").unwrap();\n"
              "    let template = env.get_template(\"hello.txt\").unwrap();\n"
              "    println!(\"{}\", template.render(ctx).unwrap());\n}\n```\n")
    code = ("pub struct Environment {\n    n: usize,\n}\n\npub struct Template {\n    n: usize,\n}\n\n"
            "pub struct Error;\n\nimpl Environment {\n    pub fn new() -> Environment {\n        Environment { n: 0 }\n    }\n\n"
            "    pub fn add_template(&mut self, name: &str, source: &str) -> Result<(), Error> {\n"
            "        self.store(name, source)\n    }\n\n"
            "    fn store(&mut self, name: &str, source: &str) -> Result<(), Error> {\n        self.keep(name)\n    }\n\n"
            "    fn keep(&mut self, name: &str) -> Result<(), Error> {\n        Ok(())\n    }\n\n"
            "    pub fn get_template(&self, name: &str) -> Result<Template, Error> {\n        Ok(Template { n: 0 })\n    }\n}\n\n"
            "impl Template {\n    pub fn render(&self, ctx: usize) -> Result<String, Error> {\n        self._render(ctx)\n    }\n\n"
            "    fn _render(&self, ctx: usize) -> Result<String, Error> {\n        self._eval(ctx)\n    }\n\n"
            "    fn _eval(&self, ctx: usize) -> Result<String, Error> {\n        Ok(String::new())\n    }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "Cargo.toml": "[package]\nname = \"mj\"\n", "src/lib.rs": code}))
    # `template` holds what `env.get_template(…)` returns (`Result<Template, Error>`, unwrapped); the
    # example's last call, printed, is `Template::render`
    assert _path(p)[:3] == ["Template::render", "Template::_render", "Template::_eval"], _path(p)


def test_a_short_helper_on_its_own_line_after_the_deep_call_is_a_detail(tmp_path: Path):
    readme = "# tl\n\n```python\nimport tl\ntl.loads(text)\n```\n"
    code = ("class DecodeError(ValueError):\n    pass\n\n\n"
            "def loads(src):\n    out = {}\n    pos = 0\n    while pos < len(src):\n        char = src[pos]\n"
            "        if char.isalpha():\n            pos = key_value_rule(src, pos, out)\n"
            "        pos = skip_comment(src, pos)\n    return out\n\n\n"
            "def skip_comment(src, pos):\n    if src[pos] == '#':\n        return skip_until(src, pos)\n    return pos\n\n\n"
            "def skip_until(src, pos):\n    end = src.find('\\n', pos)\n    if end < 0:\n        raise DecodeError(pos)\n"
            "    return end\n\n\n"
            "def key_value_rule(src, pos, out):\n    pos, key, value = parse_key_value_pair(src, pos)\n    out[key] = value\n"
            "    return pos\n\n\n"
            "def parse_key_value_pair(src, pos):\n    key, pos = parse_key(src, pos)\n    value, pos = parse_value(src, pos)\n"
            "    return pos, key, value\n\n\n"
            "def parse_key(src, pos):\n    end = src.index('=', pos)\n    return src[pos:end].strip(), end + 1\n\n\n"
            "def parse_value(src, pos):\n    end = src.find('\\n', pos)\n    return src[pos:end].strip(), end\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "pyproject.toml": "[project]\nname = \"tl\"\n",
                                        "tl/__init__.py": "from .parser import loads\n", "tl/parser.py": code}))
    # the loop ends each line in `skip_comment`, which only reaches a short leaf that makes an error:
    # the line's work was handed to `key_value_rule`
    assert _path(p)[:3] == ["loads", "key_value_rule", "parse_key_value_pair"], _path(p)


def test_a_chains_last_link_is_the_hand_off_however_short_it_is(tmp_path: Path):
    readme = "# jp\n\n```python\nimport jp\njp.search('a.b', data)\n```\n"
    code = ("def search(expression, data):\n    return Parser().parse(expression).search(data)\n\n\n"
            "class Parser:\n    def parse(self, expression):\n        tokens = self.tokenize(expression)\n"
            "        return Parsed(self.build(tokens))\n\n    def tokenize(self, expression):\n        return self.split(expression)\n\n"
            "    def split(self, expression):\n        return expression.split('.')\n\n"
            "    def build(self, tokens):\n        return list(tokens)\n\n\n"
            "class Parsed:\n    def __init__(self, tree):\n        self.tree = tree\n\n"
            "    def search(self, data):\n        return Interpreter().visit(self.tree, data)\n\n\n"
            "class Interpreter:\n    def visit(self, tree, data):\n        for key in tree:\n            data = data[key]\n        return data\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "pyproject.toml": "[project]\nname = \"jp\"\n",
                                        "jp/__init__.py": "from .api import search\n", "jp/api.py": code}))
    assert _path(p)[:2] == ["search", "Parsed.search"], _path(p)


def test_a_ruby_module_method_reached_through_an_included_hook_and_a_block_wrapper(tmp_path: Path):
    readme = "# party\n\n```ruby\nresponse = Party.get('http://example.com')\n```\n"
    code = ("module Party\n  def self.included(base)\n    base.extend ClassMethods\n  end\n\n"
            "  module ClassMethods\n    def get(path, options = {})\n      perform_request :get, path, options\n    end\n\n"
            "    def perform_request(verb, path, options)\n      request = Request.new(verb, path, options)\n"
            "      with_retries { request.perform }\n    end\n\n"
            "    def with_retries\n      yield\n    end\n  end\n\n"
            "  class Basement\n    include Party\n  end\n\n"
            "  def self.get(*args)\n    Basement.get(*args)\n  end\n\n"
            "  class Request\n    def initialize(verb, path, options)\n      @verb = verb\n      @path = path\n    end\n\n"
            "    def perform\n      response = send_request\n      unless response.ok?\n        log_miss response\n"
            "      end\n      handle_response response\n    end\n\n"
            "    def send_request\n      Net::HTTP.get(@path)\n    end\n\n"
            "    def handle_response(response)\n      parse response.body\n    end\n\n"
            "    def parse(body)\n      body.strip\n    end\n\n"
            "    def log_miss(response)\n      warn_about response\n    end\n\n    def warn_about(response)\n      puts response\n    end\n  end\nend\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "party.gemspec": "Gem::Specification.new\n", "lib/party.rb": code}))
    # `Basement.get` is the `get` that `include Party` gave `Basement` through `base.extend ClassMethods`;
    # `with_retries { request.perform }` runs the block's call; `handle_response` is not under `unless`
    assert _path(p)[:5] == ["Party::get", "Party::ClassMethods::get", "Party::ClassMethods::perform_request",
                            "Party::Request::perform", "Party::Request::handle_response"], _path(p)
    walk = _walk(p)  # the step says where `Basement` has `get` from, and cites the include and the hook
    assert "(`Basement` has it from `Party::ClassMethods`: `include Party`, `lib/party.rb` line 22, mixes it in)" in walk, walk
    assert "source:lib/party.rb#L3-L3" in walk
    _steps_hold(p, walk)


def test_chapter_ones_own_entry_points_and_steps_link_to_no_chapter(tmp_path: Path):
    from orchestrator.authoring.story import overview_sections

    p = load(_write(tmp_path / "repo", {"README.md": HTTPROUTER_README, "go.mod": "module example.com/rt\n",
                                        "router.go": HTTPROUTER_GO}))
    chapters = [{"id": "ch01", "title": "rt at a glance", "sources": ["router.go"]}]
    text = "\n".join(overview_sections({"book": {"audience": "developers"}}, p, chapters, "en"))
    assert "](ch01.md)" not in text  # the reader is in chapter 1 already
    assert "| `Router.ServeHTTP` | method | `router.go` | this chapter |" in text or "| this chapter |" in text


def test_a_chapter_the_main_path_goes_through_is_titled_by_its_step(tmp_path: Path):
    from orchestrator.authoring.titles import path_titles

    readme = "# party\n\n```ruby\nresponse = Party.get('http://example.com')\n```\n"
    api = ("module Party\n  def self.get(path)\n    Request.new(path).perform\n  end\nend\n")
    req = ("module Party\n  class Request\n    def initialize(path)\n      @path = path\n    end\n\n"
           "    def perform\n      raw = fetch_body\n      handle_response raw\n    end\n\n"
           "    def fetch_body\n      Net::HTTP.get(@path)\n    end\n\n"
           "    def handle_response(raw)\n      decode raw\n    end\n\n    def decode(raw)\n      raw.strip\n    end\n  end\nend\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "party.gemspec": "Gem::Specification.new\n",
                                        "lib/party.rb": api, "lib/party/request.rb": req}))
    assert path_titles(p, [["lib/party.rb"], ["lib/party/request.rb"]]) == [None, "How a request handles its response"]


def test_a_step_from_a_long_method_with_attributes_cites_the_line_that_names_it(tmp_path: Path):
    from orchestrator.authoring.tracing import name_line, step_cites

    filler = "".join(f"            int v{k} = {k};\n" for k in range(45))
    cs = ("namespace Dp;\n\npublic static class Mapper\n{\n        [Obsolete(\"internal\", false)]\n        [Browsable(false)]\n"
          "        public static int Lookup(int type)\n        {\n" + filler + "            return AddHandler(type);\n        }\n\n"
          "        public static int AddHandler(int type)\n        {\n            return type;\n        }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/Mapper.cs": cs}))
    a = next(s for s in p.symbols() if s.dotted == "Mapper.Lookup")
    b = next(s for s in p.symbols() if s.dotted == "Mapper.AddHandler")
    at = next(n for n, ln in enumerate(p.lines_of(a.rel), 1) if "AddHandler(type)" in ln and "return" in ln)
    heads = (name_line(p, a), name_line(p, b))
    step = f"1. `Mapper.Lookup` calls `Mapper.AddHandler` at line {at}" + step_cites(a, b, at, None, heads) + "."
    _steps_hold(p, step)  # the caller's first cited line is `public static int Lookup(…)`, not `[Obsolete(…)]`


def test_a_rust_crate_doc_in_a_block_comment_gives_the_example_and_its_types_parse_is_the_start(tmp_path: Path):
    lib = ("/*!\nA URL parser.\n\n```\nuse url::Url;\nlet u = Url::parse(\"http://x\").unwrap();\n```\n*/\n\n"
           "pub struct Url {\n    s: String,\n}\n\npub struct ParseOptions {\n    base: u8,\n}\n\n"
           "pub struct Host {\n    h: String,\n}\n\nimpl Host {\n    pub fn parse(input: &str) -> Host {\n"
           "        Host { h: input.to_string() }\n    }\n}\n\n"
           "impl Url {\n    pub fn parse(input: &str) -> Url {\n        Url::options().parse(input)\n    }\n\n"
           "    pub fn options() -> ParseOptions {\n        ParseOptions { base: 0 }\n    }\n}\n\n"
           "impl ParseOptions {\n    pub fn parse(self, input: &str) -> Url {\n        Parser {\n            n: self.base,\n        }\n"
           "        .parse_url(input)\n    }\n}\n\npub struct Parser {\n    n: u8,\n}\n\n"
           "impl Parser {\n    pub fn parse_url(&self, input: &str) -> Url {\n        self.parse_scheme(input)\n    }\n\n"
           "    fn parse_scheme(&self, input: &str) -> Url {\n        Url { s: input.to_string() }\n    }\n}\n")
    p = load(_write(tmp_path / "repo", {"Cargo.toml": "[package]\nname = \"url\"\n", "src/lib.rs": lib}))
    # the example of `/*! … */`; `Url::parse`, not `Host::parse`; a method called on a struct literal
    assert _path(p)[:4] == ["Url::parse", "ParseOptions::parse", "Parser::parse_url", "Parser::parse_scheme"], _path(p)


def test_a_javascript_function_exported_by_its_name_is_an_entry_point(tmp_path: Path):
    readme = "# yml\n\n```javascript\nconst yml = require('yml');\nconst doc = yml.load(text);\n```\n"
    loader = ("'use strict';\n\nfunction readDocument(state) {\n  return composeNode(state);\n}\n\n"
              "function composeNode(state) {\n  return state.input.trim();\n}\n\n"
              "function loadDocuments(input) {\n  return [readDocument({ input: input })];\n}\n\n"
              "function load(input) {\n  return loadDocuments(input)[0];\n}\n\n\nmodule.exports.load = load;\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "package.json": '{"name": "yml"}', "lib/loader.js": loader}))
    assert _path(p)[:4] == ["load", "loadDocuments", "readDocument", "composeNode"], _path(p)


def test_a_markdown_readmes_indented_example_and_a_method_five_bases_up(tmp_path: Path):
    # PyYAML: its README shows its use only in an indented block, and `Loader` has `get_single_data`
    # from `BaseConstructor`, five classes up
    readme = ("# yml\n\nA full YAML processing framework for Python\n\n## Installation\n\nTo install, type `pip install yml`. "
              "Use it as follows:\n\n"
              "    >>> yml.load(stream, Loader=yml.Loader)\n\n- a list item\n\n      not_code(1)\n")
    init = ("from .loader import *\n\n\ndef load(stream, Loader):\n    loader = Loader(stream)\n"
            "    return loader.get_single_data()\n")
    loader = ("from .constructor import *\n\n\nclass Composer:\n    def get_single_node(self):\n"
              "        node = self.compose_node()\n        return node\n\n    def compose_node(self):\n"
              "        return self.read_event().value.strip()\n\n    def read_event(self):\n        return self.stream\n\n\n"
              "class Loader(Composer, Constructor):\n    def __init__(self, stream):\n        self.stream = stream\n")
    cons = "".join(f"class {b}({a}):\n    pass\n\n\n" for a, b in [("BaseConstructor", "SafeConstructor"),
                   ("SafeConstructor", "FullConstructor"), ("FullConstructor", "UnsafeConstructor"),
                   ("UnsafeConstructor", "Constructor")])
    cons = ("class BaseConstructor:\n    def get_single_data(self):\n        node = self.get_single_node()\n"
            "        return self.construct_document(node)\n\n    def construct_document(self, node):\n"
            "        return node\n\n\n") + cons
    p = load(_write(tmp_path / "repo", {"README.md": readme, "pyproject.toml": "[project]\nname = 'yml'\n",
                                        "yml/__init__.py": init, "yml/loader.py": loader, "yml/constructor.py": cons}))
    ex = first_example(p, {"load", "Loader"})
    assert ex is not None and (ex.rel, ex.first, ex.last) == ("README.md", 9, 9), ex
    assert ex.code == ">>> yml.load(stream, Loader=yml.Loader)"  # (a list item's indented line is no code)
    assert ex.lang == "python"  # (a `>>>` session says its language)
    from orchestrator.authoring.purpose import purpose  # (and the next section's install note is no purpose)

    assert purpose(p) == ("README.md", 3, "A full YAML processing framework for Python")
    assert _path(p)[:3] == ["load", "BaseConstructor.get_single_data", "Composer.get_single_node"], _path(p)


def test_an_anonymous_commonjs_export_is_named_by_its_file(tmp_path: Path):
    # qs: `module.exports = function (str, opts)` in lib/parse.js, which index.js exports as `parse`
    readme = "# qs\n\n```javascript\nvar qs = require('qs');\nvar obj = qs.parse('a=c');\n```\n"
    parse = ("'use strict';\n\nvar parseKeys = function parseQueryStringKeys(key, options) {\n"
             "  return parseObject(key.split('.'), options);\n};\n\n"
             "var parseObject = function (chain, options) {\n  return chain.reduce(function (a, b) { return a + b; });\n};\n\n"
             "module.exports = function (str, opts) {\n  var keys = Object.keys(str);\n"
             "  return parseKeys(keys[0], opts);\n};\n")
    index = "'use strict';\n\nvar parse = require('./parse');\n\nmodule.exports = {\n    parse: parse\n};\n"
    p = load(_write(tmp_path / "repo", {"README.md": readme, "package.json": '{"name": "qs"}', "lib/parse.js": parse,
                                        "lib/index.js": index, "lib/is-plain.js": "module.exports = (x) => !!x;\n"}))
    assert _path(p)[:3] == ["parse", "parseKeys", "parseObject"], _path(p)
    assert {s.name for s in p.symbols() if s.rel == "lib/is-plain.js"} == {"isPlain"}  # (kebab-case, as Node binds it)
    # the step cites `parse` from its `module.exports = function` line, and R1 takes that line for `parse`
    # (a line that says `parseKeys` does not name it)
    walk = _walk(p)
    assert "source:lib/parse.js#L11-L13" in walk, walk
    _steps_hold(p, walk)


def test_a_ruby_namespace_is_no_entry_and_dynamic_dispatch_is_followed(tmp_path: Path):
    # kramdown: `Kramdown::Document.new(text).to_html`; `Kramdown` is a namespace there, not the class
    # `Kramdown::Parser::Kramdown`; `to_html` is `method_missing`, which runs `Converter.const_get(name).convert`
    readme = "# kramdown\n\n## Usage\n\n```ruby\nrequire 'kramdown'\n\nKramdown::Document.new(text).to_html\n```\n"
    doc = ("module Kramdown\n  class Document\n    def initialize(source)\n      @root = source\n    end\n\n"
           "    def method_missing(id, *attr)\n      name = id.to_s.sub('to_', '').capitalize\n"
           "      Converter.const_get(name).convert(@root)\n    end\n  end\nend\n")
    conv = ("module Kramdown\n  module Converter\n    class Base\n      def self.convert(tree)\n"
            "        converter = new(tree)\n        converter.render_tree(tree)\n      end\n\n"
            "      def render_tree(tree)\n        tree.to_s.strip\n      end\n    end\n\n"
            "    class Html < Base\n      def convert(el)\n        el.to_s\n      end\n    end\n  end\nend\n")
    parser = "module Kramdown\n  module Parser\n    class Kramdown\n      def parse\n        1\n      end\n    end\n  end\nend\n"
    p = load(_write(tmp_path / "repo", {"README.md": readme, "kramdown.gemspec": "Gem::Specification.new\n",
                                        "lib/kramdown/document.rb": doc, "lib/kramdown/converter.rb": conv,
                                        "lib/kramdown/parser.rb": parser}))
    assert entry_points(p)[0].name == "Kramdown::Document", [e.name for e in entry_points(p)]
    assert _path(p)[:3] == ["Kramdown::Document::method_missing", "Kramdown::Converter::Base::convert",
                            "Kramdown::Converter::Base::render_tree"], _path(p)


def test_a_csharp_guides_task_example_with_a_generic_call_and_fields_named_without_this(tmp_path: Path):
    # CsvHelper: its guide's "Newlines" block only configures, "Reading a CSV File" uses it;
    # `csv.GetRecords<Foo>()` is a call; `parser.Read()` calls a field named without `this.`; `manager.Value` a Lazy's
    guide = ("# Getting Started\n\n## Newlines\n\n```cs\nvar config = new CsvConfiguration(CultureInfo.InvariantCulture);\n```\n\n"
             "## Reading a CSV File\n\n```cs\nusing (var csv = new CsvReader(reader, config))\n{\n"
             "    var records = csv.GetRecords<Foo>();\n}\n```\n")
    code = ("namespace Csv\n{\n    public class CsvConfiguration\n    {\n        public CsvConfiguration(object culture)\n"
            "        {\n        }\n    }\n\n    public class RecordManager\n    {\n        public T Create<T>()\n        {\n"
            "            return default(T);\n        }\n    }\n\n    public class CsvParser\n    {\n        public bool Read()\n"
            "        {\n            var line = ReadLine();\n            return line != null;\n        }\n\n"
            "        private string ReadLine()\n        {\n            return \"a\".Trim();\n        }\n    }\n\n"
            "    public class CsvReader\n    {\n        private readonly CsvParser parser;\n"
            "        private readonly Lazy<RecordManager> manager;\n\n"
            "        public CsvReader(object reader, CsvConfiguration config)\n        {\n"
            "            parser = new CsvParser();\n        }\n\n        public virtual bool Read()\n        {\n"
            "            return parser.Read();\n        }\n\n        public virtual IEnumerable<T> GetRecords<T>()\n        {\n"
            "            while (Read())\n            {\n                yield return manager.Value.Create<T>();\n            }\n"
            "        }\n    }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": "# Csv\n\nA library for CSV files.\n", "docs/getting-started.md": guide,
                                        "src/Csv/Csv.csproj": "<Project></Project>\n", "src/Csv/CsvReader.cs": code}))
    ex = first_example(p, {"CsvReader", "CsvConfiguration", "GetRecords"})
    assert ex is not None and ex.first == 12, ex
    assert _path(p)[:3] == ["CsvReader.GetRecords", "CsvReader.Read", "CsvParser.Read"], _path(p)
    from orchestrator.authoring.facts import (
        all_calls,  # (and `manager.Value` is the value of a `Lazy<RecordManager>`)
    )

    records = next(s for s in p.symbols() if s.name == "CsvReader.GetRecords")
    assert "RecordManager.Create" in [c.name for c in all_calls(p, records)]


def test_a_go_packages_testable_example_is_its_first_example(tmp_path: Path):
    # a README with no code: `go doc`'s example (`func ExampleDecode()` in a `_test.go` file) shows the use
    code = ("package conf\n\n// Decode reads a config.\nfunc Decode(input string, out *Config) error {\n"
            "\td := NewDecoder(input)\n\treturn d.Decode(out)\n}\n\n"
            "type Config struct {\n\tName string\n}\n\ntype Decoder struct {\n\tinput string\n}\n\n"
            "func NewDecoder(input string) *Decoder {\n\treturn &Decoder{input: input}\n}\n\n"
            "func (d *Decoder) Decode(out *Config) error {\n\tout.Name = parseName(d.input)\n\treturn nil\n}\n\n"
            "func parseName(s string) string {\n\treturn strings.TrimSpace(s)\n}\n")
    example = ("package conf_test\n\nimport \"fmt\"\n\nfunc ExampleDecode() {\n\tvar c conf.Config\n"
               "\terr := conf.Decode(\"name = x\", &c)\n\tfmt.Println(c.Name, err)\n\t// Output:\n\t// x <nil>\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": "# conf\n\nA config decoder.\n", "go.mod": "module example.com/conf\n",
                                        "conf.go": code, "example_test.go": example}))
    ex = first_example(p, {"Decode", "Config"})
    assert ex is not None and (ex.rel, ex.first, ex.last) == ("example_test.go", 6, 8), ex
    assert ex.code == "var c conf.Config\nerr := conf.Decode(\"name = x\", &c)\nfmt.Println(c.Name, err)"
    assert _path(p)[:3] == ["Decode", "Decoder.Decode", "parseName"], _path(p)


def test_javascript_calls_of_imported_functions_resolve_and_a_utility_module_is_a_side_step(tmp_path: Path):
    # hono's `compose(…)` from `import { compose } from './compose'`; axios's `adapters.getAdapter(…)` of
    # `export default { getAdapter: … }`; `utils.merge(…)` is a helper's side step, not the operation
    files = {"package.json": '{"name": "jst"}',
             "README.md": "# jst\n\n```js\nimport jst from 'jst';\njst.run(input);\n```\n",
             "src/index.js": "import { run } from './run.js'\n\nexport default { run }\n",
             "src/run.js": ("import { compose } from './compose.js'\nimport adapters from './adapters.js'\n"
                            "import utils from './utils.js'\nconst { finish } = require('./finish')\n\n"
                            "export function run(input) {\n  const composed = compose(input)\n"
                            "  const out = adapters.getAdapter(composed)\n  return utils.merge(out, {})\n}\n"),
             "src/compose.js": "export const compose = (input) => {\n  return input.trim()\n}\n",
             "src/adapters.js": ("const finish = require('./finish')\n\nexport default {\n  getAdapter: (out) => {\n"
                                 "    const a = pick(out)\n    return finish.finish(a)\n  }\n}\n\n"
                                 "function pick(out) {\n  return out.adapter\n}\n"),
             "src/finish.js": "function finish(a) {\n  return a.done()\n}\n\nmodule.exports = { finish }\n",
             "src/utils.js": ("function merge(a, b) {\n  return mergeDeep(a, b)\n}\n\nfunction mergeDeep(a, b) {\n"
                              "  return deeper(Object.assign(a, b))\n}\n\nfunction deeper(x) {\n  return x\n}\n\n"
                              "export default { merge }\n")}
    p = load(_write(tmp_path / "repo", files))
    from orchestrator.authoring.facts import all_calls

    run = next(s for s in p.symbols() if s.name == "run" and s.rel == "src/run.js")
    assert {c.name for c in all_calls(p, run)} == {"compose", "merge", "getAdapter"}
    assert _path(p)[:3] == ["run", "getAdapter", "finish"], _path(p)  # not into `utils.merge`'s helpers


def test_an_accessor_the_example_never_calls_starts_no_main_path(tmp_path: Path):
    # axios: `Axios.getUri` (a long chain of URL helpers) is no operation a user starts with
    files = {"package.json": '{"name": "ax"}',
             "README.md": "# ax\n\n```js\nconst ax = require('ax');\nax.get('/user');\n```\n\nOr `Ax` itself: `ax.request(config)`.\n",
             "lib/Ax.js": ("class Ax {\n  request(config) {\n    return this._request(config)\n  }\n\n"
                           "  _request(config) {\n    return dispatch(config)\n  }\n\n"
                           "  getUri(config) {\n    return build(config.url)\n  }\n}\n\n"
                           "function dispatch(config) {\n  return send(config)\n}\n\nfunction send(config) {\n  return config.url\n}\n\n"
                           "function build(url) {\n  return encode(url)\n}\n\nfunction encode(url) {\n  return render(url)\n}\n\n"
                           "function render(url) {\n  return strip(url)\n}\n\nfunction strip(url) {\n  return clean(url)\n}\n\n"
                           "function clean(url) {\n  return tidy(url)\n}\n\nfunction tidy(url) {\n  return url.trim()\n}\n\n"
                           "module.exports = Ax\n")}
    p = load(_write(tmp_path / "repo", files))
    assert _path(p)[:3] == ["Ax.request", "Ax._request", "dispatch"], _path(p)


def test_what_a_long_definition_calls_is_cited_at_the_calls(tmp_path: Path):
    # hono's 208-line `ErrorBoundary`: "It relies on `useContext` …" cited all 208 lines, more than a
    # sentence is checked against, and our own R1 rejected the chapter
    body = "".join(f"  const v{k} = {k}\n" for k in range(130))
    code = ("function helper(x) {\n  return x\n}\n\nfunction other(x) {\n  return x\n}\n\n"
            f"export function big(a) {{\n  const h = helper(a)\n{body}  return other(h)\n}}\n")
    p = load(_write(tmp_path / "repo", {"package.json": '{"name": "big"}', "src/big.js": code}))
    from orchestrator.authoring.write_cites import calls_cite

    big = next(s for s in p.symbols() if s.name == "big")
    helper, other = (next(s for s in p.symbols() if s.name == n) for n in ("helper", "other"))
    cite = calls_cite(p, big, [helper, other])
    assert cite == " ([src/big.js:10](source:src/big.js#L10-L10)) ([src/big.js:141](source:src/big.js#L141-L141))", cite
    small = calls_cite(p, helper, [])
    assert "#L1-L3" in small


def test_a_ruby_example_that_parses_then_renders_follows_render_with_parse_as_its_set_up(tmp_path: Path):
    """liquid's shape: `@template = Liquidy::Template.parse(…)` then `@template.render(…)`. The class's
    `self.parse` (in `class << self`) runs `new(…).parse(source)`, the instance's; that one calls the class
    method `Document.parse`, which calls its instance's. The run is `render`, which ends by handing the work
    to `@root`'s; `Document#render_to_output_buffer` hands it on to `@body`, an object the map cannot follow."""
    from orchestrator.authoring.example_setup import setup_path

    files = {
        "README.md": "# Liquidy\n\n```ruby\n@template = Liquidy::Template.parse(\"hi {{name}}\")\n"
                     "@template.render('name' => 'tobi')\n```\n",
        "liquidy.gemspec": "Gem::Specification.new do |s|\n  s.name = 'liquidy'\nend\n",
        "lib/liquidy/template.rb": "module Liquidy\n  class Template\n    class << self\n      def parse(source)\n"
                                   "        new.parse(source)\n      end\n    end\n\n    def parse(source)\n"
                                   "      tokens = source.split\n      @root = Document.parse(tokens)\n      self\n    end\n\n"
                                   "    def render(assigns)\n      context = Context.new(assigns)\n"
                                   "      @root.render_to_output_buffer(context, +'')\n    end\n  end\nend\n",
        "lib/liquidy/context.rb": "module Liquidy\n  class Context\n    def initialize(assigns)\n      @assigns = assigns\n"
                                  "      check_limits(assigns)\n    end\n\n    def check_limits(assigns)\n"
                                  "      raise ArgumentError if assigns.size > 100\n    end\n  end\nend\n",
        "lib/liquidy/document.rb": "module Liquidy\n  class Document\n    def self.parse(tokens)\n      doc = new\n"
                                   "      doc.parse(tokens)\n      doc\n    end\n\n    def parse(tokens)\n"
                                   "      @body = tokens.map { |t| parse_token(t) }\n    end\n\n    def parse_token(t)\n"
                                   "      t.strip\n    end\n\n    def render_to_output_buffer(context, output)\n"
                                   "      @body.render_to_output_buffer(context, output)\n    end\n  end\nend\n",
        "lib/liquidy/block_body.rb": "module Liquidy\n  class BlockBody\n    def render_to_output_buffer(context, output)\n"
                                     "      output << context.to_s\n    end\n  end\nend\n",
    }
    p = load(_write(tmp_path / "repo", files))
    entries = entry_points(p)
    path = central_path(p, entries)
    assert [s.name for s in path] == ["Liquidy::Template::render", "Liquidy::Document::render_to_output_buffer"], path
    assert handed_out(p, path[-1]) == ("@body.render_to_output_buffer", 18)
    setup = [(s.name, s.d.start_line) for s in setup_path(p, entries, path)]
    # the class's `parse`, then the instance's (not itself again), then `Document.parse` the class's, then its instance's
    assert setup[:3] == [("Liquidy::Template::parse", 4), ("Liquidy::Template::parse", 9), ("Liquidy::Document::parse", 3)], setup
    _steps_hold(p, _walk(p))


def test_a_ruby_call_reaches_the_class_method_on_a_class_and_the_instance_method_on_a_value(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    code = ("class Doc\n  def self.parse(t)\n    d = new\n    d.parse(t)\n    d\n  end\n\n"
            "  def parse(t)\n    helper_step(t)\n  end\n\n  def helper_step(t)\n    t\n  end\nend\n\n"
            "class User\n  def run(t)\n    Doc.parse(t)\n  end\n\n  def reuse(doc, t)\n    doc.parse(t)\n  end\nend\n")
    p = load(_write(tmp_path / "repo", {"lib/doc.rb": code}))
    by = {(s.dotted, s.d.start_line): s for s in p.symbols()}
    assert [(c.dotted, c.d.start_line) for c in all_calls(p, by[("User.run", 18)])] == [("Doc.parse", 2)]
    assert [(c.dotted, c.d.start_line) for c in all_calls(p, by[("Doc.parse", 2)])] == [("Doc.parse", 8)]
    # `doc` is a parameter of no known type: of two methods named `parse`, none (a short name says too little)
    assert all_calls(p, by[("User.reuse", 22)]) == []


def test_a_three_word_method_name_one_method_has_resolves_on_a_receiver_of_no_known_type(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    code = ("class ParseContext:\n    def new_block_body(self):\n        return []\n\n    def body(self):\n        return 1\n\n\n"
            "class Document:\n    def __init__(self, parse_context, ctx):\n        self.body = parse_context.new_block_body()\n"
            "        self.other = ctx.body()\n")
    p = load(_write(tmp_path / "repo", {"pkg/doc.py": code, "pkg/__init__.py": ""}))
    init = next(s for s in p.symbols() if s.dotted == "Document.__init__")
    # `body` is one word: a parameter's `body()` could be anything's (unless the parameter is named for the class:
    # duck_calls, tests/test_mainpath_set24.py)
    assert [c.dotted for c in all_calls(p, init)] == ["ParseContext.new_block_body"]


def test_a_python_object_called_as_a_function_runs_its_call_method(tmp_path: Path):
    """mistune's shape: `markdown(text)` makes `md = create_markdown(…)` (declared `-> Markdown`) and
    returns `md(text)`: calling the object runs `Markdown.__call__`, and the path goes on through it."""
    files = {
        "README.md": "# mdy\n\n```python\nimport mdy\nmdy.markdown('# hi')\n```\n",
        "pyproject.toml": "[project]\nname = 'mdy'\n",
        "mdy/__init__.py": "from .core import Markdown\n\n\ndef create_markdown(escape: bool = True) -> Markdown:\n"
                           "    return Markdown(escape)\n\n\ndef markdown(text: str) -> str:\n"
                           "    md = create_markdown(escape=False)\n    return md(text)\n",
        "mdy/core.py": "class Markdown:\n    def __init__(self, escape):\n        self.escape = escape\n\n"
                       "    def __call__(self, s: str) -> str:\n        return self.parse(s)\n\n"
                       "    def parse(self, s: str) -> str:\n        tokens = self.tokenize(s)\n"
                       "        return self.render(tokens)\n\n    def tokenize(self, s):\n        return s.split()\n\n"
                       "    def render(self, tokens):\n        out = []\n        for t in tokens:\n            out.append(t)\n"
                       "        return ' '.join(out)\n",
    }
    p = load(_write(tmp_path / "repo", files))
    path = _path(p)
    assert path[:3] == ["markdown", "Markdown.__call__", "Markdown.parse"], path
    walk = _walk(p)
    assert "runs `Markdown.__call__` through `md` (line 10): calling the object `md`, made on line 9, runs its" in walk, walk
    _steps_hold(p, walk)


def test_an_example_that_hands_what_it_built_to_a_function_follows_that_function(tmp_path: Path):
    """pulldown-cmark's shape: `let parser = cmarky::Parser::new(input);` then
    `cmarky::html::push_html(&mut out, parser);`. The function the built value is handed to runs it;
    the construction is the set-up."""
    from orchestrator.authoring.example_setup import setup_path

    readme = ("# cmarky\n\n```rust\nlet input = \"hello\";\nlet parser = cmarky::Parser::new(input);\n"
              "let mut out = String::new();\ncmarky::html::push_html(&mut out, parser);\n```\n")
    lib = ("pub mod html;\n\npub struct Parser { text: String }\n\nimpl Parser {\n"
           "    pub fn new(text: &str) -> Parser {\n        Parser::new_ext(text, 0)\n    }\n\n"
           "    pub fn new_ext(text: &str, opts: u32) -> Parser {\n        let text = first_pass(text, opts);\n"
           "        Parser { text }\n    }\n}\n\nfn first_pass(text: &str, opts: u32) -> String {\n"
           "    let mut s = String::new();\n    for c in text.chars() {\n        s.push(c);\n    }\n"
           "    let _ = opts;\n    s\n}\n")
    html = ("use crate::Parser;\n\npub fn push_html(s: &mut String, parser: Parser) {\n"
            "    write_html(s, parser)\n}\n\nfn write_html(s: &mut String, parser: Parser) {\n"
            "    let mut w = HtmlWriter { out: s };\n    w.run(parser);\n}\n\nstruct HtmlWriter<'a> { out: &'a mut String }\n\n"
            "impl<'a> HtmlWriter<'a> {\n    fn run(&mut self, parser: Parser) {\n        self.out.push_str(&parser.text);\n"
            "        self.out.push('\\n');\n        self.out.push_str(\"<p>\");\n    }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "Cargo.toml": '[package]\nname = "cmarky"\n',
                                        "src/lib.rs": lib, "src/html.rs": html}))
    entries = entry_points(p)
    path = central_path(p, entries)
    assert [s.name for s in path][:2] == ["push_html", "write_html"], path
    assert [s.name for s in setup_path(p, entries, path)] == ["Parser::new", "Parser::new_ext", "first_pass"]
    _steps_hold(p, _walk(p))


def test_after_calls_that_configure_the_examples_last_call_runs_through_a_module_variable(tmp_path: Path):
    """nunjucks's shape: `tmpl.configure({…}); tmpl.renderString(…)`. `configure` only sets up, so the
    path follows `renderString`, which calls `e.renderString(…)` on the module's `let e;` that
    `configure` assigns `new Environment(…)`."""
    index = ("const Environment = require('./environment');\n\nlet e;\n\nfunction configure(opts) {\n"
             "  opts = opts || {};\n  e = new Environment(opts);\n  if (opts.express) {\n    e.express(opts.express);\n"
             "  }\n  return e;\n}\n\nmodule.exports = {\n  configure: configure,\n  renderString(src, ctx) {\n"
             "    if (!e) {\n      configure();\n    }\n    return e.renderString(src, ctx);\n  },\n};\n")
    env = ("class Environment {\n  constructor(opts) {\n    this.opts = opts;\n  }\n\n  express(app) {\n"
           "    app.set('view', this.opts);\n  }\n\n  renderString(src, ctx) {\n    const tmpl = this.compileString(src);\n"
           "    return tmpl.split(ctx).join('');\n  }\n\n  compileString(src) {\n    const out = src.trim();\n"
           "    return out.replace('{{', '').replace('}}', '');\n  }\n}\n\nmodule.exports = Environment;\n")
    files = {"README.md": "# tmpl\n\n```js\ntmpl.configure({ autoescape: true });\ntmpl.renderString('Hello {{ u }}', { u: 'J' });\n```\n",
             "package.json": '{"name": "tmpl", "main": "index.js"}\n', "index.js": index, "environment.js": env}
    p = load(_write(tmp_path / "repo", files))
    assert _path(p)[:3] == ["renderString", "Environment.renderString", "Environment.compileString"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_function_handing_the_app_to_a_server_is_served_through_the_wsgi_call_and_an_inner_call_does_the_work(tmp_path: Path):
    """bottle's shape: the README's `run(host=…)` ends in `server.run(app)`; the server calls the project's
    one WSGI application (`__call__(self, environ, start_response)`), whose `wsgi` makes
    `self._cast(self._handle(environ))`: `_cast` goes no further, `_handle` routes the request."""
    code = ('class Router:\n    def match(self, environ):\n        path = environ["PATH_INFO"]\n        target = self.lookup(path)\n'
            '        return target\n\n    def lookup(self, path):\n        return path.strip("/")\n\n\n'
            'class Bottle:\n    def __init__(self):\n        self.router = Router()\n\n'
            '    def _handle(self, environ):\n        route = self.router.match(environ)\n        return self.trigger(route)\n\n'
            '    def trigger(self, route):\n        return [route]\n\n'
            '    def _cast(self, out):\n' + "".join(f"        out = list(out)  # {k}\n" for k in range(3)) + '        return out\n\n'
            '    def wsgi(self, environ, start_response):\n        out = self._cast(self._handle(environ))\n'
            '        start_response("200 OK", [])\n        return out\n\n'
            '    def __call__(self, environ, start_response):\n        return self.wsgi(environ, start_response)\n\n\n'
            'class Server:\n    def run(self, handler):\n        pass\n\n\n'
            'def run(app=None, host="127.0.0.1", port=8080):\n    app = app or Bottle()\n    server = Server()\n'
            '    server.run(app)\n')
    files = {"README.md": "# bottly\n\n```python\nfrom bottly import run\n\nrun(host='localhost', port=8080)\n```\n",
             "pyproject.toml": "[project]\nname = 'bottly'\n", "bottly.py": code}
    p = load(_write(tmp_path / "repo", files))
    assert _path(p)[:5] == ["run", "Bottle.__call__", "Bottle.wsgi", "Bottle._handle", "Router.match"], _path(p)
    walk = _walk(p)
    assert "`run` runs `Bottle.__call__` through `server.run` (line 45)" in walk, walk
    _steps_hold(p, walk)


def test_a_definition_under_many_decorator_lines_is_named_and_cited_at_its_head(tmp_path: Path):
    """python-dotenv's `IPythonDotEnv.dotenv` has seventeen lines of `@argument(…)` before its `def`, and
    `cli` five `@click.option(…)` blocks: its name and its parameters are on the `def` lines, which a
    citation of them must show (our R1 had rejected both chapters)."""
    from orchestrator.authoring.tracing import name_line
    from orchestrator.authoring.write_cites import sig_cite

    opts = "".join(f'@click.option(\n    "-{c}",\n    "--opt{c}",\n    default=None,\n)\n' for c in "abc")
    code = f"import click\n\n\n@click.group()\n{opts}@click.pass_context\ndef cli(\n    ctx: click.Context,\n    opta: str,\n) -> None:\n" \
           "    ctx.obj = {'a': opta}\n"
    p = load(_write(tmp_path / "repo", {"envy/cli.py": code, "envy/__init__.py": ""}))
    cli = next(s for s in p.symbols() if s.dotted == "cli")
    lines = code.splitlines()
    assert lines[name_line(p, cli) - 1] == "def cli(" and name_line(p, cli) > cli.d.start_line + 12
    cited = sig_cite(p, cli)
    first, last = (int(x) for x in re.search(r"#L(\d+)-L(\d+)", cited).groups())
    assert "ctx: click.Context" in "\n".join(lines[first - 1:last]), cited


def test_a_logging_librarys_own_log_calls_are_its_path_and_a_guard_is_no_hand_off(tmp_path: Path):
    """logrus's shape: the exported `Info` calls `std.Info(…)` on the package's `var std = New()`;
    `Logger.Info` calls `Log`, which is the work here, not a trace print; `Logger.Log` tests
    `if logger.IsLevelEnabled(level) {` and hands the entry its `Log` inside that block."""
    exported = ("package logz\n\nvar std = New()\n\nfunc Info(args ...any) {\n\tstd.Info(args...)\n}\n")
    logger = ("package logz\n\ntype Logger struct {\n\tlevel int\n}\n\ntype Entry struct {\n\tlogger *Logger\n}\n\n"
              "func New() *Logger {\n\treturn &Logger{level: 4}\n}\n\n"
              "func (logger *Logger) IsLevelEnabled(level int) bool {\n\treturn logger.level >= level\n}\n\n"
              "func (logger *Logger) newEntry() *Entry {\n\treturn &Entry{logger: logger}\n}\n\n"
              "func (logger *Logger) Log(level int, args ...any) {\n\tif logger.IsLevelEnabled(level) {\n"
              "\t\tentry := logger.newEntry()\n\t\tentry.Log(level, args...)\n\t}\n}\n\n"
              "func (logger *Logger) Info(args ...any) {\n\tlogger.Log(4, args...)\n}\n\n"
              "func (entry *Entry) Log(level int, args ...any) {\n\tentry.log(level, args)\n}\n\n"
              "func (entry *Entry) log(level int, args []any) {\n\tbuf := entry.format(args)\n\tentry.write(buf)\n}\n\n"
              "func (entry *Entry) format(args []any) string {\n\treturn \"x\"\n}\n\n"
              "func (entry *Entry) write(s string) {\n\tprintln(s)\n}\n")
    files = {"README.md": "# logz\n\n```go\npackage main\n\nimport \"example.com/logz\"\n\nfunc main() {\n\tlogz.Info(\"hi\")\n}\n```\n",
             "go.mod": "module example.com/logz\n", "exported.go": exported, "logger.go": logger}
    p = load(_write(tmp_path / "repo", files))
    assert _path(p)[:6] == ["Info", "Logger.Info", "Logger.Log", "Entry.Log", "Entry.log", "Entry.write"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_csharp_render_goes_through_named_arguments_a_property_and_base(tmp_path: Path):
    """dotliquid's shape: `template.Render(hash)` calls `this.Render(writer: w, parameters: p)` (the named
    arguments pick the overload), which renders `Root` (a property typed `Document`), whose `Render`
    calls `base.Render(…)`, its base `Block`'s."""
    tmpl = ("namespace Liq\n{\n    public class Template\n    {\n        public Document Root { get; set; }\n\n"
            "        public static Template Parse(string source)\n        {\n            var t = new Template();\n"
            "            t.Root = new Document();\n            return t;\n        }\n\n"
            "        public string Render(Hash localVariables, object formatProvider = null)\n        {\n"
            "            var writer = new Writer();\n            return this.Render(writer: writer, parameters: new Params());\n"
            "        }\n\n        public string Render(Writer writer, Params parameters)\n        {\n"
            "            RenderInternal(writer, parameters);\n            return writer.ToString();\n        }\n\n"
            "        public string Render(Stream stream, Params parameters)\n        {\n            return \"\";\n        }\n\n"
            "        private void RenderInternal(Writer result, Params parameters)\n        {\n"
            "            if (Root == null)\n                return;\n            Root.Render(result);\n        }\n    }\n}\n")
    doc = ("namespace Liq\n{\n    public class Block\n    {\n        public virtual void Render(Writer result)\n        {\n"
           "            RenderAll(result);\n        }\n\n        protected void RenderAll(Writer result)\n        {\n"
           "            result.Write(\"x\");\n            result.Write(\"y\");\n        }\n    }\n\n"
           "    public class Document : Block\n    {\n        public override void Render(Writer result)\n        {\n"
           "            base.Render(result);\n        }\n    }\n\n    public class Writer\n    {\n"
           "        public void Write(string s)\n        {\n        }\n    }\n\n    public class Params\n    {\n    }\n\n"
           "    public class Hash\n    {\n    }\n\n    public class Stream\n    {\n    }\n}\n")
    readme = ("# Liq\n\n```csharp\nTemplate template = Template.Parse(\"hi {{name}}\");\n"
              "template.Render(new Hash());\n```\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "src/Liq/Template.cs": tmpl, "src/Liq/Document.cs": doc,
                                        "src/Liq/Liq.csproj": "<Project></Project>\n"}))
    path = _path(p)
    assert path[:6] == ["Template.Render", "Template.Render", "Template.RenderInternal", "Document.Render", "Block.Render",
                        "Block.RenderAll"], path
    _steps_hold(p, _walk(p))


def test_an_examples_main_loop_runs_its_last_call_and_what_came_before_sets_it_up(tmp_path: Path):
    """schedule's shape: `sched.every(10).do(job)`, then `while True: sched.run_pending()`. The call in the
    program's main loop is the run, the first call its set-up; a loop over items inside a handler
    (`for x in range(n): sched.echo(…)`) is no main loop."""
    from orchestrator.authoring.example_setup import setup_path

    code = ("class Job:\n    def __init__(self, interval, scheduler):\n        self.interval = interval\n"
            "        self.scheduler = scheduler\n\n    def do(self, fn):\n        self.fn = fn\n        return self\n\n"
            "    def run(self):\n        value = self.fn()\n        self.schedule_next()\n        return value\n\n"
            "    def schedule_next(self):\n        self.next = self.interval\n\n\n"
            "class Scheduler:\n    def __init__(self):\n        self.jobs = []\n\n    def every(self, interval=1):\n"
            "        job = Job(interval, self)\n        self.jobs.append(job)\n        return job\n\n"
            "    def run_pending(self):\n        for job in self.jobs:\n            self.run_job(job)\n\n"
            "    def run_job(self, job: Job):\n        job.run()\n\n\n"
            "default_scheduler = Scheduler()\n\n\ndef every(interval=1):\n    return default_scheduler.every(interval)\n\n\n"
            "def run_pending():\n    default_scheduler.run_pending()\n")
    readme = ("# sched\n\n```python\nimport sched\n\ndef job():\n    print('working')\n\nsched.every(10).do(job)\n\n"
              "while True:\n    sched.run_pending()\n```\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "pyproject.toml": "[project]\nname = 'sched'\n",
                                        "sched/__init__.py": code}))
    entries = entry_points(p)
    path = central_path(p, entries)
    assert [s.name for s in path][:5] == ["run_pending", "Scheduler.run_pending", "Scheduler.run_job", "Job.run",
                                          "Job.schedule_next"], path
    assert [s.name for s in setup_path(p, entries, path)] == ["every", "Scheduler.every"]
    _steps_hold(p, _walk(p))


def test_a_declared_name_starts_at_its_javascript_definition_and_a_module_objects_member_is_its_function(tmp_path: Path):
    """dotenv's shape: `lib/main.d.ts` declares `config`, `lib/main.js` defines it; `config` calls
    `DotenvModule.configDotenv(options)`, where `const DotenvModule = { configDotenv, config, populate }`."""
    js = ("function populate (processEnv, parsed) {\n  for (const key of Object.keys(parsed)) {\n"
          "    processEnv[key] = parsed[key]\n  }\n  return processEnv\n}\n\n"
          "function configDotenv (options) {\n  const parsed = { A: '1' }\n  return DotenvModule.populate(process.env, parsed)\n}\n\n"
          "function config (options) {\n  return DotenvModule.configDotenv(options)\n}\n\n"
          "const DotenvModule = {\n  configDotenv,\n  config,\n  populate: populate\n}\n\n"
          "module.exports.config = DotenvModule.config\nmodule.exports.populate = DotenvModule.populate\n"
          "module.exports = DotenvModule\n")
    dts = ("export interface Options { path?: string }\nexport function config(options?: Options): object;\n"
           "export function populate(processEnv: object, parsed: object): object;\n")
    files = {"README.md": "# envy\n\n```js\nconst envy = require('envy')\nenvy.config()\n```\n", "package.json": '{"name": "envy", "main": "lib/main.js"}\n',
             "lib/main.js": js, "lib/main.d.ts": dts}
    p = load(_write(tmp_path / "repo", files))
    assert entry_points(p)[0].rel == "lib/main.js"
    assert _path(p)[:3] == ["config", "configDotenv", "populate"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_rust_crate_root_that_only_re_exports_gives_its_entry_points(tmp_path: Path):
    """humantime's lib.rs holds only `pub use self::duration::{parse_duration, …}`, and its README shows no
    code: the re-exported functions are what a user calls first, and the path starts at one of them."""
    lib = ("mod duration;\n\npub use self::duration::{parse_duration, Error as DurationError};\n")
    dur = ("pub enum Error {\n    Empty,\n}\n\nstruct Parser<'a> {\n    src: &'a str,\n    current: u64,\n}\n\n"
           "impl<'a> Parser<'a> {\n    fn off(&self) -> usize {\n        self.src.len()\n    }\n\n"
           "    fn parse_first_char(&mut self) -> Result<Option<u64>, Error> {\n        let n = self.off();\n"
           "        self.current = n as u64;\n        Ok(Some(self.current))\n    }\n\n"
           "    fn parse(mut self) -> Result<u64, Error> {\n        let first = self.parse_first_char()?;\n"
           "        Ok(first.unwrap_or(0))\n    }\n}\n\n"
           "pub fn parse_duration(s: &str) -> Result<u64, Error> {\n    Parser { src: s, current: 0 }.parse()\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": "# humane\n\nParses durations like `15days 2min`.\n",
                                        "Cargo.toml": '[package]\nname = "humane"\n', "src/lib.rs": lib,
                                        "src/duration.rs": dur}))
    assert [e.name for e in entry_points(p)][:1] == ["parse_duration"]
    assert _path(p)[:4] == ["parse_duration", "Parser::parse", "Parser::parse_first_char", "Parser::off"], _path(p)
    _steps_hold(p, _walk(p))


def test_a_usage_section_that_runs_in_a_later_block_is_followed_through_that_run(tmp_path: Path):
    # pflag's README: the first block only defines a flag; "After all flags are defined, call" `flag.Parse()`,
    # in a block of its own further down the same section. The run is the path; the definition its set-up.
    readme = ("# flagz\n\nFlags for commands.\n\n## Usage\n\nDefine a flag:\n\n```go\n"
              "var ip *int = flag.Int(\"n\", 1, \"help\")\n```\n\nAfter all flags are defined, call\n\n```go\n"
              "flag.Parse()\n```\n\nto parse the command line.\n\n## Other\n\n```go\nflag.Run()\n```\n")
    code = ("package flag\n\ntype FlagSet struct {\n\tformal map[string]int\n\targs []string\n}\n\n"
            "var CommandLine = NewFlagSet()\n\nfunc NewFlagSet() *FlagSet {\n\treturn &FlagSet{}\n}\n\n"
            "func Int(name string, value int, usage string) *int {\n\treturn CommandLine.Int(name, value, usage)\n}\n\n"
            "func (f *FlagSet) Int(name string, value int, usage string) *int {\n\tp := new(int)\n"
            "\tf.IntVar(p, name, value, usage)\n\treturn p\n}\n\n"
            "func (f *FlagSet) IntVar(p *int, name string, value int, usage string) {\n\tf.formal[name] = value\n"
            "\t*p = value\n\tf.args = nil\n}\n\n"
            "func Parse() {\n\tCommandLine.Parse([]string{})\n}\n\n"
            "func (f *FlagSet) Parse(arguments []string) error {\n\tf.args = arguments\n\tfor len(f.args) > 0 {\n"
            "\t\tf.parseArgs()\n\t}\n\treturn nil\n}\n\n"
            "func (f *FlagSet) parseArgs() {\n\ts := f.args[0]\n\tf.args = f.args[1:]\n\tf.parseLongArg(s)\n}\n\n"
            "func (f *FlagSet) parseLongArg(s string) {\n\tname := s[2:]\n\tf.formal[name] = len(name)\n"
            "\tf.args = f.args[:0]\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "go.mod": "module example.com/flag\n", "flag.go": code}))
    ex = first_example(p, {"Int", "Parse", "FlagSet"})
    assert ex is not None and (ex.first, ex.last) == (10, 10), ex
    assert ex.then is not None and (ex.then.first, ex.then.last, ex.then.code) == (16, 16, "flag.Parse()"), ex.then
    assert "flag.Run" not in ex.calls_code  # (another section's block)
    assert _path(p)[:4] == ["Parse", "FlagSet.Parse", "FlagSet.parseArgs", "FlagSet.parseLongArg"], _path(p)
    from orchestrator.authoring.story import _example_block
    from orchestrator.authoring.story_phrases import EN

    shown = "\n".join(_example_block(ex, entry_points(p), EN, "flagz"))
    assert "lines 16–16" in shown and "```go file=README.md lines=16-16\nflag.Parse()\n```" in shown, shown


def test_a_method_called_on_a_new_object_is_the_overload_its_arguments_fit(tmp_path: Path):
    # minimal-json's `Json.parse(String)`: `new JsonParser(handler).parse(string)`, of `parse(String)`,
    # `parse(Reader)` and `parse(Reader, int)`, is the one that takes a String
    code = ("package j;\n\npublic final class Json {\n  public static Value parse(String string) {\n"
            "    Handler handler = new Handler();\n    new JsonParser(handler).parse(string);\n    return handler.value;\n  }\n}\n")
    parser = ("package j;\n\nimport java.io.Reader;\n\npublic class JsonParser {\n  private final Handler handler;\n\n"
              "  public JsonParser(Handler handler) {\n    this.handler = handler;\n  }\n\n"
              "  public void parse(String string) {\n    parse(new StringReader(string), 10);\n  }\n\n"
              "  public void parse(Reader reader) {\n    parse(reader, 1024);\n  }\n\n"
              "  public void parse(Reader reader, int size) {\n    readValue();\n  }\n\n"
              "  private void readValue() {\n    handler.value = null;\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": "# j\n\nJSON.\n", "pom.xml": "<project></project>\n",
                                        "src/main/java/j/Json.java": code, "src/main/java/j/JsonParser.java": parser,
                                        "src/main/java/j/Handler.java": "package j;\n\nclass Handler {\n  Value value;\n}\n"}))
    from orchestrator.authoring.facts import all_calls

    json_parse = next(s for s in p.symbols() if s.name == "Json.parse")
    called = [(c.name, c.d.start_line) for c in all_calls(p, json_parse)]
    assert ("JsonParser.parse", 12) in called and ("JsonParser.parse", 16) not in called, called


def test_a_step_says_the_work_its_caller_does_before_it_hands_on(tmp_path: Path):
    # envconfig's `Process` gathers the struct's fields with `gatherInfo`, then hands each to `processField`:
    # the walk names both, in that order, and cites the line of each call; a check before it is no work
    code = ("package conf\n\ntype info struct {\n\tName string\n\tKey string\n}\n\n"
            "func Process(prefix string, spec interface{}) error {\n\tcheckSpec(spec)\n\tinfos := gatherInfo(prefix, spec)\n"
            "\tfor _, i := range infos {\n\t\tprocessField(i.Key, i.Name)\n\t}\n\treturn nil\n}\n\n"
            "func checkSpec(spec interface{}) {\n\tif spec == nil {\n\t\tpanic(\"nil\")\n\t}\n}\n\n"
            "func gatherInfo(prefix string, spec interface{}) []info {\n\tinfos := []info{}\n"
            "\tfor k := 0; k < 3; k++ {\n\t\tname := fieldName(prefix, k)\n\t\tinfos = append(infos, info{Name: name, Key: prefix + name})\n"
            "\t}\n\treturn infos\n}\n\n"
            "func fieldName(prefix string, k int) string {\n\treturn prefix + string(rune(k))\n}\n\n"
            "func processField(value string, name string) {\n\tv := parseValue(value)\n\tstore(name, v)\n}\n\n"
            "func parseValue(value string) int {\n\tn := 0\n\tfor _, c := range value {\n\t\tn = n*10 + int(c-'0')\n\t}\n"
            "\treturn n\n}\n\nfunc store(name string, v int) {\n\ttable[name] = v\n}\n\nvar table = map[string]int{}\n")
    readme = "# conf\n\nEnvironment to struct.\n\n```go\nerr := conf.Process(\"app\", &spec)\n```\n"
    p = load(_write(tmp_path / "repo", {"README.md": readme, "go.mod": "module example.com/conf\n", "conf.go": code}))
    path = central_path(p, entry_points(p))
    assert [s.name for s in path][:2] == ["Process", "processField"], [s.name for s in path]
    from orchestrator.authoring.path_steps import prepared

    prep = prepared(p, path[0], path[1], 12, path)
    assert prep is not None and (prep[0].name, prep[1]) == ("gatherInfo", 10), prep
    walk = _walk(p)
    step1 = next(ln for ln in walk.splitlines() if ln.startswith("1. "))
    assert "Before that, at line 10, it calls `gatherInfo`" in step1 and "(source:conf.go#L10-L10)" in step1, step1
    assert "checkSpec" not in walk
    _steps_hold(p, walk)
    from orchestrator.authoring.path_steps import sequence_diagram

    seq = sequence_diagram(p, path)
    assert seq.index("gatherInfo()") < seq.index("processField()"), seq
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from book_quality import traced_path  # (the figure issue 35 is measured by reads the step as it runs)

    assert traced_path("# ch\n\n## Following one call\n\n" + walk)[:3] == ["Process", "gatherInfo", "processField"]


def test_of_several_implementations_the_one_the_code_uses_by_default_is_the_way(tmp_path: Path):
    from orchestrator.authoring.hops import hops

    storages = ('"""Storages."""\nfrom abc import ABC, abstractmethod\n\n\nclass Storage(ABC):\n    @abstractmethod\n'
                '    def write(self, data):\n        """\n        Write the state.\n\n        :param data: the state.\n'
                '        """\n\n        raise NotImplementedError(\'To be overridden!\')  # pragma: no cover\n\n\n'
                'class JSONStorage(Storage):\n    def write(self, data):\n        self._handle.seek(0)\n'
                '        self._handle.write(str(data))\n        self._handle.flush()\n\n\n'
                'class MemoryStorage(Storage):\n    def write(self, data):\n        self.memory = data\n')
    database = ('"""The database.\n\n>>> db = Database(storage=MemoryStorage)\n"""\nfrom .storages import JSONStorage\n\n\n'
                'class Database:\n    default_storage_class = JSONStorage\n\n    def __init__(self, storage=None):\n'
                '        self._storage = (storage or self.default_storage_class)()\n')
    p = load(_write(tmp_path / "repo", {"README.md": "# db\n\nA database.\n", "db/__init__.py": "",
                                        "db/storages.py": storages, "db/database.py": database}))
    by = {s.dotted: s for s in p.symbols()}
    # `Storage.write` only declares (its docstring and a commented `raise NotImplementedError`); of its two
    # implementations, the code gives `JSONStorage` as its default (a docstring's `MemoryStorage` is no value)
    assert [(h.callee.dotted, h.how, h.via, h.tie) for h in hops(p, by["Storage.write"])] == \
        [("JSONStorage.write", "default", "Storage", ("db/database.py", 9))]


def test_the_calls_a_set_12_reading_showed_are_followed(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    # Python: a method's own object named `__self` (loguru's `def debug(__self, message)`: `__self._log(…)`)
    p = load(_write(tmp_path / "py", {"README.md": "# lg\n\nLogs.\n", "lg/__init__.py": "",
                                      "lg/logger.py": "class Logger:\n    def debug(__self, message):\n"
                                                      "        __self._log('DEBUG', message)\n\n"
                                                      "    def _log(self, level, message):\n        print(level, message)\n"}))
    debug = next(s for s in p.symbols() if s.dotted == "Logger.debug")
    assert [c.dotted for c in all_calls(p, debug)] == ["Logger._log"]

    # Ruby: a run written without parentheses on a block's end (optparse's `OptionParser.new do … end.parse!`)
    rb = ("class OptionParser\n  def on(*opts, &block)\n    define(opts, block)\n  end\n\n  def define(opts, block)\n"
          "    @stack << [opts, block]\n  end\n\n  def parse!(argv = ARGV)\n    parse_in_order(argv)\n  end\n\n"
          "  def parse_in_order(argv)\n    argv.each do |arg|\n      complete(arg)\n    end\n  end\n\n"
          "  def complete(arg)\n    @stack.find { |o, _b| o.include?(arg) }\n  end\nend\n")
    readme = ("# optparse\n\nOptions.\n\n```ruby\nrequire 'optparse'\n\noptions = {}\nOptionParser.new do |opts|\n"
              "  opts.on(\"-v\", \"--verbose\") do |v|\n    options[:verbose] = v\n  end\nend.parse!\n```\n")
    p = load(_write(tmp_path / "rb", {"README.md": readme, "lib/optparse.rb": rb}))
    assert _path(p)[:3] == ["OptionParser::parse!", "OptionParser::parse_in_order", "OptionParser::complete"], _path(p)

    # Go: a sub-package's function by its qualifier (zerolog's `log.Print(…)` with "github.com/rs/zerolog/log")
    # is that function, not a method of the same name; a call earlier on the hand-off's line is the work before it
    root = ("package zerolog\n\ntype Logger struct {\n\tlevel int\n}\n\ntype Event struct {\n\tbuf []byte\n}\n\n"
            "func (l Logger) Print(v string) {\n\tl.Debug().Msg(v)\n}\n\n"
            "func (l Logger) Debug() *Event {\n\treturn l.newEvent(l.level)\n}\n\n"
            "func (l Logger) newEvent(level int) *Event {\n\te := &Event{}\n\te.buf = append(e.buf, byte(level))\n"
            "\te.buf = append(e.buf, '{')\n\te.buf = append(e.buf, '\"')\n\treturn e\n}\n\n"
            "func (e *Event) Msg(msg string) {\n\te.msg(msg)\n}\n\n"
            "func (e *Event) msg(msg string) {\n\te.buf = append(e.buf, msg...)\n\te.write()\n}\n\n"
            "func (e *Event) write() {\n\tprintln(string(e.buf))\n\te.buf = e.buf[:0]\n}\n")
    sub = ("package log\n\nimport \"github.com/rs/zerolog\"\n\nvar Logger = zerolog.Logger{}\n\n"
           "func Print(v string) {\n\tLogger.Debug().Msg(v)\n}\n")
    readme = ("# zerolog\n\nLogs.\n\n```go\npackage main\n\nimport (\n    \"github.com/rs/zerolog/log\"\n)\n\n"
              "func main() {\n    log.Print(\"hello world\")\n}\n```\n")
    p = load(_write(tmp_path / "go", {"README.md": readme, "go.mod": "module github.com/rs/zerolog\n",
                                      "log.go": root, "event.go": "package zerolog\n", "log/log.go": sub}))
    path = central_path(p, entry_points(p))
    assert [s.dotted for s in path][:4] == ["Print", "Event.Msg", "Event.msg", "Event.write"], [s.dotted for s in path]
    assert path[0].rel == "log/log.go"
    from orchestrator.authoring.path_steps import prepared

    assert prepared(p, path[0], path[1], 8, path) == (next(s for s in p.symbols() if s.dotted == "Logger.Debug"), 8)


def test_a_typescript_function_that_declares_its_this_calls_the_function_a_class_field_holds(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    # eta's `handleCache(this: Eta, …)` calls `this.compile(…)`, and `class Eta` holds `compile = compile;`
    core = ("import { compile } from \"./compile.ts\";\nimport { render } from \"./render.ts\";\n\n"
            "export class Eta {\n  compile = compile;\n  render = render;\n}\n")
    comp = "import type { Eta } from \"./core.ts\";\n\nexport function compile(this: Eta, str: string): string {\n  return str.trim();\n}\n"
    rend = ("import type { Eta } from \"./core.ts\";\n\nexport function render(this: Eta, template: string): string {\n"
            "  return this.compile(template);\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": "# eta\n\nTemplates.\n", "package.json": "{\"name\": \"eta\"}\n",
                                        "src/core.ts": core, "src/compile.ts": comp, "src/render.ts": rend}))
    render = next(s for s in p.symbols() if s.dotted == "render")
    assert [(c.dotted, c.rel) for c in all_calls(p, render)] == [("compile", "src/compile.ts")]


def test_a_typescript_example_that_hands_a_struct_it_built_to_a_function_follows_that_function(tmp_path: Path):
    # superstruct: `const Article = object({…})` (overloads declare `Struct<…>`, the body `any`), then
    # `assert(data, Article)`; `import { run } from './utils.js'` is utils.ts, and `validate` hands to it
    struct = ("import { run } from './utils.js'\n\nexport class Struct<T> {\n  schema: T\n}\n\n"
              "export function assert(value: unknown, struct: Struct<unknown>): void {\n  const result = validate(value, struct)\n"
              "  if (result[0]) {\n    throw result[0]\n  }\n}\n\n"
              "export function validate(value: unknown, struct: Struct<unknown>): [Error | undefined, unknown] {\n"
              "  const tuples = run(value, struct)\n  return tuples[0]\n}\n")
    utils = ("export function run(value: unknown, struct: unknown): Array<[Error | undefined, unknown]> {\n"
             "  const out = []\n  for (const k of Object.keys(value as object)) {\n    out.push(check(k, struct))\n  }\n"
             "  return out\n}\n\nfunction check(k: string, struct: unknown): [Error | undefined, unknown] {\n"
             "  const kind = typeof struct\n  const good = kind === 'object'\n  const seen = [k, kind]\n"
             "  return [good ? undefined : new Error(k), seen]\n}\n")
    types = ("import { Struct } from './struct.js'\n\nexport function object(): Struct<null>\n"
             "export function object<S>(\n  schema: S\n): Struct<S>\nexport function object<S>(schema?: S): any {\n"
             "  return new Struct()\n}\n")
    readme = ("# superstruct\n\nData.\n\n```ts\nimport { assert, object } from 'superstruct'\n\n"
              "const Article = object({\n  id: 1,\n})\n\nassert(data, Article)\n```\n")
    p = load(_write(tmp_path / "repo", {"Readme.md": readme, "package.json": "{\"name\": \"superstruct\"}\n",
                                        "src/struct.ts": struct, "src/utils.ts": utils, "src/types.ts": types}))
    assert _path(p)[:3] == ["assert", "validate", "run"], _path(p)


def test_a_branch_on_a_setting_that_holds_every_call_is_the_bodys_way(tmp_path: Path):
    # eta's `handleCache` does all its work under `if (this.resolvePath && this.readFile)`: that is its way;
    # `compile` runs `this.compileToString.call(this, …)`, which first runs `this.parse.call(this, str)`
    core = ("import { compile } from \"./compile.ts\";\nimport { compileToString } from \"./compile-string.ts\";\n"
            "import { parse } from \"./parse.ts\";\n\nexport class Eta {\n  resolvePath = null;\n  compile = compile;\n"
            "  compileToString = compileToString;\n  parse = parse;\n}\n")
    render = ("import type { Eta } from \"./core.ts\";\n\nexport function render(this: Eta, template: string): string {\n"
              "  if (this.resolvePath) {\n    const fn = this.compile(template);\n    return fn;\n  } else {\n"
              "    throw new EtaError(template);\n  }\n}\n")
    comp = ("import type { Eta } from \"./core.ts\";\n\nexport function compile(this: Eta, str: string): string {\n"
            "  const out = this.compileToString.call(this, str);\n  return out;\n}\n")
    cstr = ("import type { Eta } from \"./core.ts\";\n\nexport function compileToString(this: Eta, str: string): string {\n"
            "  const buffer = this.parse.call(this, str);\n  return compileBody.call(this, buffer);\n}\n\n"
            "export function compileBody(this: Eta, buffer: string[]): string {\n  let res = '';\n"
            "  for (const b of buffer) {\n    res += b;\n    res += ';';\n  }\n  return res;\n}\n")
    parse = ("import type { Eta } from \"./core.ts\";\n\nexport function parse(this: Eta, str: string): string[] {\n"
             "  const parts = str.split('{{');\n  const out = [];\n  for (const part of parts) {\n    out.push(part.trim());\n"
             "    out.push('');\n  }\n  return out;\n}\n")
    err = "export class EtaError extends Error {\n  constructor(m: string) {\n    super(m);\n  }\n}\n"
    readme = "# eta\n\nTemplates.\n\n```ts\nimport { Eta } from \"eta\";\nconst eta = new Eta();\neta.render(\"./t\", {});\n```\n"
    p = load(_write(tmp_path / "repo", {"README.md": readme, "package.json": "{\"name\": \"eta\"}\n", "src/core.ts": core,
                                        "src/render.ts": render, "src/compile.ts": comp, "src/compile-string.ts": cstr,
                                        "src/parse.ts": parse, "src/err.ts": err}))
    path = central_path(p, entry_points(p))
    assert [s.name for s in path][:4] == ["render", "compile", "compileToString", "compileBody"], [s.name for s in path]
    walk = _walk(p)
    assert "`parse`" in next(ln for ln in walk.splitlines() if ln.startswith("3. ")), walk


def test_the_readmes_opening_block_is_its_first_example_before_a_later_another_example(tmp_path: Path):
    # moshi: the README shows its use under its title, and again much later under "Another example"
    readme = ("Kv\n===\n\nA store.\n\n```python\nimport kv\nstore = kv.open('db')\nstore.put('a', 1)\n```\n\n"
              "### Custom codecs\n\nText.\n\n#### Another example\n\n```python\nimport kv\n"
              "codec = kv.Codec('utf-8')\n```\n")
    code = ("class Codec:\n    def __init__(self, name):\n        self.name = name\n\n\nclass Store:\n"
            "    def put(self, k, v):\n        return (k, v)\n\n\ndef open(path):\n    return Store()\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "kv/__init__.py": code}))
    ex = first_example(p, {"open", "Store", "Codec", "put"})
    assert ex is not None and ex.first == 7, ex
    # a block under a heading of its own is not the opening: the "Example" section still wins over it
    later = readme.replace("A store.\n\n", "A store.\n\n## Codecs\n\n").replace("#### Another example", "## Example")
    ex = first_example(load(_write(tmp_path / "repo2", {"README.md": later, "kv/__init__.py": code})),
                       {"open", "Store", "Codec", "put"})
    assert ex is not None and "Codec('utf-8')" in ex.code, ex


_FEIGN = {
    "README.md": ("# Feign\n\nMakes HTTP clients.\n\n## Usage\n\n### Basics\n\n```java\npublic class MyApp {\n"
                  "  public static void main(String... args) {\n    GitHub github = Feign.builder()\n"
                  "                         .decoder(new Object())\n"
                  "                         .target(GitHub.class, \"https://api.github.com\");\n"
                  "    github.contributors(\"OpenFeign\", \"feign\");\n  }\n}\n```\n\n"
                  "## Examples\n\n```java\nObject d = new Object();\nFeign.builder().decoder(d);\n```\n"),
    "core/src/main/java/f/Feign.java": (
        "package f;\n\npublic abstract class Feign {\n  public static Builder builder() {\n    return new Builder();\n  }\n\n"
        "  public abstract <T> T newInstance(Target<T> target);\n\n"
        "  public static class Builder extends BaseBuilder<Builder, Feign> {\n"
        "    public <T> T target(Class<T> apiType, String url) {\n      return target(new Target<T>(apiType, url));\n    }\n\n"
        "    public <T> T target(Target<T> target) {\n      return build().newInstance(target);\n    }\n\n"
        "    @Override\n    public Feign internalBuild() {\n      return new ReflectiveFeign(decoder);\n    }\n  }\n}\n"),
    "core/src/main/java/f/BaseBuilder.java": (
        "package f;\n\npublic abstract class BaseBuilder<B extends BaseBuilder<B, T>, T> {\n  protected Object decoder;\n\n"
        "  public B decoder(Object decoder) {\n    this.decoder = decoder;\n    return thisB();\n  }\n\n"
        "  B thisB() {\n    return (B) this;\n  }\n\n"
        "  public final T build() {\n    enrich();\n    return internalBuild();\n  }\n\n"
        "  void enrich() {\n    for (int i = 0; i < 3; i++) {\n      check(i);\n      check(i + 1);\n    }\n  }\n\n"
        "  void check(int i) {\n    if (i < 0) {\n      throw new IllegalStateException(\"negative\");\n    }\n  }\n\n"
        "  protected abstract T internalBuild();\n}\n"),
    "core/src/main/java/f/Target.java": (
        "package f;\n\npublic class Target<T> {\n  final Class<T> type;\n\n  public Target(Class<T> type, String url) {\n"
        "    this.type = type;\n  }\n}\n"),
    "core/src/main/java/f/ReflectiveFeign.java": (
        "package f;\n\npublic class ReflectiveFeign extends Feign {\n  ReflectiveFeign(Object decoder) {\n  }\n\n"
        "  public <T> T newInstance(Target<T> target) {\n    return newInstance(target, null);\n  }\n\n"
        "  public <T> T newInstance(Target<T> target, Object context) {\n    Handler h = new Handler();\n"
        "    h.bind(target);\n    h.verify(target);\n    return h.proxy(target);\n  }\n}\n"),
    "core/src/main/java/f/Handler.java": (
        "package f;\n\npublic class Handler {\n  void bind(Object t) {\n    verify(t);\n  }\n\n"
        "  void verify(Object t) {\n    if (t == null) {\n      throw new IllegalArgumentException(\"t\");\n    }\n  }\n\n"
        "  <T> T proxy(Target<T> target) {\n    bind(target);\n    verify(target);\n    return null;\n  }\n}\n"),
    "vertx/src/main/java/f/vertx/VertxFeign.java": (
        "package f.vertx;\n\nimport f.Feign;\nimport f.Target;\n\npublic final class VertxFeign extends Feign {\n"
        "  public <T> T newInstance(Target<T> target) {\n    return null;\n  }\n}\n"),
}


def test_a_builders_chain_runs_its_last_link_and_an_abstract_step_goes_on_in_the_implementation_the_code_makes(tmp_path: Path):
    # feign: the README's "Basics" (a section of "Usage") is its first example, before a later "Examples";
    # `Feign.builder().decoder(…).target(…)` runs `target`; `build()`, inherited from `BaseBuilder<Builder, Feign>`
    # and declared `T`, gives a `Feign`, whose abstract `newInstance` is `ReflectiveFeign`'s (the one
    # `internalBuild` makes; `newInstance(target, context)` is another overload, not an override)
    p = load(_write(tmp_path / "repo", _FEIGN))
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.first == 10, ex
    from orchestrator.authoring.facts import all_calls

    target = next(s for s in p.symbols() if s.dotted == "Feign.Builder.target" and s.d.start_line == 15)
    assert [c.dotted for c in all_calls(p, target)] == ["BaseBuilder.build", "Feign.newInstance"]
    path = _path(p)
    assert path[:3] == ["Feign.Builder.target", "Feign.newInstance", "ReflectiveFeign.newInstance"], path


def test_csharp_overloads_by_defaults_params_var_and_the_instance_a_value_calls(tmp_path: Path):
    # CommandLineUtils: `Execute<TApp>(args)` → `ExecuteAsync<TApp>(console, args)` (a `params` array) →
    # `ExecuteAsync<TApp>(context)`, whose `var context = new DefaultContext(…)` is a `Context` (`: Context`)
    # and whose second parameter has a default → `app.ExecuteAsync(…)`, on a value: the instance's method
    code = (
        "namespace Cli\n{\n    public class Context\n    {\n    }\n\n    public class DefaultContext : Context\n    {\n"
        "        public DefaultContext(object console, string[] args)\n        {\n        }\n    }\n\n"
        "    public class App\n    {\n"
        "        public static int Execute<TApp>(params string[] args)\n        {\n"
        "            return ExecuteAsync<TApp>(Console.Out, args).Result;\n        }\n\n"
        "        public static Task<int> ExecuteAsync<TApp>(object console, params string[] args)\n        {\n"
        "            var context = new DefaultContext(console, args);\n            return ExecuteAsync<TApp>(context);\n        }\n\n"
        "        public static Task<int> ExecuteAsync<TApp>(string[] args, int timeout = 0)\n        {\n"
        "            return Task.FromResult(0);\n        }\n\n"
        "        public static async Task<int> ExecuteAsync<TApp>(Context context, int timeout = 0)\n        {\n"
        "            var app = new App();\n            return await app.ExecuteAsync(new string[0], timeout);\n        }\n\n"
        "        public async Task<int> ExecuteAsync(string[] args, int timeout = 0)\n        {\n"
        "            var n = Parse(args);\n            return await Task.FromResult(n);\n        }\n\n"
        "        public int Parse(string[] args)\n        {\n            return args.Length;\n        }\n    }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/Cli/App.cs": code, "src/Cli/Cli.csproj": "<Project></Project>\n"}))
    from orchestrator.authoring.facts import all_calls

    def calls(line: int) -> list[tuple[str, int]]:
        s = next(x for x in p.symbols() if x.d.start_line == line)
        return [(c.dotted, c.d.start_line) for c in all_calls(p, s) if c.short == "ExecuteAsync"]

    assert calls(21) == [("App.ExecuteAsync", 32)]  # (context) is the Context overload, its timeout left to its default
    assert calls(32) == [("App.ExecuteAsync", 38)]  # app.ExecuteAsync(…): the instance's, not a static one
    assert calls(16) == [("App.ExecuteAsync", 21)]  # (console, args): the `params` overload


def test_a_readme_that_sends_its_reader_to_another_readme_is_followed_before_the_other_guides(tmp_path: Path):
    # mustermann: the root README names `mustermann/README.md` ("probably what you're looking for") before the
    # contrib gem's README, and shows no example itself
    readme = ("# Kv\n\nTwo gems:\n\n* [kv](https://github.com/o/kv/blob/main/kv/README.md): the store.\n"
              "* [kv-contrib](kv-contrib/README.md): extras.\n")
    files = {"README.md": readme,
             "kv/README.md": "# kv\n\n```ruby\nstore = Kv.open('db')\nstore.put('a', 1)\n```\n",
             "kv-contrib/README.md": "# kv-contrib\n\n```ruby\nKv::Extra.dump('db')\n```\n",
             "kv/lib/kv.rb": "module Kv\n  def self.open(path)\n    Store.new\n  end\n\n  class Store\n"
                             "    def put(k, v)\n      [k, v]\n    end\n  end\nend\n",
             "kv-contrib/lib/kv/extra.rb": "module Kv\n  module Extra\n    def self.dump(path)\n      path\n    end\n  end\nend\n"}
    p = load(_write(tmp_path / "repo", files))
    ex = first_example(p, {"open", "Store", "put", "dump", "Extra"})
    assert ex is not None and ex.rel == "kv/README.md", ex


def test_a_python_class_made_through_its_module_runs_its_init_when_that_does_the_work(tmp_path: Path):
    # pyflakes: `check` makes `checker.Checker(tree, …)` (`from pyflakes import checker`), whose `__init__` walks the tree
    files = {
        "README.md": "# lint\n\n```python\nfrom lint.api import check\ncheck('x = 1', 'x.py')\n```\n",
        "lint/__init__.py": "",
        "lint/api.py": ("from lint import checker\n\n\ndef check(code, filename):\n    tree = compile(code, filename, 'exec')\n"
                        "    w = checker.Checker(tree, filename=filename)\n    return len(w.messages)\n"),
        "lint/checker.py": (
            "class Checker:\n    def __init__(self, tree, filename='(none)'):\n        self.messages = []\n"
            "        self.filename = filename\n        self.scope = {}\n        self.deferred = []\n"
            "        self.handleChildren(tree)\n        self.runDeferred()\n\n"
            "    def handleChildren(self, tree):\n        for node in tree.body:\n            self.handleNode(node, tree)\n"
            "            self.handleNode(node, None)\n\n"
            "    def handleNode(self, node, parent):\n        if node is None:\n            return\n"
            "        self.messages.append((node, parent))\n        self.scope[id(node)] = parent\n"
            "        self.deferred.append(node)\n        self.report(node)\n\n"
            "    def report(self, node):\n        print(node)\n\n"
            "    def runDeferred(self):\n        self.deferred = []\n"),
    }
    p = load(_write(tmp_path / "repo", files))
    path = _path(p)
    assert path[:3] == ["check", "Checker.__init__", "Checker.handleChildren"], path


def test_of_two_types_of_one_name_in_two_crates_the_callers_own_is_meant(tmp_path: Path):
    # env_logger: `Builder::from_env(env)` in src/logger.rs is its own `Builder`, not env_filter's (crates/env_filter)
    files = {
        "Cargo.toml": "[package]\nname = \"elog\"\n",
        "src/lib.rs": "mod logger;\npub use logger::try_init;\n",
        "src/logger.rs": (
            "pub struct Builder {\n    n: u32,\n}\n\nimpl Builder {\n    pub fn from_env(env: &str) -> Self {\n"
            "        let mut builder = Builder { n: 0 };\n        builder.parse_env(env);\n        builder\n    }\n\n"
            "    fn parse_env(&mut self, env: &str) {\n        self.n = env.len() as u32;\n    }\n\n"
            "    pub fn try_init(&mut self) -> bool {\n        self.n > 0\n    }\n}\n\n"
            "pub fn try_init() -> bool {\n    let mut builder = Builder::from_env(\"RUST_LOG\");\n    builder.try_init()\n}\n"),
        "crates/env_filter/Cargo.toml": "[package]\nname = \"env_filter\"\n",
        "crates/env_filter/src/lib.rs": (
            "pub struct Builder {\n    d: Vec<u8>,\n}\n\nimpl Builder {\n    pub fn from_env(env: &str) -> Builder {\n"
            "        Builder { d: env.as_bytes().to_vec() }\n    }\n\n"
            "    pub fn try_init(&mut self) -> bool {\n        self.d.is_empty()\n    }\n}\n"),
    }
    p = load(_write(tmp_path / "repo", files))
    from orchestrator.authoring.facts import all_calls

    s = next(x for x in p.symbols() if x.dotted == "try_init" and x.rel == "src/logger.rs")
    assert [(c.dotted, c.rel) for c in all_calls(p, s)] == [("Builder.from_env", "src/logger.rs"),
                                                           ("Builder.try_init", "src/logger.rs")]


def test_a_readmes_call_on_a_type_starts_at_that_types_method_and_an_interfaces_overload_finds_its_own(tmp_path: Path):
    # Handlebars.Net: `Handlebars.Compile(source)` is the facade's `Compile`, not the entry point
    # `HandlebarsCompiler.Compile` of the same name; the facade's `Instance.Compile(template)` is
    # `IHandlebars.Compile(string)`, whose one implementation is `HandlebarsEnvironment.Compile(string)`,
    # not its `Compile(TextReader)` overload
    code = {
        "src/Hb/Handlebars.cs": (
            "namespace Hb\n{\n    public static class Handlebars\n    {\n        private static IHandlebars Instance => new HandlebarsEnvironment();\n\n"
            "        public static Template Compile(string template)\n        {\n            return Instance.Compile(template);\n        }\n    }\n}\n"),
        "src/Hb/IHandlebars.cs": (
            "namespace Hb\n{\n    public interface IHandlebars\n    {\n        Template Compile(TextReader template);\n\n"
            "        Template Compile(string template);\n    }\n}\n"),
        "src/Hb/HandlebarsEnvironment.cs": (
            "namespace Hb\n{\n    internal class HandlebarsEnvironment : IHandlebars\n    {\n"
            "        public Template Compile(TextReader template)\n        {\n            return null;\n        }\n\n"
            "        public Template Compile(string template)\n        {\n            var compiler = new HandlebarsCompiler();\n"
            "            return compiler.Compile(template);\n        }\n    }\n}\n"),
        "src/Hb/HandlebarsCompiler.cs": (
            "namespace Hb\n{\n    public class HandlebarsCompiler\n    {\n        public Template Compile(string source)\n        {\n"
            "            var tokens = Tokenize(source);\n            return Build(tokens);\n        }\n\n"
            "        private string[] Tokenize(string source)\n        {\n            return source.Split(' ');\n        }\n\n"
            "        private Template Build(string[] tokens)\n        {\n            return new Template(tokens);\n        }\n    }\n}\n"),
        "src/Hb/Template.cs": "namespace Hb\n{\n    public class Template\n    {\n        public Template(string[] t)\n        {\n        }\n    }\n}\n",
        "src/Hb/Hb.csproj": "<Project></Project>\n",
        "README.md": "# Hb\n\n```csharp\nstring source = \"<p>{{title}}</p>\";\nvar template = Handlebars.Compile(source);\n"
                     "var result = template(new { title = \"x\" });\n```\n",
    }
    p = load(_write(tmp_path / "repo", code))
    assert _path(p)[:4] == ["Handlebars.Compile", "IHandlebars.Compile", "HandlebarsEnvironment.Compile",
                            "HandlebarsCompiler.Compile"], _path(p)


def test_a_long_block_of_helpers_and_a_main_that_runs_quotes_the_main(tmp_path: Path):
    # kotlinx-cli: forty lines of helpers with `...` bodies, then `fun main(…)` that builds the parser and runs `parse`
    helpers = "".join(f"fun helper{k}(x: String): String {{\n    ...\n}}\n\n" for k in range(10))
    block = ("import cli.*\n\n" + helpers + "fun main(args: Array<String>) {\n    val parser = ArgParser(\"example\")\n"
             "    val input by parser.option(\"i\")\n    parser.parse(args)\n    println(input)\n}\n")
    readme = "# cli\n\n```kotlin\n" + block + "```\n"
    code = ("package cli\n\nclass ArgParser(val name: String) {\n    fun option(short: String): String {\n        return short\n    }\n\n"
            "    fun parse(args: Array<String>) {\n        for (a in args) {\n            save(a)\n        }\n    }\n\n"
            "    private fun save(a: String) {\n        println(a)\n    }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "src/main/kotlin/cli/ArgParser.kt": code}))
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.code.startswith("fun main(") and ex.code.endswith("}") and "parser.parse(args)" in ex.code, ex
    assert ex.first == 4 + block.split("\n").index("fun main(args: Array<String>) {"), ex
