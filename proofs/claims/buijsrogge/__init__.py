"""Claims of Buijsrogge (2014), Chapters 3–8: the BUbiNG workbench colours (seed ``001_046e391deba72d92.txt``).

Ids: ``buijsrogge.colours.*`` (Ch. 3–5, no offline structure), ``buijsrogge.exact.*`` (the exact chain and its
product form, new here), ``buijsrogge.offline.*`` (Ch. 7–8: Algorithms 1–12, Propositions 7.x, §7.4, the figures of
Ch. 7–8) and ``buijsrogge.table-7.*``, ``buijsrogge.table-8.*``; one section module each (`SECTIONS`, in registration
order).

Chapters 7–8, strategies for the offline structure: how each kind of statement is checked:

- a proposition about what a strategy *does* to the state (Props 7.2.1,
  7.3.1, 7.3.2) is checked exactly: the law of one step of the printed
  algorithm (:func:`~crawlmath.numeric.colours.step_law`, plain Python,
  generic p and r as SymPy symbols) is compared with the law without offline
  structure on every state of small systems; the numba simulator is then run
  as the second route;
- a statement about a random quantity (a stationary level, a stopping time)
  is a seeded simulation, two-sided unless the thesis's wording is one-sided
  ("does not improve", "does not increase"), which the detail says;
- Tables 8.1, 8.2 and 8.4–8.10 print *single* simulation runs.  Each cell is
  judged by where its printed value falls in the distribution of single runs
  of the same experiment: ``REPLICATES`` seeded runs give a two-sided
  prediction interval (Student t, central ``SINGLE_RUN_CENTRAL``); the detail
  reports the printed value's quantile.  These cells are not rounding
  questions, so they do not go through :func:`crawlmath.proofs.cells.judge_cell`;
  Tables 7.1 and 7.2 (deterministic) do.  Their certainty is *statistical*
  (:func:`single_run_certainty`): a verdict is certain when the probability
  that it is wrong is below ``SINGLE_RUN_FLIP``, by order statistics (any
  law) or under the normal model of single runs (exact noncentral-t bounds on
  the band's edges, used only when Shapiro–Wilk does not reject normality);
  an uncertain cell doubles its runs (16, 32, up to
  ``SINGLE_RUN_MAX_REPLICATES``) while more runs can decide it, and otherwise
  says that its printed value sits on the band's edge.  The 627 cells are
  not 627 independent tests: they rest on 174 to 376 thesis runs
  (:func:`table_8_series` says which cells share a run).

Readings stated once for all of Chapter 8 (evidence in the claims named):

- the elephant rule of the tables is §8.1's "exceeds δ" (a colour becomes an
  elephant with δ + 1 balls online), not Alg. 12's "5 balls"
  (``buijsrogge.offline.alg-12-threshold``);
- Tables 8.1, 8.2 and 8.5 do not state the run length T; it is T = 2·10⁵
  (``buijsrogge.table-8.run-length``: Table 8.5's γ = 0.9 column is Table
  8.6's T = 2·10⁵ simulation 1 verbatim);
- T counts the steps of the game including the K fill steps.
"""

# The claims' registration order (hence `crawlmath verify`'s output order): the order of the former modules
# buijsrogge.py and buijsrogge_offline.py, which is the thesis's order.
SECTIONS = ("chapter3", "chapter4", "exact", "chapter5", "strategies", "tables", "chapter8")
