# warpgrade -- top-level build.
#
#   make            bin/warpgrade, the runner library and the emulator runtime
#   make demo       build, then grade the bundled sample submission
#   make check      Check unit tests and end-to-end grading cases (no GPU needed)
#   make check-gpu  the GPU tests (needs a usable NVIDIA GPU)
#   make bench      reference-kernel benchmark on the GPU -> docs/PERFORMANCE.md
#   make coverage   lcov HTML report of the test suite under build/coverage/
#   make fuzz       libFuzzer targets (clang), FUZZ_SECONDS each
#   make deps       install the Debian packages (as root)
#   make install    bin/warpgrade, its data and man pages under PREFIX
#                   (mk/install.mk); make uninstall removes them
#
# Objects go to build/ with dependency files; V=1 shows the commands;
# DEVELOPER=1 adds -Werror.  CUDA_HOME defaults to /usr/local/cuda.

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
CC ?= cc
CXX ?= c++
PKG_CONFIG ?= pkg-config
PKGS = check libarchive jansson nettle
INSTALL_DEPS ?= .ci/install-deps

ifeq ($(V),1)
Q =
else
Q = @
endif

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif
OPT ?= -O2 -g
# Include paths apart from CPPFLAGS: the grader's objects get their own
# (below, "the trust boundary").
INCLUDES = -I. -Iharness -Iexercises -Igrader -I$(CUDA_HOME)/include
CPPFLAGS += -D_GNU_SOURCE -DWG_CUDA_HOME='"$(CUDA_HOME)"'
CFLAGS += -std=c11 $(OPT) $(WARN) -MMD -MP $(COVFLAGS)
LDFLAGS += $(COVFLAGS)

# Library flags come from pkg-config.  A missing package (a library, or
# one of the tools the build and grading run) is installed with
# .ci/install-deps when this make may (root, or sudo without a password);
# otherwise the build stops with the command that installs it.
TOOLS = cc c++ nm objcopy
missing_pkgs = $(shell for p in $(PKGS); do \
	$(PKG_CONFIG) --exists $$p 2>/dev/null || echo $$p; done; \
	for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || echo $$t; done)
MISSING_PKGS := $(missing_pkgs)
ifneq ($(filter-out deps clean bench uninstall,$(or $(MAKECMDGOALS),all)),)
ifneq ($(MISSING_PKGS),)
AUTO_DEPS := $(shell if [ "$$(id -u)" -eq 0 ]; then echo root; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; \
	then echo sudo; fi)
ifneq ($(AUTO_DEPS),)
$(info missing: $(MISSING_PKGS); installing them with $(INSTALL_DEPS))
DEPS_LOG := $(shell $(if $(filter sudo,$(AUTO_DEPS)),sudo -n) \
	$(INSTALL_DEPS) >&2 || echo failed)
MISSING_PKGS := $(missing_pkgs)
endif
endif
ifneq ($(MISSING_PKGS),)
$(error missing: $(MISSING_PKGS); install them with 'sudo make deps' (or: sudo .ci/install-deps))
endif
ifeq ($(wildcard $(NVCC)),)
$(error nvcc not found at '$(NVCC)': install the CUDA Toolkit or set CUDA_HOME)
endif
endif
LIB_CFLAGS := $(shell $(PKG_CONFIG) --cflags libarchive jansson 2>/dev/null)
LIB_LIBS := $(shell $(PKG_CONFIG) --libs libarchive jansson 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)
CFLAGS += $(LIB_CFLAGS)

