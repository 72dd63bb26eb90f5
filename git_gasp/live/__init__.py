"""The live adapters: Claude Code and Codex hook handlers, their spool,
installing their hook entries, rehydration and handoff.

A handler (``git-gasp adapt hook claude-code|codex --repo R``) only spools
the hook's payload under the agent repository's git directory and exits 0
(:mod:`~git_gasp.live.handler`, :mod:`~git_gasp.live.spool`); the projection
into the event log happens later, under the lease, with the same projectors
and ids as ``git gasp import`` (:mod:`~git_gasp.live.flush`,
:mod:`~git_gasp.live.hookevents`); :mod:`~git_gasp.live.linkage` keeps the
active sessions, :mod:`~git_gasp.live.rehydrate` the SessionStart document.
Besides: installing (:mod:`~git_gasp.live.settings`, :mod:`~git_gasp.live.install`),
reporting (:mod:`~git_gasp.live.status`, :mod:`~git_gasp.live.versions`) and
handing an agent to another harness (:mod:`~git_gasp.live.handoff`). It may
import core, git, store, sessions, agent, adapters, restore, view and check;
only the command line and the entry point import it.
"""
