# Make rules of the emulator runtime (harness/emu), included by the
# top-level Makefile.
#
# EMU_NVCC_FLAGS: how a .cu must be compiled ('nvcc -c') for the emulator
# to find its kernels: PTX for compute_90 embedded uncompressed in the
# object's fatbinary, with line information for per-line counters and
# fault messages.
# EMU_LINK_LIBS: what to link instead of libcudart (link with g++, or
# with 'nvcc -cudart none'); -lstdc++ gives the emulator C++ demangling.
EMU_NVCC_FLAGS = -gencode arch=compute_90,code=compute_90 -lineinfo \
	-no-compress
EMU_LINK_LIBS = build/libwgemu.a -lstdc++ -lm -lpthread
# EMU_STUB_LIBS: for 'warpgrade emu' only, after EMU_LINK_LIBS: the
# runtime functions the emulator lacks, as stubs that return
# cudaErrorNotSupported when called (harness/emu/stubs/gen-stubs).  The
# grader links without them, so an unimplemented call is found at link.
EMU_STUB_LIBS = build/libwgemu_stubs.a

all: build/libwgemu_stubs.a

build/libwgemu_stubs.a: build/harness/emu/stubs/stubs.o
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

.PHONY: emu-bench emu-fuzz check-samples check-rodinia

# NVIDIA's cuda-samples on the emulator (docs/CONFORMANCE.md): set
# CUDA_SAMPLES to a checkout or export of github.com/NVIDIA/cuda-samples.
check-samples: all
	$(Q)tests/emu/cuda-samples.sh $(CUDA_SAMPLES)

# Rodinia's CUDA programs on the emulator (docs/CONFORMANCE.md): set RODINIA
# to a checkout or export of github.com/yuhc/gpu-rodinia, and
# WG_RODINIA_REF to a native run's outputs to compare with.
check-rodinia: all
	$(Q)tests/emu/rodinia.sh $(RODINIA)

# Throughput benchmark of the interpreter (docs/EMULATOR.md).
emu-bench: build/libwgemu.a
	$(Q)tests/emu/bench

# 'warpgrade emu' compiles and links with the same flags.
build/grader/cmd_emu.o: CPPFLAGS += \
	-DWG_EMU_NVCC_FLAGS='"$(EMU_NVCC_FLAGS)"' \
	-DWG_EMU_LINK_LIBS='"$(EMU_LINK_LIBS)"' \
	-DWG_EMU_STUB_LIBS='"$(EMU_STUB_LIBS)"'
# main.c refers to cmd_emu weakly, which does not pull it out of
# libwgcore.a: ask the linker for it.
bin/warpgrade: LDFLAGS += -Wl,-u,cmd_emu
