"""``crawlmath codegen``: emit numeric/generated/ from the SymPy derivations,
or export the same formulas as C99 or LaTeX; ``--model FILE`` does the same
for a user's own model (`crawlmath.derive.user_model`).

Exit codes: 0 written (or up to date), 1 ``--check`` found stale files, 2 bad
input (an option, the model file: its field and the rule it breaks, an
unusable ``--out``), 3 the derivation could not deliver (no formula derives
for the model: each refusal names the step that no longer holds)."""
from __future__ import annotations

from pathlib import Path

from ..numeric.errors import InvalidInput
from ._common import inputs, print_json

NAME = "codegen"
HELP = ("Emit numeric/generated/ from the SymPy derivations in derive/ (--check: fail if stale); --lang c|latex exports "
        "them; --model FILE derives and emits your own model.")
EXAMPLE = """
crawlmath codegen            # rewrite stale generated modules (atomically)
crawlmath codegen --check    # exit 1 if the committed code differs from the derivations
crawlmath codegen --lang c --out build/c          # C99 header + source per model (no main)
gcc -std=c99 -O2 -Ibuild/c my_program.c build/c/*.c -lm   # my_program.c includes crawlmath_static_mm1k.h
crawlmath codegen --lang latex --out build/tex    # one equation per formula; formulas.tex inputs them all
crawlmath codegen --lang latex --stable-form --out build/tex-float   # the floating-point rewritings instead
crawlmath codegen --model my_model.json --out build/py            # your model (my_model.py: float, scalar, mpmath)
crawlmath codegen --model my_model.json --lang c --out build/c    # C: NaN and errno EDOM outside the model's domain
crawlmath codegen --model my_model.json --lang latex --json       # what derived, what was refused and why
# my_model.json (schema numeric/schemas/user-model.schema.json), an M/M/1/K with doubled loss weight:
# {"kind": "static-mm1k", "name": "my_model", "service": "mu", "capacity": "K", "weights": {"idle": "gamma", "loss": 2}}
# the other kinds: a scheduling objective (Coffman–Liu–Weber §3-4; term of one page in x, h, mu, c, nu, c0) and a
# workbench game (Buijsrogge Ch. 4; removal colour | ball | longest):
# {"kind": "scheduling", "name": "my_schedule", "term": "c*(1 - nu*x/mu + nu*x/mu*h**(2/x))", "weight": "c0*mu"}
# {"kind": "workbench", "name": "my_workbench", "slots": "K", "colours": "C", "removal": "ball"}
"""

DEFAULT_OUT = {"python": "codegen-python", "c": "codegen-c", "latex": "codegen-latex"}  # python: with --model only


def add_arguments(p):
    """Register the options of ``crawlmath codegen`` on the argparse parser ``p``."""
    p.add_argument("--lang", choices=("python", "c", "latex"), default="python", help="python (default: numeric/generated/), c (header + source) or latex")
    p.add_argument("--model", metavar="FILE",
                   help="a JSON file stating your own model (kind static-mm1k, scheduling or workbench, and its parts; "
                        "numeric/schemas/user-model.schema.json): "
                        "derive its formulas and emit them in --lang into --out (exit 2: a field breaks the schema or the "
                        "expression grammar, named; exit 3: nothing derives, the failing step named)")
    p.add_argument("--out", metavar="DIR", help="output folder (python: numeric/generated/, with --model ./codegen-python; "
                                                "c: ./codegen-c; latex: ./codegen-latex)")
    p.add_argument("--stable-form", action="store_true",
                   help="with --lang latex: typeset the floating-point rewritings the generated code evaluates, not the derived formulas")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when a generated file is stale, missing or orphaned")
    p.add_argument("--force", action="store_true",
                   help="with --out: overwrite files there that crawlmath codegen did not write (or that were edited since)")
    p.add_argument("--json", action="store_true", help="machine-readable output (the inputs echoed under \"inputs\")")


def run(args) -> int:
    """``crawlmath codegen``: regenerate numeric/generated/ (``--check``: exit 1 if it is stale) or, with ``--lang``,
    export the derivations as C or LaTeX; returns the exit code.
    """
    from ..derive import codegen

    if args.stable_form and args.lang != "latex":
        raise InvalidInput("--stable-form", "applies to --lang latex only", value=args.lang)
    try:
        if args.model is not None:
            return _run_model(args, _output_folder(args.out or DEFAULT_OUT[args.lang]))
        if args.lang == "python" and args.out is None:
            return _run_python(args, codegen)
        return _run_export(args, _output_folder(args.out or DEFAULT_OUT[args.lang]))
    except OSError as exc:
        where = exc.filename or args.out or codegen.GENERATED_DIR
        raise InvalidInput("--out", f"cannot write {where}: {exc.strerror or exc}") from exc


def _output_folder(text: str) -> Path:
    """``--out``: an existing folder, or a path whose nearest existing
    ancestor is a folder (it is created); anything else is bad input."""
    from ..safe_paths import require_folder_path

    return require_folder_path(Path(text))


