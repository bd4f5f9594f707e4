"""Claims of Liu, Nain, *Optimization issues in web search engines* (book chapter, 2005), one module per section
(seed ``003_dde4fe79a247e1b3.txt``):

- :mod:`.static`: §1.2.1, the static crawler count: (1.3)–(1.12), Lemma 1, Propositions 1–4, Table 1.1 and the
  static columns of Tables 1.2 and 1.3;
- :mod:`.dynamic_model`: §1.2.2, the crawler-activation MDP (1.13)–(1.16), Lemma 2, Propositions 5 and 6;
- :mod:`.dynamic_readings`: §1.2.2–1.2.3, the readings established once (Proposition 6's RVI, the tables' printing);
- :mod:`.dynamic_figures`: §1.2.2, Figures 1.5–1.7;
- :mod:`.dynamic_tables`: §1.2.3, every dynamic cell of Tables 1.2 and 1.3, the slip rules, N_max, the γ = 1.13 rows;
- :mod:`.dynamic_summaries`: §1.2.2–1.2.3, the summary ranges, the trend, the switching-curve conjecture;
- :mod:`.static_figures`: §1.2.1, Figures 1.2–1.4 and the proof of Proposition 2;
- :mod:`.scheduling`: §1.3, the scheduling of crawls (Coffman–Liu–Weber restated), (1.21)–(1.34).

``SECTIONS`` is the order in which the claims register, hence the order of ``crawlmath verify``'s output, kept
exactly as before the split into sections: §1.2.1's figures follow §1.2.2–1.2.3 as they did, and §1.3 registers
earlier than its place here, with Coffman–Liu–Weber §3 (:mod:`..coffman.section_3` reuses its checks of
Proposition 7).  Helpers shared by the dynamic sections are in the private modules :mod:`._dynamic` (instances,
readings, computed C_d), :mod:`._dynamic_nbar` (N̄ to 30 digits) and :mod:`._dynamic_cells` (one table cell).
"""

SECTIONS = ("static", "dynamic_model", "dynamic_readings", "dynamic_figures", "dynamic_tables", "dynamic_summaries",
            "static_figures", "scheduling")
