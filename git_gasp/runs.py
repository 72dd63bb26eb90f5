"""Compatibility: this module moved to :mod:`git_gasp.agent.runs`.

The README showed ``from git_gasp.runs import ...``; those imports keep working.
"""

from git_gasp.agent.closestore import (
    Committed as Committed,
)
from git_gasp.agent.runs import (
    Closed as Closed,
)
from git_gasp.agent.runs import (
    boundary_commit as boundary_commit,
)
from git_gasp.agent.runs import (
    check_session as check_session,
)
from git_gasp.agent.runs import (
    close_run as close_run,
)
from git_gasp.agent.runs import (
    commit_message as commit_message,
)
