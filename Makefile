# GiftKeeper — the two commands a newcomer needs: `make run` and `make test`.
# Both install the Debian packages GiftKeeper links against when they are missing.

SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
APT_PACKAGES := libsodium-dev libreadline-dev pkg-config tmux faketime man-db postgresql openssl python3-icalendar python3-jsonschema less
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-release lint format build release install check-install deps fuzz bench bench-sync bench-household demo clean

## run: install dependencies, build, and start the REPL
run: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product giftkeeper
	@$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/giftkeeper $(ARGS)

## test: install dependencies, check the formatting, build, and run the whole test suite,
## the device suites through giftkeeper-server in front of a throwaway PostgreSQL server on
## loopback, with a throwaway certificate (scripts/test-server.sh, which starts both: started
## here, stopped when the tests end); devices speak only to the service.
## The suites that start programs (PROCESS_TESTS: the built binary, tmux, sh, psql, the
## journal probe, exit tests) run in a test process of their own: a forked child holds every
## descriptor of its parent until it execs, journal locks included, so no test holding a
## lock may share a process with one that forks. That process is the test bundle run
## directly (`swift test` allows one at a time per .build), beside `swift test` running the
## rest, where a test that starts a program fails (GIFTKEEPER_TESTS_START_NO_PROGRAMS);
## its report follows the other's.
BINARY_TESTS := GiftKeeperEndToEndTests|HintPastingProcessTests
PROCESS_TESTS := $(BINARY_TESTS)|JournalProcessTests|ServiceStoreTests|HouseholdServiceTests|LiveChangesTests|SodiumInitializationTests
TEST_BUNDLE = $$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/GiftKeeperPackageTests.xctest
test: deps lint
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --build-tests
	@scripts/test-server.sh start >/dev/null
	@eval "$$(scripts/test-server.sh env)"; \
	bundle=$(TEST_BUNDLE); \
	report=$$(mktemp /tmp/giftkeeper-process-tests.XXXXXX); \
	"$$bundle" --testing-library swift-testing --filter '$(PROCESS_TESTS)' >"$$report" 2>&1 & processes=$$!; \
	GIFTKEEPER_TESTS_START_NO_PROGRAMS=1 $(SWIFT) test $(SWIFT_BUILD_FLAGS) --skip-build --skip '$(PROCESS_TESTS)'; \
	inProcess=$$?; \
	wait $$processes; processStatus=$$?; \
	echo "--- the suites that start programs ($(PROCESS_TESTS)):"; cat "$$report"; rm -f "$$report"; \
	[ $$processStatus = 0 ] || echo "--- that test process ended with status $$processStatus (128 + N: signal N)"; \
	scripts/test-server.sh stop; [ $$inProcess = 0 ] && [ $$processStatus = 0 ]

## test-release: the suites that run the built program (BINARY_TESTS, some of PROCESS_TESTS),
## against the release binary as `make install` installs it, beside a throwaway
## giftkeeper-server (the debug build's) and PostgreSQL (scripts/test-server.sh); CI runs it after `make test`
test-release: deps
	$(RELEASE_BUILD)
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --build-tests
	@scripts/test-server.sh start >/dev/null
	@eval "$$(scripts/test-server.sh env)"; GIFTKEEPER_BINARY=$(CURDIR)/.build/release/giftkeeper \
	  GIFTKEEPER_SERVER_BINARY=$(CURDIR)/.build/debug/giftkeeper-server \
	  $(TEST_BUNDLE) --testing-library swift-testing --filter '$(BINARY_TESTS)'; \
	status=$$?; scripts/test-server.sh stop; exit $$status

## lint: the code's formatting, as .swift-format says (swift-format, in the toolchain);
## `make format` rewrites the files to match
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Fuzz Benchmarks Package.swift

format:
	$(SWIFT) format format --in-place --recursive Sources Tests Fuzz Benchmarks Package.swift

## build: debug build
build: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

## release: optimised build (.build/release/giftkeeper) with the Swift runtime and Foundation
## linked in statically: a self-contained binary that needs no Swift toolchain where it runs,
## and starts about a third faster than one loading them as shared libraries (docs/performance.md).
## Every target that builds the release binary uses this one command, so they never rebuild
## each other's modules with other flags.
RELEASE_BUILD = $(SWIFT) build -c release --static-swift-stdlib --product giftkeeper
release: deps
	$(RELEASE_BUILD)

