"""Reading a model's JSON answer against a contract, with the path of every bad field.

Structured outputs constrain the *shape* of the answer; these readers also check what a JSON
Schema accepted by the API cannot say (no `pattern`, `minimum`, `minLength` there): chapter
ids, check ids, line ranges, non-empty text. Each error names the field's path, `$.findings[2]
.severity`, so the re-ask tells the model exactly what to fix."""

from __future__ import annotations

import json
import re
from typing import Any

from ..steps import AUDIT, FINAL, PANEL, R1, R2, R3, REVIEW
from .errors import ContractError
from .mdtext import normalise_block

CHAPTER_RE = re.compile(r"^ch\d{2,}$")
SEVERITIES = ("blocking", "major", "minor")
# A check id: a family and a name (`r1.code`, `r2.glossary`, `audit.link`) or `person` for a
# finding a person wrote without one. The family list keeps a bare word in a person's prose
# (`os.path`) from being read as a check id.
CHECK_FAMILIES = (R1, R2, R3, REVIEW, PANEL, FINAL, AUDIT, "editor")
CHECK_RE = re.compile(r"^(?:(?:" + "|".join(CHECK_FAMILIES) + r")\.[a-z][a-z0-9_-]*|person)$")


def load(obj: Any, what: str) -> Any:
    """The decoded answer: a dict as is, a str decoded as JSON (an error says where it broke)."""
    if isinstance(obj, (str, bytes)):
        if isinstance(obj, bytes):
            obj = obj.decode("utf-8", "replace")
        # Structured outputs give bare JSON; a provider without them (or a fake API) may fence it.
        m = re.fullmatch(r"\s*```(?:json)?[ \t]*\n(.*?)\n```\s*", obj, re.S)
        if m:
            obj = m.group(1)
        try:
            return json.loads(obj)
        except json.JSONDecodeError as e:
            raise ContractError(f"the {what} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}",
                                path="$") from None
    return obj


def one_line(s: str) -> str:
    """Text that must fit on one Markdown line: line breaks become spaces, ends trimmed."""
    return re.sub(r"\s*[\r\n]+\s*", " ", s).strip()


class Reader:
    """A cursor on one JSON object with its path, for precise error messages."""

    def __init__(self, obj: Any, path: str = "$"):
        self.path = path
        if not isinstance(obj, dict):
            raise ContractError(f"expected an object, found {_kind(obj)}", path=path)
        self.obj = obj
        self._seen: set[str] = set()

    def fail(self, key: str | None, problem: str) -> ContractError:
        return ContractError(problem, path=self.path + (f".{key}" if key else ""))

    def _get(self, key: str, required: bool) -> Any:
        self._seen.add(key)
        if key not in self.obj or self.obj[key] is None:
            if required:
                raise self.fail(key, "this field is required")
            return None
        return self.obj[key]

    def text(self, key: str, *, required: bool = True, line: bool = False, empty: bool = False) -> str:
        v = self._get(key, required)
        if v is None:
            return ""
        if not isinstance(v, str):
            raise self.fail(key, f"expected a string, found {_kind(v)}")
        v = one_line(v) if line else normalise_block(v)
        if not v and not empty and required:
            raise self.fail(key, "must not be empty")
        return v

    def integer(self, key: str, *, required: bool = True, low: int = 0, high: int | None = None) -> int | None:
        v = self._get(key, required)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                raise self.fail(key, f"expected a whole number, found {_kind(v)}")
        if v < low or (high is not None and v > high):
            raise self.fail(key, f"{v} is out of range ({low}..{high if high is not None else 'any'})")
        return v

    def choice(self, key: str, options: tuple[str, ...], *, required: bool = True) -> str:
        v = self.text(key, required=required, line=True)
        if v == "" and not required:
            return ""
        if v.lower() not in options:
            raise self.fail(key, f"{v!r} is not one of {', '.join(options)}")
        return v.lower()

    def items(self, key: str, *, required: bool = True) -> list[tuple[str, Any]]:
        """(path, item) for each element of an array field."""
        v = self._get(key, required)
        if v is None:
            return []
        if not isinstance(v, list):
            raise self.fail(key, f"expected an array, found {_kind(v)}")
        return [(f"{self.path}.{key}[{i}]", x) for i, x in enumerate(v)]

    def strings(self, key: str, *, required: bool = True, line: bool = True) -> tuple[str, ...]:
        out = []
        for path, x in self.items(key, required=required):
            if not isinstance(x, str):
                raise ContractError(f"expected a string, found {_kind(x)}", path=path)
            x = one_line(x) if line else normalise_block(x)
            if not x:
                raise ContractError("must not be empty", path=path)
            out.append(x)
        return tuple(out)

    def done(self) -> None:
        """No fields beyond the schema's (the schema says `additionalProperties: false`)."""
        extra = sorted(set(self.obj) - self._seen)
        if extra:
            raise self.fail(extra[0], "unknown field (not in the schema)")


def _kind(v: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


# ---------------------------------------------------------------- JSON Schema builders
# Only what the API's structured outputs accept (see schemas.py): types, enum, properties,
# required, additionalProperties: false on every object, items, description.

def s_obj(props: dict[str, dict], required: list[str], description: str = "") -> dict:
    out: dict[str, Any] = {"type": "object"}
    if description:
        out["description"] = description
    out["properties"] = props
    out["required"] = required
    out["additionalProperties"] = False
    return out


def s_str(description: str, enum: tuple[str, ...] | None = None) -> dict:
    return {"enum": list(enum), "description": description} if enum else {"type": "string", "description": description}


def s_int(description: str) -> dict:
    return {"type": "integer", "description": description}


def s_arr(items: dict, description: str) -> dict:
    return {"type": "array", "description": description, "items": items}
