"""Every registered game passes the conformance check."""

import pytest

from simlab.games import game_names
from simlab.testing import check_game


@pytest.mark.parametrize("name", game_names())
def test_game_conformance(name):
    check_game(name)
