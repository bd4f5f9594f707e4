"""Numeric tables transcribed verbatim from the seed papers.

Cells are kept as the printed *strings* so that the number of printed
decimals (and hence the matching tolerance) is preserved.  These are
reference data: computed values are compared against them; they never flow
into a computation.
"""
