"""Compatibility: this module moved to :mod:`git_gasp.agent.projecting`.

The README showed ``from git_gasp.projecting import ...``; those imports keep working.
"""

from git_gasp.agent.projecting import (
    CONFIG_PATH as CONFIG_PATH,
)
from git_gasp.agent.projecting import (
    DEFAULT_SNAPSHOT_EVERY as DEFAULT_SNAPSHOT_EVERY,
)
from git_gasp.agent.projecting import (
    FACTS_PATH as FACTS_PATH,
)
from git_gasp.agent.projecting import (
    JOURNAL_PATH as JOURNAL_PATH,
)
from git_gasp.agent.projecting import (
    MEMORY_PATH as MEMORY_PATH,
)
from git_gasp.agent.projecting import (
    add_fact as add_fact,
)
from git_gasp.agent.projecting import (
    append_journal as append_journal,
)
from git_gasp.agent.projecting import (
    prune_snapshots as prune_snapshots,
)
from git_gasp.agent.projecting import (
    read_facts as read_facts,
)
from git_gasp.agent.projecting import (
    regenerate_memory as regenerate_memory,
)
from git_gasp.agent.projecting import (
    snapshot_due as snapshot_due,
)
from git_gasp.agent.projecting import (
    snapshot_every as snapshot_every,
)
from git_gasp.agent.projecting import (
    write_snapshot as write_snapshot,
)