def _run_export(args, out: Path) -> int:
    from ..derive import codegen, export

    if not args.check:  # a destination we may not write is refused before the derivations run (10-40 s)
        _confine(out, export.file_names(args.lang, codegen.derivation_modules()), force=args.force)
    modules = {m: codegen.formulas_of(m) for m in codegen.derivation_modules()}
    files = export.expected_files(args.lang, out, modules, stable=args.stable_form)
    skipped = export.unsupported(modules) if args.lang == "c" else []
    notes = [f"not exported to C: {m}.{n}: {why}" for m, n, why in skipped]
    if args.check:
        stale = export.stale(files)
        if args.json:
            print_json({"clean": not stale, "stale": [str(p) for p in stale], "unsupported": notes, "inputs": inputs(args)})
        else:
            for p in stale:
                print(f"stale: {p}")
            print(f"{args.lang} export in {out} is " + ("up to date" if not stale else "stale; run without --check"))
        return 0 if not stale else 1
    touched = _write_confined(out, files, force=args.force)
    if args.json:
        print_json({"lang": args.lang, "out": str(out), "written": [str(p) for p in touched], "files": [str(p) for p in files],
                    "unsupported": notes, "inputs": inputs(args)})
    else:
        print("\n".join(f"wrote {p}" for p in touched) or f"{args.lang} export in {out} is up to date")
        for n in notes:
            print(n)
    return 0


def _run_model(args, out: Path) -> int:
    """``--model FILE``: check and build the user's model, refuse an unusable ``--out`` before deriving, derive,
    write (or ``--check``) the files of ``--lang``; every formula refused is reported with its step."""
    from ..derive import DerivationError, codegen, export, user_model
    from ..numeric.errors import SolverError

    name, kind, model = user_model.load(args.model)
    names = export.file_names(args.lang, [name])
    if not args.check:
        _confine(out, names, force=args.force)
    try:
        result = user_model.derive(name, kind, model)
    except DerivationError as exc:
        raise SolverError(f"{args.model}: {exc}") from None
    refused = [{"formula": f, "step": why} for f, why in result.refused]
    if not result.formulas:
        steps = "; ".join(f"{r['formula']}: {r['step']}" for r in refused)
        raise SolverError(f"{args.model}: no formula derives for this {kind.name} model ({steps})")
    modules = {name: list(result.formulas)}
    files = export.expected_files(args.lang, out, modules, stable=args.stable_form, origin=codegen.Origin.of_model(args.model))
    notes = [f"not exported to C: {m}.{n}: {why}" for m, n, why in export.unsupported(modules)] if args.lang == "c" else []
    report = {"model": args.model, "kind": kind.name, "name": name, "lang": args.lang, "out": str(out),
              "formulas": [{"name": f.name, "args": [str(a) for a in f.args], "requires": [str(r) for r in f.requires],
                            "provenance": f.provenance()} for f in result.formulas],
              "refused": refused, "unsupported": notes}
    if args.check:
        stale = export.stale(files)
        if args.json:
            print_json({**report, "clean": not stale, "stale": [str(p) for p in stale], "inputs": inputs(args)})
        else:
            print("\n".join(f"stale: {p}" for p in stale) or f"{args.lang} code for {name} in {out} is up to date")
        return 0 if not stale else 1
    touched = _write_confined(out, files, force=args.force)
    if args.json:
        print_json({**report, "written": [str(p) for p in touched], "files": [str(p) for p in files], "inputs": inputs(args)})
    else:
        print("\n".join(f"wrote {p}" for p in touched) or f"{args.lang} code for {name} in {out} is up to date")
        print(f"derived for {name} ({kind.name}): {', '.join(f.name for f in result.formulas)}")
        for r in refused:
            print(f"refused: {r['formula']}: {r['step']}")
        for n in notes:
            print(n)
    return 0


MANIFEST = ".crawlmath-codegen.json"  # what codegen wrote in an --out folder: name -> SHA-256 of the text


def _confine(out: Path, names: list[str], *, force: bool):
    """The manifest of ``out``, after refusing any of ``names`` there that is
    reached through a symbolic link, or that we did not write (or that was
    edited since) unless ``force``."""
    from ..safe_paths import Manifest, inside

    manifest = Manifest(out, MANIFEST, "crawlmath codegen")
    for name in names:
        inside(out, name)
    foreign = manifest.foreign(names)
    if foreign and not force:
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        raise InvalidInput("--out", f"{foreign[0]}{more} exists and was not written by crawlmath codegen, or was "
                                    "edited since; refusing to overwrite it (--force to overwrite)", value=str(out))
    return manifest


def _write_confined(out: Path, files: dict[Path, str], *, force: bool) -> list[Path]:
    """Write the stale ``files`` into ``out`` together with the manifest, as
    one set (`codegen.write_set`), after the checks of `_confine` (again:
    the folder may have changed during the derivations)."""
    from ..derive import codegen, export

    manifest = _confine(out, [str(p.relative_to(out)) for p in files], force=force)
    touched = export.stale(files)
    if touched or not (out / MANIFEST).exists():
        new = {p: files[p] for p in touched}
        new[out / MANIFEST] = manifest.text({str(p.relative_to(out)): t for p, t in files.items()})
        codegen.write_set(new)
    return touched


def _run_python(args, codegen) -> int:
    if args.check:
        st = codegen.check()
        report = {"clean": st.clean, "changed": [str(p) for p in st.changed], "missing": [str(p) for p in st.missing], "orphaned": [str(p) for p in st.orphaned]}
        if args.json:
            print_json({**report, "inputs": inputs(args)})
        elif st.clean:
            print(f"generated code is up to date ({len(codegen.derivation_modules())} modules)")
        else:
            for kind in ("changed", "missing", "orphaned"):
                for p in report[kind]:
                    print(f"stale ({kind}): {p}")
            print("run 'crawlmath codegen' to regenerate")
        return 0 if st.clean else 1
    touched = codegen.generate()
    if args.json:
        print_json({"written": [str(p) for p in touched], "inputs": inputs(args)})
    else:
        print("\n".join(f"wrote {p}" for p in touched) or "generated code is up to date")
    return 0
