"""Seeing an agent: what a person reads about a repository (``show``,
``lineage``, ``nodes``, ``runs``) and the agent's page (``git gasp report``),
one self-contained HTML file with its charts drawn as inline SVG.

May import ``core``, ``git``, ``store``, ``check``, ``restore``, ``errors`` and
``output``; only ``cli`` imports it.
"""
