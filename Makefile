# The front door. `make demo` runs the main job, `make test` runs every test.
# Both install what is missing (Debian's apt) and build first: the demo only
# the `leasesim` command and the packages its build needs, the tests
# everything.
BUILD ?= build
JOBS ?= 2
SEEDS ?= 1-200
WERROR ?= $(if $(CI),ON,OFF)
CMAKE_FLAGS ?=
# A fresh build from the front door compiles fast: the libraries as unity
# builds, and line tables instead of full debug information (a backtrace
# still names file and line; a debugger's view of variables needs your own
# build directory, docs/INSTALL.md "Build time").
FAST_FLAGS = -DLEASESIM_UNITY_BUILD=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1"

PREFIX ?= /usr/local

.PHONY: deps test-deps package-deps configure configure-tests build build-tests demo test asan-test bench clean install package fresh-seeds

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --tests

package-deps:
	@scripts/install-deps.sh --package

# A build directory's first configure decides whether it has the tests: off
# for the demo, install and package (no GoogleTest, RapidCheck or Google
# Benchmark needed); `make test` turns them on and they stay on.
configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DLEASESIM_WERROR=$(WERROR) $(FAST_FLAGS) \
	  $(if $(wildcard $(BUILD)/CMakeCache.txt),,-DBUILD_TESTING=OFF) $(CMAKE_FLAGS) >/dev/null

configure-tests: test-deps
	@cmake -S . -B $(BUILD) -G Ninja -DLEASESIM_WERROR=$(WERROR) $(FAST_FLAGS) -DBUILD_TESTING=ON $(CMAKE_FLAGS) >/dev/null

# Everything the build directory is configured for.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)

build-tests: configure-tests
	@cmake --build $(BUILD) -j $(JOBS)

# Only what the demo runs: the command and the libraries it links.
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target leasesim
	$(BUILD)/leasesim run scenarios/ci.json --seeds $(SEEDS) --out out

test: build-tests
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan-test:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DLEASESIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

clean:
	rm -rf $(BUILD) build-asan out

# The command, the core and etcd libraries, their headers and the CMake package (docs/INSTALL.md).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The same as a Debian package, $(BUILD)/leasesim_VERSION_ARCH.deb (CPack; docs/INSTALL.md).
package: package-deps build
	cd $(BUILD) && cpack -G DEB

bench: build-tests
	$(BUILD)/bench/sim_bench
	$(BUILD)/bench/bench_ratio --out $(BUILD)/bench/bench_ratio.json --check bench/reference.json

# Not in CI: the RapidCheck properties on ROUNDS fresh random seeds (ctest
# runs them on tests/rapidcheck_seeds.txt); prints each failing seed as the
# line that file takes.
ROUNDS ?= 20
fresh-seeds: build-tests
	scripts/fresh-seeds.sh $(BUILD) $(ROUNDS)
