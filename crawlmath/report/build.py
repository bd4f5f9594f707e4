"""Collect registry results and figures, and write the report atomically.

`collect` runs the selected claims (and draws the figures) into a
`ReportData` (:mod:`crawlmath.report.data`); `build` renders it as ``index.html``, ``report.md``,
``results.json`` and ``figures/*.png`` in a temporary folder next to the
destination, then swaps it in file by file with atomic renames (see `_swap`),
so a failed or killed run leaves the previous report intact.  A manifest
(`MANIFEST`) marks the folder as ours and lists what we wrote: a folder
without one is never written into, and only listed files are ever removed.

The renderers (:mod:`crawlmath.report.html`, :mod:`crawlmath.report.markdown`)
read only :mod:`crawlmath.report.data`; this module imports them, never the
other way round.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import urllib.parse
from pathlib import Path

from ..numeric.errors import InvalidInput
from ..safe_paths import inside, require_folder_path
from ..proofs.registry import Claim, run as run_claims
from . import figures as figs, html, markdown
from .catalogue import all_figures
from .data import ReportData

REPORT_FILES = ("index.html", "report.md", "results.json")
FIGURE_DIR = "figures"


def collect(claims: list[Claim], *, figure_dir: Path | None = None, figure_specs: list[figs.FigureSpec] | None = None,
            selection: str = "all claims", progress=None, figure_progress=None) -> ReportData:
    """Run ``claims`` and, when ``figure_dir`` is given, draw into it the
    figures ``figure_specs`` (default: every figure of the papers concerned)."""
    results = run_claims(claims, progress)
    data = ReportData(results, selection=selection, figures_enabled=figure_dir is not None)
    if figure_dir is not None:
        specs = all_figures({c.paper for c in claims}) if figure_specs is None else figure_specs
        data.figures = figs.render_all(specs, figure_dir, figure_progress)
    return data


MANIFEST = ".crawlmath-report.json"  # marks a folder as ours and lists the files we wrote
TMP_TAG = "crawlmath-tmp"  # sibling build folders: .NAME.crawlmath-tmp-PID-XXXX
LEGACY_TMP = (".tmp-", ".old-")  # build/swap folders of earlier versions: .NAME.tmp-XXXX, .NAME.old-XXXX
LEGACY_AGE = 600.0  # seconds after which a legacy folder cannot belong to a running build


def read_manifest(out: Path) -> list[str] | None:
    """The relative paths a previous report in ``out`` wrote, or None when
    ``out`` holds no crawlmath manifest."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) and data.get("generator") == "crawlmath report" else None
    if not isinstance(files, list) or not all(isinstance(f, str) and _is_own_path(f) for f in files):
        return None
    return files


def _is_own_path(rel: str) -> bool:
    """A path we could have written: index.html, report.md, results.json or figures/NAME.png."""
    parts = Path(rel).parts
    return (len(parts) == 1 and parts[0] in REPORT_FILES) or (
        len(parts) == 2 and parts[0] == FIGURE_DIR and parts[1].endswith(".png") and not parts[1].startswith("."))


def check_destination(out: Path) -> None:
    """``out`` must be absent, an empty folder, or a previous report (it has
    our manifest); anything else is refused, so no file of the user's is touched."""
    require_folder_path(out)
    if out.is_dir() and any(out.iterdir()) and read_manifest(out) is None:
        raise InvalidInput("--out", f"is a non-empty folder that holds no previous report (no {MANIFEST}); "
                                    "refusing to write into it: choose a new or empty folder", value=str(out))
    if out.is_dir():
        _check_confined(out, read_manifest(out) or [])


def _check_confined(out: Path, rels) -> None:
    """No path we may write or delete in ``out`` goes through a symbolic link
    (a ``figures`` link to the user's folder would have us overwrite or
    delete the files there); `InvalidInput` before anything is touched."""
    for rel in [MANIFEST, *REPORT_FILES, FIGURE_DIR, *rels]:
        inside(out, rel)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_stale_temporaries(out: Path) -> list[Path]:
    """Remove our own leftover build folders next to ``out`` (from killed runs):
    ``.NAME.crawlmath-tmp-PID-*`` whose process is gone, and the legacy
    ``.NAME.tmp-*`` / ``.NAME.old-*`` older than `LEGACY_AGE`.  Returns them."""
    import time

    removed = []
    for p in out.parent.glob(f".{glob_escape(out.name)}.*"):
        rest = p.name[len(out.name) + 2:]
        stale = False
        if rest.startswith(TMP_TAG + "-"):
            pid = rest[len(TMP_TAG) + 1:].split("-", 1)[0]
            stale = pid.isdigit() and not _pid_alive(int(pid))
        elif rest.startswith(tuple(t[1:] for t in LEGACY_TMP)):
            try:
                stale = time.time() - p.stat().st_mtime > LEGACY_AGE
            except OSError:
                stale = False
        if stale and p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def glob_escape(name: str) -> str:
    """``name`` with the glob metacharacters ``*``, ``?`` and ``[`` bracketed, so a glob matches it literally."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def _write(path: Path, text: str) -> None:
    """A file written in full, fsync'ed, mode 0644."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(path, 0o644)


