"""Claims of Avrachenkov, Dudin, Klimenok, Nain, Semenova: BMAP/PH/1/K with
PH obsolescence and threshold control of the robots (seed
``000_5df23f3f1376a820.txt``).

What is checked: §2's inputs and interpretations, the §3 chain and its Lemma,
the solvers and the exact reduction, Theorems 1-4 and Corollary 1 with §6's
single-arrival formulas, and every number of §7 (Tables 1-5, Figures 1-4 and
the text), one section module each (`SECTIONS`, in registration order).

Numbers come from :mod:`crawlmath.numeric.bmap` (generator two ways,
block recursion, sparse LU, ball-arithmetic LU), the matrix-free structured
solver and the shipped model files ``proofs/models/avrachenkov-*.json``; the
printed tables (:mod:`crawlmath.proofs.tables.avrachenkov`) are only compared
against.

Readings stated once for the whole paper (and applied to every cell):

- thresholds: the "paper" convention ``0 <= j_1 <= ... <= j_{n-1} <= K``
  (the first mode always serves the empty system, later ranges may be empty)
  reproduces Tables 1 and 5; the strict one misses "3 or 2 or 1" and the
  fully non-strict one changes "4 or 3" and the 3- and 4-mode rows;
- ``j*`` of a multi-mode policy is the last threshold, where the queue hands
  over to the one-robot mode (§7 explains "0,2,2" that way, and Table 3's
  s = 3 row only fits it), see `jstar`;
- printing: recorded per column group from the evidence with
  :func:`crawlmath.proofs.cells.convention` (costs truncate, the means b_1, g_1
  and Tables 3–4's R round, ...); the claims ``avrachenkov.costs.convention``,
  ``avrachenkov.R.convention`` and ``avrachenkov.means.convention`` recount the
  evidence and fail when another reading would fit better;
- costs: the last-digit rule (`cells.last_digit_rule`, issue 32): a cost prints
  as trunc(v (1 + e)) for some 0 <= e <= 5e-5; ``avrachenkov.costs.last-digit``
  recounts the cells printed one unit high and low near a boundary;
- Tables 3–4's R: computed from the row's printed C* and C_r (the row reading of
  `cells.row_reading`, 35 of 37 cells against 32 for the exact R), except in a
  row whose printed C* is an erratum;
- the real-data MAP: chosen inside the printed rounding boxes of D_0 and A by
  the rule of `real_generator_rule` (``avrachenkov.inputs.real-D0``);
- the chain is built on the exactly lumped PH representations (the
  example's obsolescence is Exp(0.2)); `avrachenkov.reduction.*` shows every
  measure equal to the full chain's to 1e-12;
- certified cells (issue 17): every number a table cell is judged from is a
  ball-arithmetic value with >= 30 digits (`bm.certified_cost`,
  `bm.certify`), cross-checked against float64, and its error bound (the
  enclosure for the model's exact decimal inputs, float conversion, and for R the
  propagation through R = 100 (1 - C*/min C_r)) goes to the cell engine;
  optimal thresholds, j* and mode sets come from `bm.certify_argmin` and are
  certain only when disjoint enclosures decide the argmin.
"""

# The claims' registration order (hence `crawlmath verify`'s output order), which is the order of the former modules
# avrachenkov.py, avrachenkov_lemma.py, avrachenkov_theorems.py and, within them, of the paper's sections.
SECTIONS = ("inputs", "interpretations", "chain", "solvers", "reduction", "high_precision", "table1", "table2", "tables34",
            "table5", "figures", "cross_checks", "evidence", "lemma_derived", "theorems")
