/*
 * spgo/emulate.h: emulated sampling, the stage behind `spgo emulate`.  The
 * QEMU plugin (emulate/spgo_emu.c) writes a trace of the run and, for
 * ground truth, the exact counts; this stage turns them into what `perf
 * record -b -g` would have written on a machine with LBR (a perf.data with
 * IP, TID, TIME, PERIOD, CALLCHAIN and BRANCH_STACK samples, COMM, FORK and
 * MMAP2 records with build-ids) and the ground-truth file
 * (spgo/ground_truth.h); and it runs QEMU with the plugin.
 *
 * Contract
 *  - The trace format is internal (src/emulate/trace.h): the plugin and
 *    this stage are built from the same tree.
 *  - Errors: -1 with spgo_error() naming the file and offset; no output
 *    file is left behind (spgo/perf_write.h).
 *
 * Owns src/emulate/; depends on spgo/common.h, spgo/binary.h (the mapped
 * images' segments and build-ids), spgo/perf_write.h and
 * spgo/ground_truth.h.
 */
#ifndef SPGO_EMULATE_H
#define SPGO_EMULATE_H

#include <stddef.h>
#include <stdint.h>

/* The branch records a capture has, as one machine's PMU records them
 * with `perf record -b` (docs/commands/spgo-emulate.md). */
enum spgo_emu_shape {
	SPGO_EMU_SHAPE_AUTO = 0, /* the guest's own: lbr on x86-64, brbe on AArch64 */
	SPGO_EMU_SHAPE_LBR,      /* Intel LBR: up to 32 entries, with call stacks */
	SPGO_EMU_SHAPE_BRBE,     /* Arm BRBE: up to 64, branch type and privilege,
				  * system calls with a zero address, call stacks */
	SPGO_EMU_SHAPE_BRS,      /* AMD Zen3 BRS: 16 taken branches, no stacks, no
				  * prediction bits */
	SPGO_EMU_SHAPE_AMD_LBR,  /* AMD Zen4/Zen5 LbrExtV2: 16 entries with
				  * speculation bits, no stacks */
};

struct spgo_emu_options {
	const char *output;   /* perf.data */
	const char *truth;    /* ground-truth file, or NULL */
	const char *truth_cs; /* context-sensitive ground-truth file, or NULL */
	const char *cscounts; /* (set by spgo_emu_run) the plugin's CS counts file */
	int truth_all;        /* ground truth for shared objects too */
	int instructions;     /* sample on instructions, not taken branches */
	uint64_t period;      /* mean sampling period */
	unsigned lbr;         /* branch stack depth; 0: the shape's */
	enum spgo_emu_shape shape;
	int wrong_path;       /* amd-lbr: 1 in N fall-throughs of a conditional
			       * branch leave a wrong-path record (0 none; -1
			       * the shape's default, 32) */
	const char *sysroot;  /* where a foreign guest's libraries are (qemu -L);
			       * NULL: $QEMU_LD_PREFIX, else /usr/<triple> */
	unsigned skid;        /* maximal skid in blocks */
	unsigned max_stack;   /* callchain entries kept (IP included) */
	unsigned truncate;    /* percent of stacks cut short */
	uint64_t seed;
};

/* What a conversion saw. */
struct spgo_emu_stats {
	uint64_t samples;
	uint64_t threads; /* the main thread and those it started */
	uint64_t forks;   /* processes it started, which the emulation did not follow */
	uint64_t execs;   /* programs it executed (execve), not followed either */
	uint64_t bytes;   /* of the perf.data written */
	int exited;       /* the program called exit_group(exit_code) */
	int exit_code;
};

/* The shape's name ("lbr", "brbe", "brs", "amd-lbr"), and the shape a
 * name stands for (-1 when none). */
const char *spgo_emu_shape_name(enum spgo_emu_shape shape);
int spgo_emu_shape_of(const char *name);

/* Settle opt->shape (AUTO: the guest's) and opt->lbr (0: the shape's
 * depth) for a guest of ELF machine m: -1 with spgo_error() when the shape
 * is another ISA's (brbe is AArch64's; lbr, brs and amd-lbr x86-64's) or
 * the depth exceeds the shape's. */
