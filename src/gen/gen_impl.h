/*
 * gen_impl.h: what the files of the generator share.  gen.c drives and
 * turns per-instruction counts into the source-level profile; gen_lbr.c
 * makes per-instruction counts from LBR ranges, gen_ip.c from IP samples.
 */
#ifndef SPGO_GEN_IMPL_H
#define SPGO_GEN_IMPL_H

#include "spgo/binary.h"
#include "spgo/gen.h"

struct gen {
	struct spgo_aggregate *agg;
	struct spgo_binary *bin;
	const struct spgo_gen_opts *o;
	struct spgo_gen_stats *st;
	struct spgo_profile *p;
	const struct spgo_insn *insns; /* every instruction, by address */
	size_t ninsns;
	const struct spgo_function *funcs;
	size_t nfuncs;
	/* the binary's functions; funcs is gcc_funcs when GCC mode renamed
	 * some (gen_gcc_names) */
	const struct spgo_function *bin_funcs;
	struct spgo_function *gcc_funcs;
	char **gcc_names; /* per part: its own name in gcc_funcs, or NULL */
	uint64_t *count;  /* per instruction: its execution count */
	uint8_t *present; /* per instruction: 1 if in a function with samples */
	struct spgo_kmap names; /* binary name pointer -> profile name id + 1 */
	/* Function parts grouped by name: name hash -> first part + 1, then
	 * next[part] (-1 ends); touched: name hashes already marked present. */
	struct spgo_kmap byname, touched;
	int32_t *next;
	const struct spgo_gt_dso *truth; /* spgo_gen_truth() only */
	int probes; /* probe-based profile (gen_probe.c) instead of lines */
	/* ... the GUIDs of the sampled functions with debug information: the
	 * probe records llvm-profgen decodes (gen_probe_decoded) */
	struct spgo_kmap probe_guids;
	uint8_t *emit; /* GCC mode: per part, 1 if above the noise floor
			  (gen_gcc.c); NULL: every part */
	uint64_t *weight, weight_total; /* ... the parts' weights, while counting */
};

/* Index of the instruction starting at addr, or -1. */
long gen_insn_index(const struct gen *g, uint64_t addr);
/* Index of the first instruction at or after addr. */
size_t gen_insn_lower(const struct gen *g, uint64_t addr);
/* Mark the instructions of every part of the function containing addr
 * (all parts with its name, e.g. foo and foo.cold) present. */
void gen_touch_function(struct gen *g, uint64_t addr);

/* IP-mode counts are in units of 1/GEN_IP_SCALE sample (gen_ip.c). */
#define GEN_IP_SCALE 16

int gen_lbr_counts(struct gen *g);
/* gen_spe.c: on Arm SPE data, inference over the sampled functions' CFGs
 * after the range counts (0, or -1 for an unknown --infer algorithm). */
int gen_spe_infer(struct gen *g);
int gen_ip_counts(struct gen *g);
/* IP mode: call targets and head samples from direct (tail) calls. */
void gen_ip_calls(struct gen *g);
/* gen_icall.c: the {site, target} -> samples map of the collector. */
const struct spgo_kmap *gen_icall_pairs(const struct spgo_gen_icalls *c);

/* Add count to the call target `callee` at the innermost location of the
 * inline stack at addr (creating the profiles along the stack). */
void gen_add_call(struct gen *g, uint64_t addr, const char *callee, uint64_t count);
/* The profile name id of a binary function name (canonical, cached). */
uint32_t gen_name_id(struct gen *g, const char *name);
/* gen_gcc.c: GCC mode's noise floor.  Begin weighing (sampled data in
 * GCC mode only); the counting pass adds each LBR range's count x
 * (end - begin), or each IP sample, at its address; after the counts, the
 * floor sets emit and clears the parts below it; is the part at addr
 * above it (1 without a floor)? */
void gen_gcc_weigh_begin(struct gen *g);
void gen_gcc_weigh(struct gen *g, uint64_t addr, uint64_t x);
void gen_gcc_floor(struct gen *g);
int gen_gcc_emitted(const struct gen *g, uint64_t addr);
/* gen_gcc.c: GCC mode's names of internal-linkage C++ functions (g++
 * gives them no DW_AT_linkage_name): the ELF symbol up to its first '.',
 * which gcc looks up first, in a copy of funcs (gcc_funcs). */
void gen_gcc_names(struct gen *g);
void gen_gcc_names_free(struct gen *g);
/* The function part at addr, from funcs (renamed in GCC mode), or NULL. */
const struct spgo_function *gen_function_at(const struct gen *g, uint64_t addr);
/* The name the profile gives the out-of-line function that the outermost
 * inline frame at addr names (dwarf: its DWARF name). */
const char *gen_top_name(const struct gen *g, uint64_t addr, const char *dwarf);
/* gen_probe.c: bodies and call targets keyed by pseudo-probe, from the
 * probe records llvm-profgen decodes: those of the sampled functions
 * (with samples, or left or entered by a branch), which
 * gen_probe_decoded() finds first (probe_guids). */
void gen_probe_decoded(struct gen *g);
void gen_probe_bodies(struct gen *g);
void gen_probe_call(struct gen *g, uint64_t addr, const char *callee, uint64_t count);
/* Head samples of callee from a call: none in a probe-based profile (its
 * entry probe gives them). */
void gen_add_head(struct gen *g, const char *callee, uint64_t count);

/* The function entered at addr (not a split part), or NULL. */
const struct spgo_function *gen_entry_at(struct gen *g, uint64_t addr);

/* kernel.c: spgo gen --kernel.  begin: the job's inputs checked, agg set
 * to the kernel image, an aggregate per module in *mods (NULL without
 * --kernel), fed with agg by the job's reading; profile: vmlinux's and
 * the modules' profiles merged into *out; free: the modules' aggregates. */
struct spgo_gen_job;
int gen_kernel_begin(struct spgo_gen_job *j, struct spgo_aggregate *agg, struct spgo_aggregate ***mods);
int gen_kernel_profile(const struct spgo_gen_job *j, struct spgo_aggregate *agg,
		       struct spgo_aggregate **mods, struct spgo_profile **out, struct spgo_gen_stats *st);
void gen_kernel_free(const struct spgo_gen_job *j, struct spgo_aggregate **mods);

/* job_out.c: the job's profile p, finished.  trim_cold: non-CS
 * --trim-cold-profile (p freed, the trimmed profile returned); check_more:
 * the formats of the other outputs against out's, once chosen (0, or -1
 * with spgo_error()); finish_out: --show-density, then write_out: p (which
 * these free) to every output of the job and its tap's, all or none (bin:
 * for --populate-profile-symbol-list, or NULL). */
struct spgo_profile *gen_job_trim_cold(const struct spgo_gen_job *j, struct spgo_profile *p);
int gen_job_check_more(const struct spgo_gen_job *j);
int gen_job_finish_out(const struct spgo_gen_job *j, struct spgo_profile *p, struct spgo_binary *bin);
int gen_job_write_out(const struct spgo_gen_job *j, struct spgo_profile *p);

#endif
