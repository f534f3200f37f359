/*
 * The special-function unit's tables (mufu.c), as tests/gpu/mufu_tables.cu
 * wrote them on an H100 and xz compressed them: harness/emu/vm/mufu/.
 */
	.section .rodata
	.global emu_mufu_xz_rcp, emu_mufu_xz_rcp_end
emu_mufu_xz_rcp:
	.incbin "harness/emu/vm/mufu/rcp.xz"
emu_mufu_xz_rcp_end:
	.global emu_mufu_xz_rsqrt, emu_mufu_xz_rsqrt_end
emu_mufu_xz_rsqrt:
	.incbin "harness/emu/vm/mufu/rsqrt.xz"
emu_mufu_xz_rsqrt_end:
	.global emu_mufu_xz_sqrt, emu_mufu_xz_sqrt_end
emu_mufu_xz_sqrt:
	.incbin "harness/emu/vm/mufu/sqrt.xz"
emu_mufu_xz_sqrt_end:
	.global emu_mufu_xz_ex2p, emu_mufu_xz_ex2p_end
emu_mufu_xz_ex2p:
	.incbin "harness/emu/vm/mufu/ex2p.xz"
emu_mufu_xz_ex2p_end:
	.global emu_mufu_xz_ex2n, emu_mufu_xz_ex2n_end
emu_mufu_xz_ex2n:
	.incbin "harness/emu/vm/mufu/ex2n.xz"
emu_mufu_xz_ex2n_end:
	.global emu_mufu_xz_lg2, emu_mufu_xz_lg2_end
emu_mufu_xz_lg2:
	.incbin "harness/emu/vm/mufu/lg2.xz"
emu_mufu_xz_lg2_end:
	.global emu_mufu_xz_lg2h, emu_mufu_xz_lg2h_end
emu_mufu_xz_lg2h:
	.incbin "harness/emu/vm/mufu/lg2h.xz"
emu_mufu_xz_lg2h_end:
	.global emu_mufu_xz_rcp64, emu_mufu_xz_rcp64_end
emu_mufu_xz_rcp64:
	.incbin "harness/emu/vm/mufu/rcp64.xz"
emu_mufu_xz_rcp64_end:
	.section .note.GNU-stack,"",@progbits
