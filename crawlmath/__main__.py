"""``python -m crawlmath``: the same console script as ``crawlmath``."""
from .cli import entry

entry()
