"""The live adapters: Claude Code and Codex hook handlers, their spool,
installing their hook entries, rehydration and handoff.

Installing (:mod:`~git_gasp.live.settings`, :mod:`~git_gasp.live.install`),
reporting (:mod:`~git_gasp.live.status`, :mod:`~git_gasp.live.versions`) and
handing an agent to another harness (:mod:`~git_gasp.live.handoff`). It may
import core, git, store, sessions, agent, adapters, restore, view and check;
only the command line and the entry point import it.
"""
