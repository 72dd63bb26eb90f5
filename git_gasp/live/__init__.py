"""The live adapters: Claude Code and Codex hook handlers, their spool,
installing their hook entries, rehydration and handoff.

A handler (``git-gasp adapt hook claude-code|codex --repo R``) only spools
the hook's payload under the agent repository's git directory and exits 0;
the projection into the event log happens later, under the lease, with the
same projectors and ids as ``git gasp import`` (:mod:`~git_gasp.live.flush`).

May import ``core``, ``git``, ``store``, ``sessions``, ``agent``,
``adapters``, ``restore``, ``view``, ``check``, ``errors`` and ``output``.
"""
