"""A command-line tool's own command (issue 35): its README runs it in a shell (`$ bundle exec whenever`,
`$ whenever --update-crontab`), and the project's executable of that name (`bin/whenever`, `exe/rake`) is the code
that runs what the README's example sets up (whenever's `schedule.rb`): the main path starts where that script
hands the work to the project (`Whenever::CommandLine.execute(options)`)."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym, project_name

_SHELL_TAGS = frozenset({"sh", "shell", "bash", "console", "zsh", "shell-session", "terminal", ""})
# a command line, after a prompt and the runners that start a project's executable
_COMMAND = re.compile(r"[ \t]*(?:\$[ \t]*)?(?:sudo[ \t]+)?(?:bundle[ \t]+exec[ \t]+|npx[ \t]+|bin/|exe/|\./bin/)?([\w.-]+)(?=[ \t]|$)")


def executables(p: Project) -> dict[str, str]:
    """Command name → the project's script of that name in `bin/` or `exe/` (`bin/whenever`; `bin/cli.js` is
    `cli`), read by the map as code of the project's language."""
    out: dict[str, str] = {}
    for rel in p.code_files():
        parts = rel.split("/")
        if len(parts) == 2 and parts[0] in ("bin", "exe"):
            out.setdefault(posixpath.splitext(parts[1])[0], rel)
    return out


def command_script(p: Project, blocks: list[tuple[int, int, str, str]]) -> tuple[str, int, int, str, str] | None:
    """(file, first line, last line, language, code) of the project's executable a shell block of the README (its
    overview.code_blocks) runs: the one named as the project (whenever's `whenever`, not the `wheneverize` that writes
    a first schedule), else the first; None when it runs none."""
    scripts = executables(p)
    run = [c.group(1) for _a, _b, tag, code in blocks if scripts and tag.lower() in _SHELL_TAGS
           for line in code.splitlines() if (c := _COMMAND.match(line)) and c.group(1) in scripts]
    if not run:
        return None
    rel = p._keys[("command_script",)] = scripts[next((n for n in run if n.lower() == project_name(p.root).lower()), run[0])]
    lines = p.lines_of(rel)
    return rel, 1, len(lines), p.lang(rel) or "", "\n".join(lines).rstrip("\n")


def command_call(p: Project, first: Sym) -> tuple[str, int] | None:
    """(the script, its line) where the README's command (command_script, as the example's run) calls `first`, the
    main path's start; None when the example is run otherwise."""
    script = p._keys.get(("command_script",))
    if not script:
        return None
    at = [k for k, ln in enumerate(p.lines_of(script), 1)
          if re.search(rf"(?<![\w$]){re.escape(first.short)}\s*\(", ln) and not ln.lstrip().startswith("#")]
    return (script, at[-1]) if at else None
