"""One module per ``crawlmath`` subcommand (discovered by :mod:`crawlmath.cli`)."""
