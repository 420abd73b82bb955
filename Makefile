# Picturebook — the two commands a newcomer needs:
#   make demo   install what is missing, build, and run Picturebook on the sample books in Books/
#   make test   install what is missing and run every test (Swift, then the reader in headless Chromium)
SWIFT ?= swift
CONFIG ?= release
BIN = .build/$(CONFIG)/picturebook

.PHONY: setup build demo test bench clean

setup:
	@Tools/setup.sh

build: setup
	$(SWIFT) build -c $(CONFIG) --product picturebook

demo: build
	@Tools/demo.sh $(BIN)

test:
	@Tools/setup.sh --browser
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@Tools/test-browser.sh

# Long peer comparisons; not part of CI.
bench:
	@Tools/setup.sh --bench
	@Tools/bench-codecs.py
	@Tools/bench-typeset.sh
	@Tools/bench-render.sh
	@Tools/bench-thumbs.sh
	@Tools/bench-ocr.sh

clean:
	rm -rf .build
