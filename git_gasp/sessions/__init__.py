"""Session linkage: ``Agent-Session`` trailers read from history, the session notes
under ``refs/notes/agent-sessions`` and their sync, and cold-stored transcripts.

May import ``core``, ``git``, ``store``, ``errors`` and ``output``.
"""
