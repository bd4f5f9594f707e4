"""How the papers print: helpers the claims use to read a paper's printed formulas and tables, never solvers."""
