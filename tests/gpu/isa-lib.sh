# Shell functions of the emulator-against-GPU ISA runs, sourced by
# tests/gpu/isa-conformance.sh and tests/gpu/isa-fuzz.sh from the
# repository root, with $out the folder of their tools and reports.

# isa_tools: builds the GPU driver, the emulator driver and the compare
# tool into $out (needs nvcc and build/libwgemu.a)
isa_tools() {
	cuda=${CUDA_HOME:-/usr/local/cuda}
	"$cuda/bin/nvcc" -O2 -DISA_GPU -x c -Itests/isa \
		-o "$out/isa-run-gpu" tests/isa/run.c tests/isa/isa.c -lcuda &&
	cc -O2 -Iharness -Itests/isa -I"$cuda/include" -o "$out/isa-run-emu" \
		tests/isa/run.c tests/isa/isa.c build/libwgemu.a -lstdc++ \
		-lm -lpthread &&
	cc -O2 -Itests/isa -o "$out/isa-compare" tests/isa/compare.c \
		tests/isa/isa.c -lm
}

# isa_run DIR: the cases of DIR on the GPU and the emulator, compared
isa_run() {
	"$out/isa-run-gpu" "$1" && WGEMU_QUIET=1 "$out/isa-run-emu" "$1" &&
	"$out/isa-compare" "$1" "$1/isa.gpu.out" "$1/isa.emu.out"
}

# isa_first_step REPORT: the first step of a fuzz kernel's prefixes that
# differs, from isa-compare's report of them
isa_first_step() {
	sed -n 's/^fuzz[0-9]*\.\([0-9]*\):[^:]*|\([^|:]*\): \(.*\)/step \1 (\2): \3/p;
		s/^fuzz[0-9]*\.\(1\):\([^|:]*\): \(.*\)/step 1 (\2): \3/p' \
		"$1" | head -1
}

# isa_steps SEED KERNEL KERNELS REPORT: fuzz kernel KERNEL of seed SEED
# (of KERNELS) that differs: its chain's prefixes run on both, kept in
# $out/steps-SEED-KERNEL (the corpus of fuzz/isa), and again on the GPU
# with ptxas not optimising (isa-run -O0): where that run agrees with the
# emulator the difference is the optimiser's (a fold or fusion that
# departs from the PTX), not an instruction's.  One line to REPORT.
isa_steps() {
	d="$out/steps-$1-$2"
	mkdir -p "$d"
	python3 tests/isa/gen.py "$1" "$d" --fuzz "$3" --steps "$2"
	isa_run "$d" >"$d/report.txt" 2>&1
	"$out/isa-run-gpu" -O0 "$d" &&
		"$out/isa-compare" "$d" "$d/isa.gpu-O0.out" "$d/isa.emu.out" \
		>"$d/report-O0.txt" 2>&1
	if [ $? -eq 0 ]; then
		o0="the optimiser's: alike without it"
	else
		o0="without the optimiser too, at $(isa_first_step \
			"$d/report-O0.txt")"
	fi
	echo "  fuzz$2 of seed $1 first differs at: $(isa_first_step \
		"$d/report.txt"); $o0" >>"$4"
}
