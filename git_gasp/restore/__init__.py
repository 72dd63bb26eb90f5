"""The read side: restore an agent from a URL or path, fold a repository, describe
it (status, the rehydration document), verify identity, list skills.

May import ``core``, ``git``, ``store``, ``check``, ``errors`` and ``output``.
"""