int spgo_emu_settle(struct spgo_emu_options *opt, unsigned m);

/* Convert the plugin's files into opt->output (and opt->truth); argv is
 * recorded as the perf.data command line.  st may be NULL. */
int spgo_emu_convert(const struct spgo_emu_options *opt, const char *trace, const char *counts,
		     int argc, char **argv, struct spgo_emu_stats *st);

/* ---- running QEMU (src/emulate/run.c) ---- */

/* The plugin: given (if not NULL), else $SPGO_EMULATE_PLUGIN, else
 * emulate/spgo-emulate.so beside the running program (a build tree), else
 * ../lib/spgo/spgo-emulate.so relative to it (an installation); NULL when
 * none is found.  Free the result. */
char *spgo_emu_find_plugin(const char *given);
/* cmd as a shell finds it: a name with a '/' as it is, else the first
 * executable regular file of that name in $PATH; NULL with spgo_error()
 * ("CMD: command not found").  Free the result. */
char *spgo_emu_which(const char *cmd);
/* Can QEMU run prog (spgo_emu_which()'s answer), with args its
 * arguments?  0 when it is an x86-64 or AArch64 ELF program, its e_machine
 * in *machine; else a shell's status (127 not found, 126 the rest) with
 * spgo_error() saying what prog is instead and the way to emulate it (a #!
 * script: its interpreter). */
int spgo_emu_check_program(const char *prog, char *const *args, unsigned *machine);
/* The QEMU user-mode program for ELF machine m ("qemu-x86_64",
 * "qemu-aarch64"), and the default sysroot of its libraries (NULL for the
 * host's own). */
const char *spgo_emu_qemu_for(unsigned m);
const char *spgo_emu_sysroot_for(unsigned m);

struct spgo_emu_run {
	const char *qemu;   /* the qemu-x86_64 or qemu-aarch64 program (from PATH) */
	const char *plugin; /* spgo_emu_find_plugin() */
	char **cmd;         /* the program (a path: spgo_emu_which()) and its arguments */
	int argc;           /* the command line recorded in perf.data */
	char **argv;
	/* Results. */
	int status;       /* the program's exit status, or 128 + its signal */
	int signal;       /* the signal that stopped the run (SIGTERM, SIGINT, SIGHUP), or 0 */
	double seconds;   /* the emulation's wall time */
	struct spgo_emu_stats stats;
};

/*
 * Run r->cmd under QEMU with the plugin, its files in a temporary directory
 * ($TMPDIR or /tmp), and convert them (spgo_emu_convert).  SIGTERM, SIGINT
 * and SIGHUP are passed on to QEMU; after SIGTERM or SIGHUP nothing is
 * converted (-1, r->signal set); after SIGINT (Ctrl-C: the program was
 * stopped on purpose) what was traced is.  QEMU dies with spgo (its parent
 * death signal), and the temporary files are removed in every case.
 */
int spgo_emu_run(const struct spgo_emu_options *opt, struct spgo_emu_run *r);

/* The context-sensitive ground truth's emulator side (src/emulate/truth_cs.c). */
/*
 * the main binary's function entries, for the plugin to
 * tell tail calls (its entries=FILE: u64 lowest executable p_vaddr, u64 n,
 * n sorted p_vaddrs).
 */
int spgo_gt_cs_write_entries(const char *binary, const char *out);
/*
 * the plugin's context-sensitive counts (cscounts=FILE)
 * into the file above.  map() turns a runtime address into the main
 * binary's p_vaddr (1) or says it lies elsewhere (0); path, build-id and
 * depth go to the header.
 */
typedef int (*spgo_gt_map_fn)(void *arg, uint64_t addr, uint64_t *vaddr);
int spgo_gt_cs_convert(const char *cscounts, spgo_gt_map_fn map, void *arg, const char *path,
		       const uint8_t *build_id, size_t build_id_len, unsigned depth, const char *out);

#endif
