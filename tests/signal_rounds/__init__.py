"""``signal-rounds``: a synthetic game whose best response lies outside its knob families (issue 29).

A test instrument, not a wargame, in one folder outside ``simlab/`` (registered at run time by the
tests that play it, as ``tests/ladder_race``). Red's knob family cannot look at the signal red is
shown each round; the best response does, so only an exploiter not confined to the knobs (the
rollout exploiter, ``--policy red=@rollout:BASE:R``) reaches it. :mod:`.oracle` computes every
value exactly by enumeration. ``tests/test_rollout_known_answer.py`` plays it.
"""
