"""Text from a repository made safe for the agent's page: HTML-escaped,
with control characters written as escapes (as :mod:`git_gasp.output`
shows them on a terminal), so nothing a repository holds becomes markup or
reaches a terminal raw when the page is printed."""

from __future__ import annotations

from html import escape

from git_gasp import output


def esc(text: str) -> str:
    return escape(output.visible(text))
