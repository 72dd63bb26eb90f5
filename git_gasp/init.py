"""Compatibility: this module moved to :mod:`git_gasp.agent.init`.

The README showed ``from git_gasp.init import ...``; those imports keep working.
"""

from git_gasp.agent.init import (
    ATTRIBUTES as ATTRIBUTES,
)
from git_gasp.agent.init import (
    config_text as config_text,
)
from git_gasp.agent.init import (
    init_repo as init_repo,
)
from git_gasp.agent.init import (
    manifest_text as manifest_text,
)
