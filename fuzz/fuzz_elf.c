/* An ELF file through the binary model: headers, symbols, the function
 * table, disassembly, DWARF (spgo's line tables, libdw's DIEs), every
 * instruction symbolized, pseudo-probes and their inline chains,
 * control-flow facts and binary CFGs. */
#include "fuzz.h"
#include "spgo/binary.h"
#include "spgo/infer.h"
#include "spgo/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path(data, size);
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, path, NULL) < 0)
		return 0;
	size_t n, nf, ns;
	spgo_binary_symbols(bin, &ns);
	uint64_t addr;
	size_t len;
	spgo_binary_section(bin, ".text", &addr, &len);
	if (spgo_binary_check_machine(bin) == 0) {
		const struct spgo_insn *insns = spgo_binary_insns(bin, &n);
		const struct spgo_function *fns = spgo_binary_functions(bin, &nf);
		struct spgo_frame frames[16];
		uint64_t targets[64];
		for (size_t i = 0; i < n && i < 20000; i++) {
			spgo_binary_symbolize(bin, insns[i].addr, frames, 16);
			spgo_binary_symbol_at(bin, insns[i].addr);
			spgo_binary_profgen_code(bin, insns[i].addr);
			if (insns[i].cls == SPGO_INSN_INDIRECT_JUMP) {
				spgo_binary_jump_table(bin, insns[i].addr, targets, 64);
				spgo_binary_is_tail_call(bin, insns[i].addr);
			}
			if (insns[i].cls == SPGO_INSN_CALL)
				spgo_binary_is_noreturn(bin, insns[i].target);
		}
		if (spgo_binary_load_probes(bin) == 1) {
			size_t np, k;
			const struct spgo_probe *probes = spgo_binary_probes(bin, &np);
			struct spgo_probe_frame pf[16];
			for (size_t i = 0; i < np && i < 20000; i++) {
				spgo_probe_inline_chain(bin, &probes[i], pf, 16);
				spgo_binary_probes_at(bin, probes[i].addr, &k);
			}
		}
		struct spgo_bb_addr_map bbmap = {0};
		const uint8_t *bb = spgo_binary_section(bin, ".llvm_bb_addr_map", &addr, &len);
		if (bb)
			spgo_bb_addr_map_parse(&bbmap, bb, len, ".llvm_bb_addr_map");
		for (size_t i = 0; i < nf && i < 200; i++) {
			struct spgo_cfg cfg;
			if (fns[i].parent < 0 && spgo_cfg_from_binary(&cfg, bin, fns[i].start, &bbmap) == 0)
				spgo_cfg_free(&cfg);
		}
		spgo_bb_addr_map_free(&bbmap);
	}
	spgo_binary_close(bin);
	return 0;
}
