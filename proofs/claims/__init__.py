"""Claim modules, one per model.  Every module here is imported by
:func:`crawlmath.proofs.registry.all_claims`; a module registers its claims
at import time."""