def _manifest_text(files: list[str]) -> str:
    return json.dumps({"generator": "crawlmath report", "files": sorted(set(files))}, indent=1) + "\n"


def docs_link(docs: Path, out: Path) -> str:
    """The docs site folder ``docs`` as a relative URL from the report folder ``out`` (both absolute).

    >>> docs_link(Path("/site"), Path("/site/report")), docs_link(Path("/repo/docs/_build/html"), Path("/repo/my report"))
    ('..', '../docs/_build/html')
    """
    return urllib.parse.quote(Path(os.path.relpath(docs, out)).as_posix())


def build(out: Path, claims: list[Claim], *, figures: bool = True, figure_specs: list[figs.FigureSpec] | None = None,
          selection: str = "all claims", progress=None, figure_progress=None, force: bool = False,
          docs: Path | None = None) -> ReportData:
    """Run, render and atomically (re)place the report in folder ``out``;
    ``force`` overwrites files there that no previous report wrote.  Each paper
    links to its page of the docs site in folder ``docs`` (default: the folder
    holding ``out``, i.e. the report written into the site as ``report/``)."""
    out = Path(out).absolute()
    check_destination(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.{TMP_TAG}-{os.getpid()}-"))
    try:
        data = collect(claims, figure_dir=tmp / FIGURE_DIR if figures else None, figure_specs=figure_specs,
                       selection=selection, progress=progress, figure_progress=figure_progress)
        data.docs = docs_link(out.parent if docs is None else Path(docs).absolute(), out)
        _write(tmp / "index.html", html.render(data))
        _write(tmp / "report.md", markdown.render(data))
        _write(tmp / "results.json", json.dumps(data.as_json(), indent=1, default=str))
        _swap(tmp, out, force)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return data


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def _swap(tmp: Path, out: Path, force: bool = False) -> None:
    """Put the report built in ``tmp`` in place with no moment where ``out``
    is missing or holds a partial report of unknown files.

    New folder: one rename.  Previous report: (1) the manifest is rewritten
    to list old and new files (so a kill at any later point leaves every file
    we wrote listed and removable by the next run); (2) each new file
    replaces its old version with an atomic ``os.replace``; (3) files of the
    old report that the new one lacks are removed -- only those its manifest
    lists, never anything else; (4) the manifest lists the new files."""
    new = _files(tmp)
    for d in [tmp, *(p for p in tmp.rglob("*") if p.is_dir())]:
        os.chmod(d, 0o755)
    for f in new:
        os.chmod(tmp / f, 0o644)
    if not out.exists():
        _write(tmp / MANIFEST, _manifest_text(new))
        os.rename(tmp, out)
        return
    old = read_manifest(out) or []
    _check_confined(out, old + new)  # again: the folder may have changed while the claims ran
    theirs = [f for f in new if f not in old and os.path.lexists(out / f)]
    if theirs and not force:
        raise InvalidInput("--out", f"{theirs[0]} exists but no previous report wrote it; refusing to overwrite "
                                    "it (--force to overwrite)", value=str(out))
    _write(tmp / (MANIFEST + ".next"), _manifest_text(old + new))
    os.replace(tmp / (MANIFEST + ".next"), out / MANIFEST)
    for f in new:
        (out / f).parent.mkdir(mode=0o755, exist_ok=True)
        os.replace(tmp / f, out / f)
    for f in sorted(set(old) - set(new)):
        target = out / f
        if target.is_file() and not target.is_symlink():
            target.unlink()
    fig_dir = out / FIGURE_DIR
    if fig_dir.is_dir() and not any(fig_dir.iterdir()) and any(Path(f).parts[0] == FIGURE_DIR for f in old):
        fig_dir.rmdir()
    _write(tmp / (MANIFEST + ".next"), _manifest_text(new))
    os.replace(tmp / (MANIFEST + ".next"), out / MANIFEST)
