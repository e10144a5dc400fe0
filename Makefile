# simlab — the two commands a newcomer needs are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test check test-all bench lint soak golden mutate readme-schema clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## demo: real sweeps (progress bar, Parquet under results/, win-rate tables)
demo: setup
	$(BIN)/simlab sweep experiments/demo.toml --out results/demo --overwrite
	$(BIN)/simlab sweep experiments/doe-campaign.toml --out results/doe-campaign --overwrite

## test: the whole test suite (what CI runs)
test: setup
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

## check: the quick tier for the inner loop (not what CI runs): `make test` without the slow tests and
## without the files that mostly exercise machinery rather than rules: several processes or a dask
## cluster, solves and searches (tune, compare, meta, sensitivity, exploitability), notebooks, start-up
## timing, mutation runs. Every game's rule, data, policy and golden tests stay in. Tune the list from
## the slowest files of `make test` (`pytest --durations=50`); CHECK_IGNORE is the one place it lives.
CHECK_IGNORE := test_sweep_dask test_sweep_faults test_solve test_solved test_exploitability_stale \
	test_analysis_tune test_analysis_compare_meta test_tune_equilibrium test_sensitivity test_notebooks \
	test_startup test_mutate test_soak test_sweep_extend test_hostile_inputs
check: setup
	$(BIN)/python -m pytest -q -n 2 -m "not slow" --durations=15 $(foreach f,$(CHECK_IGNORE),--ignore=tests/$(f).py)

## test-all: also the slow statistical and soak tests
test-all: setup
	$(BIN)/python -m pytest -q -n 2

## bench: kernel and game throughput, written to BENCHMARKS.md
bench: setup
	$(BIN)/simlab bench --write BENCHMARKS.md

## soak: 100,000 random-legal games of every registered game with every invariant checked
soak: setup
	$(BIN)/simlab soak --games 100000

## mutate: apply each rule mutation of tests/mutations.toml in turn; report which the tests catch
mutate: setup
	$(BIN)/python -m simlab.testing.mutate

## golden: regenerate tests/golden (only in a commit that moves rows on purpose, naming the rule or policy)
golden: setup
	$(BIN)/python -m simlab.testing.golden --write tests/golden

## readme-schema: regenerate the README's column tables from each game's output records (Game.output_record(s), or a plug-in's columns TOML, Game.columns_file; tests check them)
readme-schema: setup
	$(BIN)/python -m simlab.games.schema README.md

lint: setup
	$(BIN)/ruff check simlab tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
