# The front door. `make demo` runs the main job, `make test` runs every test.
# Both install what is missing (Debian's apt) and build first.
BUILD ?= build
JOBS ?= 2
SEEDS ?= 1-200
WERROR ?= $(if $(CI),ON,OFF)
CMAKE_FLAGS ?=

PREFIX ?= /usr/local

.PHONY: deps test-deps configure build demo test asan-test bench clean install fresh-seeds

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --tests

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DLEASESIM_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/leasesim run scenarios/ci.json --seeds $(SEEDS) --out out

test: test-deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan-test:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DLEASESIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

clean:
	rm -rf $(BUILD) build-asan out

# The command, the core and etcd libraries, their headers and the CMake package (docs/INSTALL.md).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	$(BUILD)/bench/sim_bench
	$(BUILD)/bench/bench_ratio --out $(BUILD)/bench/bench_ratio.json --check bench/reference.json

# Not in CI: the RapidCheck properties on ROUNDS fresh random seeds (ctest
# runs them on tests/rapidcheck_seeds.txt); prints each failing seed as the
# line that file takes.
ROUNDS ?= 20
fresh-seeds: build
	scripts/fresh-seeds.sh $(BUILD) $(ROUNDS)
