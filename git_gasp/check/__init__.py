"""``git gasp check``: the seven conformance checks over a repository, and check 4
(append-only in git) walked incrementally over its history.

May import ``core``, ``git``, ``store``, ``errors`` and ``output``.
"""
