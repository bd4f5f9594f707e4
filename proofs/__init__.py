"""The claim registry: every result of the seed papers, its source, and its check.

- :mod:`.registry` — the data model (`Claim`, `Outcome`, `Source`) and runner.
- :mod:`.claims` — one module per model; each registers its claims on import.
- :mod:`.tables` — the papers' numeric tables transcribed verbatim (reference
  data that computed values are compared against; never inputs).
"""
