# The two commands of the README. Each does its own set-up: packages, configure, build.
BUILD ?= build
JOBS ?= $(shell nproc)
BIN := $(BUILD)/src/cli/migronaut

.PHONY: deps build demo test clean

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Applies examples/sqlite to demo/app.db and shows the status.
demo: build
	@rm -rf demo && mkdir -p demo
	@$(BIN) --uri sqlite:demo/app.db --dir examples/sqlite --no-env up
	@$(BIN) --uri sqlite:demo/app.db --dir examples/sqlite --no-env status

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) demo
