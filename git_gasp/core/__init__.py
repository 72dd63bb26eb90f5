"""The pure core: the protocol's values (events, ops, the graph), the fold, and
the rules that judge them (the seven checks, changes, trailers, notes, secrets).

Functions from values to values: no git, no files, no environment, no processes.
It imports nothing of git-gasp outside ``core``.
"""
