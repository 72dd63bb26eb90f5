"""Judging commits and pushes (pre-commit, commit-msg, prepare-commit-msg,
post-commit, pre-push, pre-receive), and installing the hooks.

May import ``core``, ``git``, ``store``, ``sessions``, ``errors`` and ``output``.
"""
