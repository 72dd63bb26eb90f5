"""Files on disk: reading an agent's work tree, the one append writer (lock, check
the tail, append, fsync), atomic writes, the lease, the run marker, output files,
snapshot seeds and loose objects written ahead of ``git commit``.

May import ``core``, ``git`` (to ask what is tracked), ``errors`` and ``output``.
"""
