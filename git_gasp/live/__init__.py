"""The live adapters: Claude Code and Codex hook handlers, their spool,
installing their hook entries, rehydration and handoff."""
