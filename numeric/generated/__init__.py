"""Code emitted from :mod:`crawlmath.derive` by ``crawlmath codegen`` -- never edited by hand."""
