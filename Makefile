# The front door. `make demo` and `make check` are all a new user needs on a
# fresh Debian 12 machine: each installs what is missing, builds and runs.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)
# The QEMU plugin of spgo emulate: AUTO builds it when its prerequisites are
# there; `make check` asks for ON, so a machine that cannot build it fails
# instead of skipping the emulator's tests.
EMULATOR   ?= AUTO

.PHONY: all deps build build-asan check demo bench fuzz install clean

all: build

deps:
	@scripts/deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPGO_EMULATOR=$(EMULATOR) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DSPGO_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)

check:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory build build-asan EMULATOR=ON
	@scripts/check.sh $(BUILD) $(BUILD_ASAN)

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory build
	@scripts/demo.sh $(BUILD)

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory build
	@bench/run.sh $(BUILD)

# make install [PREFIX=/usr/local] [DESTDIR=...]: spgo, its emulator plugin,
# libspgo with headers and pkg-config file, the man page.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# libFuzzer on every parser of outside input: FUZZ_SECONDS per harness
# (default 60), one after another or FUZZ_JOBS at a time (scripts/fuzz.sh).
fuzz:
	@scripts/deps.sh fuzz
	@scripts/fuzz.sh

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) build-fuzz
