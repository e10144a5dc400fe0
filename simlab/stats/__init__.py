"""Statistics of balance, independent of any game.

* :mod:`.intervals` — Wilson intervals of win rates;
* :mod:`.paired` — differences of two win rates measured on the same games (Newcombe's interval);
* :mod:`.sprt` — Wald's sequential probability ratio test for a Bernoulli probability;
* :mod:`.tuning` — fitting win rate against a numeric option, inverting it, bootstrapping the root;
* :mod:`.metagame` — zero-sum games over scripted policies, solved by linear programming.
"""
