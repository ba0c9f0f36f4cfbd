/*
 * spe_out.h: the Arm SPE output of `spgo emulate` (spe_out.c), internal to
 * src/emulate.  The emulated run's taken-branch samples (each with the
 * branch stack before it) become SPE branch records, written as real SPE
 * packets in AUXTRACE records of the perf.data.
 */
#ifndef SPGO_EMULATE_SPE_OUT_H
#define SPGO_EMULATE_SPE_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "emulate/trace.h"
#include "spgo/binary.h"
#include "spgo/perf_write.h"

/* The attr.type of the SPE event and the AUXTRACE_INFO's PMU type: a
 * number as the kernel gives dynamic PMUs (perf matches the two). */
#define SPE_OUT_PMU_TYPE 8

/* The decoded instructions around a runtime address: the binary's table
 * (sorted by vaddr) and bias = runtime - vaddr for that mapping; 0, or -1
 * when the address is in no known binary. */
typedef int (*spe_code_fn)(void *arg, uint64_t addr, const struct spgo_insn **insns, size_t *n,
			   uint64_t *bias);

struct spe_out;
/* pbt: write the previous-branch-target packet. */
struct spe_out *spe_out_new(struct spgo_perf_writer *w, int pbt, spe_code_fn code, void *arg);
/* The AUXTRACE_INFO record (before any other record) and the SPE event's attr. */
int spe_out_begin(struct spe_out *o, uint64_t period);
/* One taken-branch sample of the trace: the records of the branches that ran
 * since the branch before the newest (see spe_out.c). */
int spe_out_sample(struct spe_out *o, const struct emu_sample *s);
/* Write what is buffered (each thread's packets as one AUXTRACE record). */
int spe_out_flush(struct spe_out *o);
uint64_t spe_out_records(const struct spe_out *o);
void spe_out_free(struct spe_out *o);

#endif