## install: the release binary, bash/zsh/fish completions (paths complete where a path is
## expected) and a man page generated from the command declarations (with the sections of
## docs/man/giftkeeper.1.sections: environment, files, exit status, examples), under PREFIX
## (default ~/.local): PREFIX/bin, PREFIX/share/{man/man1,bash-completion/completions,
## zsh/site-functions,fish/vendor_completions.d}. The page is written by argument-parser's
## generate-manual tool from the release binary; its package plugin would build the binary
## again with default flags, over the release one, and that is what would be installed.
PREFIX ?= $(HOME)/.local
MAN_DIR = .build/giftkeeper-man
install: deps
	$(RELEASE_BUILD)
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product generate-manual
	rm -rf $(MAN_DIR) && mkdir -p $(MAN_DIR)
	$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/generate-manual .build/release/giftkeeper \
	  --output-directory $(MAN_DIR) >/dev/null
	# The generated page's generic exit status gives way to GiftKeeper's own, with the
	# environment, files, examples and where to read more (docs/man/giftkeeper.1.sections).
	sed -i -e '/^\.Sh "EXIT STATUS"$$/d' -e '/^\.Ex -std$$/d' $(MAN_DIR)/giftkeeper.1
	cat docs/man/giftkeeper.1.sections >> $(MAN_DIR)/giftkeeper.1
	install -d "$(PREFIX)/bin" "$(PREFIX)/share/man/man1" "$(PREFIX)/share/bash-completion/completions" \
	  "$(PREFIX)/share/zsh/site-functions" "$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 .build/release/giftkeeper "$(PREFIX)/bin/giftkeeper"
	install -m 0644 $(MAN_DIR)/giftkeeper.1 "$(PREFIX)/share/man/man1/giftkeeper.1"
	.build/release/giftkeeper --generate-completion-script bash > "$(PREFIX)/share/bash-completion/completions/giftkeeper"
	.build/release/giftkeeper --generate-completion-script zsh > "$(PREFIX)/share/zsh/site-functions/_giftkeeper"
	.build/release/giftkeeper --generate-completion-script fish > "$(PREFIX)/share/fish/vendor_completions.d/giftkeeper.fish"
	@echo "Installed giftkeeper under $(PREFIX) (binary, man page, bash/zsh/fish completions)."

## check-install: `make install` into a temporary PREFIX, then checks what it installed
## (scripts/check-install.sh); CI runs it after `make test`
check-install: deps
	scripts/check-install.sh

## deps: the Debian packages (apt-get update first: a fresh machine may have empty lists),
## and mode 0600 on the sample journals (git checks files out 0644, and GiftKeeper
## refuses a journal others can read)
deps:
	@$(call apt_install,$(APT_PACKAGES))
	@chmod 600 journal/*.journal journal/golden/*.journal 2>/dev/null || true

# apt_install PACKAGES: installs those not installed yet
apt_install = missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## fuzz: libFuzzer + AddressSanitizer on every reader of untrusted bytes (Fuzz/Checks), each
## for FUZZ_SECONDS (default 60) from the seed corpus in Fuzz/Corpus; FUZZ_TARGETS='tokenizer …'
## picks some. An input that fails is saved in .build-fuzz/findings (see scripts/fuzz.sh).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)

## bench: SPEC §9's targets through the release binary, whole processes, on a person's journal
## of 20,000 events, each against a bound measured in the same run (scripts/bench.sh): one
## table, and a failure when a target is missed. BENCH_LARGE=1 adds the 1,000,000-event peak
## memory; GIFTKEEPER=PATH measures another binary instead of building this one.
GIFTKEEPER ?=
bench: deps
	$(if $(GIFTKEEPER),,$(RELEASE_BUILD))
	scripts/bench.sh $(or $(GIFTKEEPER),.build/release/giftkeeper)

## bench-sync: the sync service's figures (issue 27, SPEC §12), whole processes on loopback
## with TLS: PostgreSQL and two giftkeeper-server processes in front of it (started and
## stopped here), the release binary as devices, and giftkeeper-bench-sync as a thousand
## simulated ones: a change against a bare INSERT+COMMIT, bytes and rows per sync at 1 k
## and 100 k frames, clone speed, ten devices on one journal, idle devices' cost, A->B
## latency with 1,000 devices connected, the fan-out across the two processes. Each figure
## beside its bound measured in the same run; fails when one is missed
## (scripts/bench-sync.sh; docs/performance.md, docs/scaling.md)
bench-sync: deps
	$(RELEASE_BUILD)
	$(SWIFT) build -c release --product giftkeeper-server
	$(SWIFT) build -c release --product giftkeeper-bench-sync
	scripts/bench-sync.sh .build/release/giftkeeper .build/release/giftkeeper-server .build/release/giftkeeper-bench-sync

## bench-household: issue 28's sign-in figure (scripts/bench-household.sh): a household of
## 20,000 events with four members, made through giftkeeper-server with TLS on loopback
## (PostgreSQL and the service started and stopped here; giftkeeper-bench-household appends
## the members' presents in batches); `giftkeeper household list` through the release binary,
## whole process, against the key derivation + 150 ms measured in the same run; the service
## is a release build too, as a household runs it
bench-household: deps
	$(RELEASE_BUILD)
	$(SWIFT) build -c release --product giftkeeper-server
	$(SWIFT) build -c release --product giftkeeper-bench-household
	scripts/bench-household.sh .build/release/giftkeeper .build/release/giftkeeper-bench-household \
		.build/release/giftkeeper-server

## demo: regenerate journal/demo.journal (password: demo-password)
demo: deps
	scripts/make-demo-journal.sh

clean:
	rm -rf .build
