"""Placeholder: being written."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    del group
