"""``python -m crawlmath``: the same console script as ``crawlmath``."""
from .cli import entry

if __name__ == "__main__":
    entry()
