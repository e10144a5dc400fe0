def meta(*a, **k): raise NotImplementedError
