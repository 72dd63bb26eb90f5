"""The click layer: one module per command group, the shared options, the root group
and its entry point, and the one error handler every command runs under.

May import anything in the package; nothing imports it but ``git_gasp.entry``.
"""
