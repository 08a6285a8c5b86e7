# The README's commands. Each does its own set-up: packages, configure, build.
BUILD ?= build
PACKAGE_BUILD ?= build-package
JOBS ?= $(shell nproc)
BIN := $(BUILD)/src/cli/migronaut
CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

.PHONY: deps build demo test package clean

deps:
	@scripts/install-deps

# Everything: the library, the CLI, every test and benchmark.
build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DMIGRONAUT_BUILD_TESTS=ON -DMIGRONAUT_BUILD_BENCH=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Applies examples/sqlite to demo/app.db and shows the status. Builds only the CLI, with only
# the build and runtime packages.
demo:
	@scripts/install-deps build runtime
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DMIGRONAUT_BUILD_TESTS=OFF -DMIGRONAUT_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target migronaut-cli
	@rm -rf demo && mkdir -p demo
	@$(BIN) --uri sqlite:demo/app.db --dir examples/sqlite --no-env up
	@$(BIN) --uri sqlite:demo/app.db --dir examples/sqlite --no-env status

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The Debian packages migronaut_<v>_<arch>.deb and migronaut-dev_<v>_<arch>.deb, in
# $(PACKAGE_BUILD)/: a Release build without tests, stripped.
package:
	@scripts/install-deps build runtime
	@cmake -S . -B $(PACKAGE_BUILD) -DCMAKE_BUILD_TYPE=Release -DMIGRONAUT_BUILD_TESTS=OFF -DMIGRONAUT_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(PACKAGE_BUILD) -j $(JOBS)
	@cd $(PACKAGE_BUILD) && cpack -G DEB >/dev/null && ls -1 $(CURDIR)/$(PACKAGE_BUILD)/*.deb

clean:
	rm -rf $(BUILD) $(PACKAGE_BUILD) demo
