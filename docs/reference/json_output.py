"""Render the JSON Schemas of crawlmath/schemas/ as docs/reference/json-output.md.

    python docs/reference/json_output.py           # rewrite the page
    python docs/reference/json_output.py --check   # exit 1 if the page is stale

The schema files are the definition (the tests validate real outputs against
them); this page is their plain-Markdown rendering: one table per output, a
row per key with its type, whether it is always present or conditional (the meaning says when), and its meaning.
"""
from __future__ import annotations

import json
import re
import sys
from importlib import resources
from pathlib import Path

PAGE = Path(__file__).with_name("json-output.md")
ORDER = ("static", "mdp", "bmap", "schedule", "colours", "ctmc", "avg-cost", "codegen", "report", "verify", "sweep",
         "sweep-record", "report-results", "verdicts")
HEAD = """# JSON output

Every subcommand prints one JSON document with `--json` (UTF-8, `indent=2`); nothing else goes to stdout.
Numbers are JSON numbers (IEEE doubles or integers); a value that is legitimately infinite (`K = inf`) is the
string `"inf"`; a NaN or infinite result is never printed (the run exits 3 instead). Under `--digits` the
high-precision values are decimal strings with that many significant digits. Every subcommand except `verify`
echoes its arguments as parsed under `inputs` (option names without dashes, `null` for an option not given,
`units` for the arguments with a unit). Rates are per unit of the model's own time.

The definitions are the JSON Schemas (draft 2020-12) installed with crawlmath in `crawlmath/schemas/`; the
tests validate real output against them, and this page is rendered from them by
`docs/reference/json_output.py` (a test fails when it is stale). To check your own output:

```python
import json
from importlib.resources import files
from jsonschema import validate   # a dependency of crawlmath

schema = json.loads((files("crawlmath") / "schemas" / "mdp.schema.json").read_text(encoding="utf-8"))
validate(json.load(open("out.json", encoding="utf-8")), schema)   # raises ValidationError with the key path
```
"""


def load(name: str) -> dict:
    return json.loads((resources.files("crawlmath") / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))


def prose(text: str) -> str:
    """Schema text as Markdown: option names as code, so that no typesetting turns ``--digits`` into a dash."""
    return re.sub(r"(?<![\w`-])(--[a-z][\w-]*)", r"`\1`", text)


def resolve(node: dict, root: dict) -> dict:
    """``node`` with a local ``$ref`` (``#/$defs/NAME``) followed: the target's keys, then the node's own
    (``properties`` and ``required`` merged, so a branch that adds a key keeps the target's)."""
    if "$ref" not in node:
        return node
    target = resolve(root["$defs"][node["$ref"].rsplit("/", 1)[1]], root)
    out = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    out["properties"] = {**target.get("properties", {}), **node.get("properties", {})}
    out["required"] = [*target.get("required", ()), *node.get("required", ())]
    return out


def type_text(node: dict, root: dict) -> str:
    """A short reading of a subschema: `integer ≥ 0`, `[decimal, decimal]`, `"exact" | "rvi"`, ..."""
    if "$ref" in node:  # a named definition: its name (a decimal string, a bmap row)
        name = node["$ref"].rsplit("/", 1)[1]
        return "decimal string" if name == "decimal" else name.removesuffix("_properties")
    node = resolve(node, root)
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(dict.fromkeys(type_text(s, root) for s in node[key]))
    kinds = node.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return " or ".join(_one_type(k, node, root) for k in kinds)


def _one_type(kind: str, node: dict, root: dict) -> str:
    if kind == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(type_text(s, root) for s in node["prefixItems"]) + "]"
        return "list of " + type_text(node["items"], root) if isinstance(node.get("items"), dict) else "list"
    if kind in ("integer", "number"):
        lo, hi = node.get("minimum"), node.get("maximum")
        if lo is not None and hi is not None:
            return f"{kind} in [{lo}, {hi}]"
        if lo is not None:
            return f"{kind} ≥ {lo}"
        if "exclusiveMinimum" in node:
            return f"{kind} > {node['exclusiveMinimum']}"
    return kind


def fields(node: dict, root: dict) -> tuple[dict, set]:
    """Properties (first description wins) and always-required keys of an object schema,
    gathered through ``$ref``, ``allOf`` and the branches of ``if``/``then``/``else``."""
    node = resolve(node, root)
    props, required = dict(node.get("properties", {})), set(node.get("required", ()))
    for part in node.get("allOf", ()):
        more, req = fields(part, root)
        required |= req
        for k, v in more.items():
            props.setdefault(k, v)
    for branch in ("then", "else"):
        for k, v in fields(node[branch], root)[0].items() if branch in node else ():
            props.setdefault(k, v)
    return props, required


def rows(node: dict, root: dict, prefix: str = "", required_here: bool = True):
    """(key path, type, always present?, meaning) for each property, nested objects one level down."""
    props, required = fields(node, root)
    for key, sub in props.items():
        target = resolve(sub, root)
        path = f"{prefix}{key}"
        always = required_here and key in required
        meaning = target.get("description", "")
        if key == "inputs" and "properties" in target:
            names = ", ".join(f"`{k}`" for k in target["properties"])
            yield path, "object", always, (meaning + ": " if meaning else "") + names
            continue
        yield path, type_text(sub, root), always, meaning
        members = target.get("oneOf", [sub])
        if not prefix and all("$ref" not in m and "properties" in m for m in members):
            for m in members:
                yield from rows(m, root, f"{path}.", always)


def table(node: dict, root: dict) -> list[str]:
    out = ["| key | type | present | meaning |", "|---|---|---|---|"]
    seen = set()
    for path, kind, always, meaning in rows(node, root):
        if path in seen:
            continue
        seen.add(path)
        meaning = prose(meaning).replace("|", "\\|")  # a bar would end the Markdown cell
        out.append(f"| `{path}` | {kind} | {'always' if always else 'conditional'} | {meaning} |")
    return out


def section(name: str) -> list[str]:
    root = load(name)
    out = [f"## {root['title']}", "", prose(root["description"]), "", f"Schema: `crawlmath/schemas/{name}.schema.json`.", ""]
    node = root["items"] if root.get("type") == "array" else root
    if "oneOf" in node:
        for part in node["oneOf"]:
            sub = part["$ref"].rsplit("/", 1)[1]
            target = resolve(part, root)
            out += [f"### {sub}", "", prose(target["description"])] if target.get("description") else [f"### {sub}"]
            out += [""] + table(part, root) + [""]
        return out
    return out + table(node, root) + [""]


def render() -> str:
    names = [p.name.removesuffix(".schema.json") for p in (resources.files("crawlmath") / "schemas").iterdir()
             if p.name.endswith(".schema.json")]
    missing = set(names) - set(ORDER)
    if missing:
        raise SystemExit(f"json_output.py: schemas not placed in ORDER: {sorted(missing)}")
    lines = [HEAD]
    for name in ORDER:
        lines += section(name)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is stale: run python docs/reference/json_output.py", file=sys.stderr)
            return 1
        return 0
    tmp = PAGE.with_name(PAGE.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(PAGE)  # atomic: a reader never sees half a page
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
