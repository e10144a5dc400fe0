"""Conformance checks and exact oracles shared by the games' tests."""

from .conformance import check_batch, check_game, check_workers

__all__ = ["check_batch", "check_game", "check_workers"]