# ---- sources ----
EXERCISE_SRC := $(wildcard exercises/*.c exercises/*/*.c)
# Shared between grader and runner: protocol codec, large buffers and
# exercise oracles.
COMMON_SRC := harness/protocol.c harness/bigbuf.c $(EXERCISE_SRC)
GRADER_SRC := $(filter-out grader/main.c,$(wildcard grader/*.c))
# The runner's main is linked by name, and a GPU's runner's own objects
# (the wrappers of NVIDIA-only launch calls, the recorder of launch
# records, gpurec.h) as one object, runner_gpu.o; the rest of harness/
# goes into libwgrunner.a.
RUNNER_MAIN := harness/runner.c
RUNNER_GPU_SRC := harness/launches_ext.c harness/gpurec.c \
	harness/gpurec_wraps.c harness/gpurec_graph.c
# The replay's main is linked by name too (with the emulator and the
# reference objects, never with student code).
REPLAY_MAIN := harness/replay.c
RUNNER_SRC := $(filter-out harness/protocol.c harness/bigbuf.c \
	harness/probe.c $(RUNNER_MAIN) $(RUNNER_GPU_SRC) \
	$(REPLAY_MAIN),$(wildcard harness/*.c))
# The emulator: its shared modules, then its subsystems (ptx: the
# parser, vm: the interpreter and device memory, rt: the CUDA runtime
# API, perf: the performance model; docs/EMULATOR.md); it reads
# fatbinaries as the runner does (harness/fatbin.c).
EMU_DIRS := harness/emu harness/emu/ptx harness/emu/vm harness/emu/rt \
	harness/emu/perf
EMU_SRC := $(wildcard $(addsuffix /*.c,$(EMU_DIRS))) harness/fatbin.c \
	harness/emu/vm/mufu_data.S
TEST_SRC := $(wildcard tests/check_*.c)

obj = $(patsubst %.S,build/%.o,$(patsubst %.c,build/%.o,$(1)))
COMMON_OBJ := $(call obj,$(COMMON_SRC))
GRADER_OBJ := $(call obj,$(GRADER_SRC))
RUNNER_OBJ := $(call obj,$(RUNNER_SRC))
EMU_OBJ := $(call obj,$(EMU_SRC))
TEST_BIN := $(patsubst tests/%.c,build/tests/%,$(TEST_SRC))

all: bin/warpgrade build/libwgrunner.a build/libwgemu.a \
	build/libwgemu_internal.a build/wg-probe \
	$(call obj,$(RUNNER_MAIN)) build/harness/runner_gpu.o \
	$(call obj,$(REPLAY_MAIN))

-include harness/emu/emu.mk
-include mk/integrations.mk
-include mk/install.mk

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The special-function unit's tables, compressed, in the emulator's
# read-only data; and its reader, which carries liblzma (the static
# archive of Debian's liblzma-dev) to unpack them, so that nothing
# linked with the emulator needs liblzma itself.
build/harness/emu/vm/mufu_data.o: harness/emu/vm/mufu_data.S \
		$(wildcard harness/emu/vm/mufu/*.xz)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  AS      $<")
	$(Q)$(CC) -c $< -o $@
LZMA_A := $(shell $(CC) -print-file-name=liblzma.a)
build/harness/emu/vm/mufu.o: harness/emu/vm/mufu.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -MT $@ -MF $(@:.o=.d) \
		-c $< -o $@.own
	$(Q)ld -r -o $@ $@.own $(LZMA_A)
	$(Q)rm -f $@.own

# The trust boundary.  The grader is trusted; the emulator is the
# untrusted side's (docs/SECURITY.md), and the grader reads the runner
# and the replay only through the wire (harness/protocol.h).  So a
# grader object is compiled with grader/, exercises/ and
# build/include/grader/, which holds links to the few harness headers
# the grader shares with the runner, and no path from which harness/emu/
# can be reached.  A path can still be spelt out ("../harness/emu/..."):
# after each grader object, mk/trusted-includes reads the headers it was
# compiled with (its dependency file) and fails the build if any of them
# lies under harness/emu/, however it was named.
GRADER_HARNESS_H := protocol.h bigbuf.h crashlog.h wraps.h
GRADER_INC := build/include/grader
GRADER_INC_H := $(addprefix $(GRADER_INC)/,$(GRADER_HARNESS_H))
build/grader/%.o: INCLUDES = -Igrader -Iexercises -I$(GRADER_INC)
build/grader/%.o: grader/%.c | $(GRADER_INC_H)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
	$(Q)sh mk/trusted-includes $(@:.o=.d) harness/emu || \
		{ rm -f $@; exit 1; }

$(GRADER_INC_H): $(GRADER_INC)/%.h: harness/%.h
	@mkdir -p $(dir $@)
	$(Q)ln -sfn ../../../$< $@

build/libwgcore.a: $(COMMON_OBJ) $(GRADER_OBJ)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The runner library: everything the runner executable is linked from,
# apart from the submission's and the reference's objects and the CUDA
# runtime (NVIDIA's libcudart or build/libwgemu.a).
build/libwgrunner.a: $(RUNNER_OBJ) $(COMMON_OBJ)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# (the launch record's writer is the emulator's, emu/trace.h)
build/harness/runner_gpu.o: $(call obj,$(RUNNER_GPU_SRC)) \
		build/harness/emu/trace.o
	$(if $(Q),@echo "  LD -r   $@")
	$(Q)ld -r -o $@ $^

# The emulator runtime, linked beside student code: one relocatable
# object of all its objects whose only global names are the CUDA
# runtime API it defines (cuda*, and the __cuda* hooks nvcc's host
# stubs call) and the functions wgemu.h declares, so that a student's
# function named as one of its internals (emu_run, mem_ld ...) clashes
# with nothing.  build/libwgemu.syms is the list of names kept.
build/libwgemu.o: $(EMU_OBJ) harness/emu/wgemu.h
	$(if $(Q),@echo "  LD -r   $@")
	$(Q)ld -r -o $@.all $(EMU_OBJ)
	$(Q){ nm -g --defined-only $@.all | \
		awk '$$3 ~ /^(cuda|__cuda)/ { print $$3 }'; \
		grep -o 'wgemu_[a-z0-9_]* *(' harness/emu/wgemu.h | \
		tr -d ' ('; } | sort -u > build/libwgemu.syms
	$(Q)objcopy --keep-global-symbols=build/libwgemu.syms $@.all $@
	$(Q)rm -f $@.all

build/libwgemu.a: build/libwgemu.o
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The same objects with every name global, for the emulator's tests and
# tools, which call its internals (emu_ptx_parse, the performance
# model ...).  Never linked with student code.
build/libwgemu_internal.a: $(EMU_OBJ)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The replay reads launch records with the emulator's reader
# (emu/trace.h), which the closed libwgemu.a keeps to itself: its object
# carries a copy, as runner_gpu.o does for the writer.
build/harness/replay.o: build/harness/replay_main.o \
		build/harness/emu/trace.o
	$(if $(Q),@echo "  LD -r   $@")
	$(Q)ld -r -o $@ $(filter %.o,$^)

build/harness/replay_main.o: harness/replay.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The GPU probe the grader runs instead of calling CUDA itself.
build/wg-probe: harness/probe.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -o $@ $< \
		-L$(CUDA_HOME)/lib64 \
		-lcudart_static -ldl -lrt -lpthread

# The emulator's compile and link flags are compiled into the grader.
build/grader/build.o: CPPFLAGS += -DWG_EMU_NVCC_FLAGS='"$(EMU_NVCC_FLAGS)"' \
	-DWG_EMU_LINK_LIBS='"$(EMU_LINK_LIBS)"'
build/grader/build.o: $(wildcard harness/emu/emu.mk)

bin/warpgrade: build/grader/main.o build/libwgcore.a
	@mkdir -p bin
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< build/libwgcore.a $(LIB_LIBS) -lm

# The ISA conformance driver on the emulator (tests/isa/run.c), and its
# test, which compares it with an H100's outputs.
build/isa-run-emu: tests/isa/run.c tests/isa/isa.c tests/isa/isa.h \
		build/libwgemu.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -Itests/isa -o $@ \
		tests/isa/run.c tests/isa/isa.c build/libwgemu.a \
		-lstdc++ -lm -lpthread

build/tests/check_isa: tests/check_isa.c tests/isa/isa.c tests/isa/isa.h \
		build/isa-run-emu
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -Itests -o $@ \
		tests/check_isa.c tests/isa/isa.c $(LDFLAGS) $(CHECK_LIBS) \
		-lnettle -lm

# (the runner's library for its host-side pieces, over the emulator's
# runtime: its internal archive, as the tests call its internals; the
# closed one is what grading links)
TEST_LIBS = build/libwgcore.a build/libwgrunner.a build/libwgemu_internal.a
test_link = $(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -Itests -o $@ \
	$(filter %.c %.o,$^) $(TEST_LIBS) $(LDFLAGS) $(LIB_LIBS) \
	$(CHECK_LIBS) -lm -lpthread

build/tests/%: tests/%.c $(TEST_LIBS) build/libwgemu.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(test_link)

# The emulator's tests, one group a file (tests/check_emu_<group>.c),
# share tests/emu_helpers.c.
EMU_TEST_GROUPS := parser control_flow faults counters runtime_api sync cmd \
	scalar urun
EMU_TEST_BIN := $(addprefix build/tests/check_emu_,$(EMU_TEST_GROUPS))

build/tests/emu_helpers.o: tests/emu_helpers.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -Itests -c $< -o $@

$(EMU_TEST_BIN): build/tests/check_emu_%: tests/check_emu_%.c \
		build/tests/emu_helpers.o $(TEST_LIBS) build/libwgemu.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(test_link)

# The verification tests share tests/verify_fixture.c.
VERIFY_TEST_BIN := build/tests/check_verify build/tests/check_technique

build/tests/verify_fixture.o: tests/verify_fixture.c tests/verify_fixture.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(INCLUDES) $(CPPFLAGS) $(CFLAGS) $(CHECK_CFLAGS) -Itests -c $< -o $@

$(VERIFY_TEST_BIN): build/tests/check_%: tests/check_%.c \
		build/tests/verify_fixture.o $(TEST_LIBS) build/libwgemu.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(test_link)

# ---- user targets ----
.PHONY: all check check-gpu demo bench bench-emu coverage deps clean fuzz check-trust

deps:
	$(INSTALL_DEPS)

check: all $(TEST_BIN)
	$(Q)tests/run-tests $(TEST_BIN)

# `make check` reads every grader object's headers again, and makes sure
# the check itself still refuses an emulator header.
check: check-trust
check-trust: all
	$(Q)for d in $(patsubst %.o,%.d,$(GRADER_OBJ) build/grader/main.o); \
	do sh mk/trusted-includes $$d harness/emu || exit 1; done
	$(Q)printf 'x.o: grader/x.c grader/../harness/emu/wgemu.h\n' \
		> build/trust-probe.dep
	$(Q)if sh mk/trusted-includes build/trust-probe.dep harness/emu \
		2>/dev/null; then echo "mk/trusted-includes let" \
		"harness/emu/wgemu.h through" >&2; exit 1; fi
	$(Q)rm -f build/trust-probe.dep
	@echo "trust boundary: no grader object reads harness/emu/"

check-gpu: all
	$(Q)tests/run-gpu-tests

demo: all
	$(Q)bin/warpgrade grade tests/fixtures/good/submission

# The benchmark builds what it needs with nvcc alone: GPU hosts need none
# of the Debian libraries for it.
bench:
	$(Q)bench/run-bench

# The emulator's speed, no GPU needed: the interpreter on a submission's
# sweeps, then a grade against compiling its files.
bench-emu: all
	$(Q)bench/emu-sweep
	$(Q)bench/grade-vs-compile

coverage:
	$(MAKE) clean
	$(MAKE) COVFLAGS=--coverage OPT=-O0 check
	lcov --quiet --capture --directory build --output-file build/coverage.info
	genhtml --quiet build/coverage.info --output-directory build/coverage
	@echo "coverage report: build/coverage/index.html"

# Fuzzing (clang with libFuzzer): FUZZ_SECONDS per target, one after the
# other; new inputs and crash files go under build/fuzz/.
CLANG ?= clang
FUZZ_SECONDS ?= 3600
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
	-I. -Iharness -Igrader -I$(CUDA_HOME)/include \
	-DWG_CUDA_HOME='"$(CUDA_HOME)"' $(LIB_CFLAGS)
build/fuzz/intake_fuzz: fuzz/intake_fuzz.c $(wildcard grader/intake*.c)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $^ -larchive
build/fuzz/emu_ptx_fuzz: fuzz/emu_ptx_fuzz.c $(EMU_SRC)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $^ -llzma -lm -lstdc++
# The grader's readers of untrusted or hand-written input, linked with the
# whole grader library.
FUZZ_GRADER = $(GRADER_SRC) $(COMMON_SRC)
build/fuzz/protocol_fuzz build/fuzz/config_fuzz: build/fuzz/%: fuzz/%.c \
	$(FUZZ_GRADER)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_FLAGS) -Iexercises -o $@ $^ $(LIB_LIBS) -lm

FUZZ_TARGETS = intake_fuzz emu_ptx_fuzz protocol_fuzz config_fuzz
fuzz: $(addprefix build/fuzz/,$(FUZZ_TARGETS))
	@mkdir -p build/fuzz/intake_work build/fuzz/emu_work \
		build/fuzz/protocol_work build/fuzz/config_work
	cd build/fuzz && ./intake_fuzz -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -rss_limit_mb=1024 intake_work \
		../../fuzz/intake_corpus
	cd build/fuzz && ./emu_ptx_fuzz -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -rss_limit_mb=2048 -dict=../../fuzz/emu_ptx.dict \
		emu_work ../../fuzz/emu_corpus
	cd build/fuzz && ./protocol_fuzz -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -rss_limit_mb=2048 protocol_work \
		../../fuzz/protocol_corpus
	cd build/fuzz && ./config_fuzz -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -rss_limit_mb=1024 config_work \
		../../fuzz/config_corpus

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
