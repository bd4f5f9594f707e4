"""Claims of Coffman, Liu, Weber, *Optimal robot scheduling for Web search engines* (INRIA RR-3317, 1997), one module
per section (seed ``002_4ad982fbd4856c9a.txt``):

- :mod:`.golden_policy`: §5, the golden-ratio policy gamma(k, N) and its limiting cost;
- :mod:`.golden_bound`: §5, Theorem 5.1 (18), Corollary 5.1 (19) and every step of its printed proof;
- :mod:`.section_3`: Lemma 3.1, Theorems 3.1–3.4;
- :mod:`.section_4`: Lemma 4.1 and its expansions, Theorem 4.1;
- :mod:`.section_5`: the opening remarks of §5 and the limit (17).

``SECTIONS`` is the order in which the claims register, hence the order of ``crawlmath verify``'s output, kept
exactly as before the split: the golden-ratio sections first (Liu–Nain §1.3, which :mod:`.section_3` imports,
reuses their helpers), then §3–§5.  Helpers shared by several sections are in the private modules
:mod:`._common` and :mod:`._golden`.
"""

SECTIONS = ("golden_policy", "golden_bound", "section_3", "section_4", "section_5")
