"""Bringing in the sessions of agents that are not GASP runtimes.

Claude Code and Codex keep each session in a private transcript file. The
projectors here turn its lines into a GASP run: events with ids derived
from the agent, the session id and the native record ids, a cursor (how far
each file was read) and diagnostics (what was not recognised, and where).

The pure side takes text and plain values and returns values; it opens no
file, runs no git and reads no environment:

- :mod:`~git_gasp.adapters.emitting`: deterministic ids, summaries (capped,
  redacted) and the run's events in their paired, chained shapes;
- :mod:`~git_gasp.adapters.lines`: splitting a file into records (a corrupt
  line in the middle is reported, a torn last line ignored), diagnostics;
- :mod:`~git_gasp.adapters.lifting`: the configurable lifting of evals,
  patches, commits and permission denials;
- :mod:`~git_gasp.adapters.claudecode` and :mod:`~git_gasp.adapters.codex`:
  the two projectors;
- :mod:`~git_gasp.adapters.usage`: token accounting over imported events.

The I/O side is :mod:`~git_gasp.adapters.files` (finding and reading the
native files, ``.jsonl.zst`` included); writing the run into an agent
repository is :mod:`git_gasp.adapters.importing`.
"""
