"""A click group that imports a command's module only when that command is looked up.

``git gasp check`` then loads the check command and what it needs, not the
whole command line. Help, completion and anything reading ``commands`` still
see every command: they load the rest on demand.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click


class LazyGroup(click.Group):
    """A group whose ``lazy_commands`` (name -> ``"module:attribute"``) load on first use."""

    _loaded: dict[str, click.Command]

    def __init__(self, *args: Any, lazy_commands: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # sets ``commands``: those given, loaded
        self._lazy = dict(lazy_commands)

    def lazy_command(self, name: str) -> click.Command | None:
        """The command called ``name``, its module imported now if it was not yet."""
        target = self._lazy.get(name)
        if target is not None:  # popped by add_command once its module imported
            module, _, attribute = target.partition(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{target} is not a click command")
            self.add_command(command, name)
        return self._loaded.get(name)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        """Every command, those not loaded yet imported now."""
        for name in list(self._lazy):
            self.lazy_command(name)
        return self._loaded

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._loaded = value

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._lazy.pop(name, None)
        self._loaded[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self.lazy_command(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self._loaded, *self._lazy})
