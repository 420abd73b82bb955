# Picturebook — the two commands a newcomer needs:
#   make demo   install what is missing, build, and run Picturebook on the sample books in Books/
#   make test   install what is missing and run every test (Swift, then the reader in headless Chromium)
SWIFT ?= swift
CONFIG ?= release
BIN = .build/$(CONFIG)/picturebook

.PHONY: setup build demo test corpus bench bench-unseen fuzz test-sanitize test-parallel clean

setup:
	@Tools/setup.sh

build: setup
	$(SWIFT) build -c $(CONFIG) --product picturebook

demo: build
	@Tools/demo.sh $(BIN)

test: corpus
	@Tools/setup.sh --browser --formats --detector
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@Tools/test-browser.sh

# The hand-checked real corpora: Benchmarks/RealCorpus (partly tuned on), Benchmarks/HeldOut and
# Benchmarks/Fresh (only ever scored): every page unchanged, every truth box inside its image. Plain
# python3, a second or two.
corpus:
	@python3 Tools/real-corpus.py --quiet --corpus Benchmarks/RealCorpus
	@python3 Tools/real-corpus.py --quiet --corpus Benchmarks/HeldOut
	@python3 Tools/real-corpus.py --quiet --corpus Benchmarks/Fresh

# Long peer comparisons; not part of CI.
bench:
	@Tools/setup.sh --bench
	@Tools/bench-codecs.py
	@Tools/bench-typeset.sh
	@Tools/bench-render.sh
	@Tools/bench-thumbs.sh
	@Tools/bench-ocr.sh

# Text detection on corpora it was not tuned on, beside PP-OCRv4 and Tesseract (issue 17); minutes.
# Documentation/Evaluation.md holds the last run's table.
bench-unseen:
	@Tools/bench-unseen.sh

# libFuzzer + AddressSanitizer over every harness (Tests/Fuzz/README.md); FUZZ_SECONDS per harness.
fuzz:
	@Tools/fuzz.sh

# The whole Swift suite under AddressSanitizer, then ThreadSanitizer; slow, not part of CI.
test-sanitize:
	@Tools/test-sanitize.sh

# make test five times in a fresh clone while another make test runs beside it.
test-parallel:
	@Tools/test-parallel.sh

clean:
	rm -rf .build
