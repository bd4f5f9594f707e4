"""Writes and deletes confined to an output folder (issue 33).

A command that writes into a folder the user names (``report --out``,
``codegen --out``) touches only the files it wrote there itself, and never
through a symbolic link: a link anywhere below the folder could point a write
or a delete at the user's own files elsewhere.  `inside` checks one path
before it is written or removed; `Manifest` remembers what we wrote (name and
SHA-256 of the text), so a file of the user's -- or one of ours the user has
since edited -- is never overwritten unless ``--force`` says so.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .numeric.errors import InvalidInput


def inside(out: Path, rel: str, argument: str = "--out") -> Path:
    """``out / rel`` after checking that no component below ``out`` (the
    target included) is a symbolic link and that it resolves inside ``out``;
    `InvalidInput` naming ``argument`` otherwise.  (``out`` itself may be a
    link: it is the folder the user named.)

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.symlink("/tmp", os.path.join(d, "figures"))
    ...     try:
    ...         inside(Path(d), "figures/a.png")
    ...     except InvalidInput as exc:
    ...         print(exc.rule)
    figures is a symbolic link; refusing to write or delete through it
    """
    out = Path(out)
    parts = Path(rel).parts
    if Path(rel).is_absolute() or ".." in parts:
        raise InvalidInput(argument, f"{rel} is not a path inside the output folder", value=str(out))
    here = out
    for i, part in enumerate(parts):
        here = here / part
        if here.is_symlink():
            raise InvalidInput(argument, f"{Path(*parts[:i + 1])} is a symbolic link; refusing to write or delete "
                                         "through it", value=str(out))
    root = out.resolve()
    if not (root == here.resolve() or root in here.resolve().parents):
        raise InvalidInput(argument, f"{rel} resolves outside the output folder", value=str(out))
    return here


def require_folder_path(out: Path, argument: str = "--out") -> Path:
    """``out`` as a folder to write into: an existing folder, or a path whose
    nearest existing ancestor is a folder (it will be created); anything else
    is one `InvalidInput` line naming ``argument`` (not an OS error about a
    path we made up).

    >>> try:
    ...     require_folder_path(Path("/dev/null/rep"))
    ... except InvalidInput as exc:
    ...     print(exc)
    --out: cannot create a folder under /dev/null: not a folder (got '/dev/null/rep')
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInput(argument, "must be a folder (or a path to create), not a file or device", value=str(out))
    ancestor = next((p for p in out.absolute().parents if p.exists()), None)
    if not out.exists() and ancestor is not None and not ancestor.is_dir():
        raise InvalidInput(argument, f"cannot create a folder under {ancestor}: not a folder", value=str(out))
    return out


def sha256_text(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8 (what the manifest records)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Manifest:
    """``NAME`` in an output folder: ``{"generator": ..., "files": {rel: sha256}}``
    of the files a generator wrote there.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     m = Manifest(Path(d), ".m.json", "demo")
    ...     _ = (Path(d) / "mine.c").write_text("int x;")
    ...     m.foreign(["mine.c"])               # exists, never written by us
    ...     _ = (Path(d) / ".m.json").write_text(m.text({"mine.c": "int x;"}))
    ...     Manifest(Path(d), ".m.json", "demo").foreign(["mine.c", "new.c"])  # ours now; new.c does not exist
    ['mine.c']
    []
    """

    def __init__(self, out: Path, name: str, generator: str):
        self.out, self.name, self.generator = Path(out), name, generator
        self.files = self._read()

    def _read(self) -> dict[str, str]:
        path = inside(self.out, self.name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        files = data.get("files") if isinstance(data, dict) and data.get("generator") == self.generator else None
        if not isinstance(files, dict):
            return {}
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}

    def foreign(self, rels) -> list[str]:
        """Those of ``rels`` that exist in the folder but are not ours as we
        wrote them: never listed, or changed since (a user's edit)."""
        found = []
        for rel in rels:
            path = inside(self.out, rel)
            if not path.exists():
                continue
            try:
                current = sha256_text(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                current = None
            if self.files.get(rel) != current:
                found.append(rel)
        return found

    def text(self, written: dict[str, str]) -> str:
        """The manifest's text after writing ``written`` (rel -> text)."""
        files = {**self.files, **{rel: sha256_text(t) for rel, t in written.items()}}
        return json.dumps({"generator": self.generator, "files": dict(sorted(files.items()))}, indent=1) + "\n"
