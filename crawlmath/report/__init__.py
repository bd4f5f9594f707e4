"""The verification report (`crawlmath report`): HTML + Markdown + PNG figures."""
