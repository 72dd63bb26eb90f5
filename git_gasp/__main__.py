"""``python -m git_gasp``: the same entry point as the ``git-gasp`` script."""

from git_gasp.entry import main

raise SystemExit(main())
