"""Side-by-side benchmark of our engine against the peer (PyPI ``diplomacy`` 1.1.2).

Nothing here is imported by the judge: the peer is a benchmark/test extra only.
"""
