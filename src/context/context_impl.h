/*
 * context_impl.h: what the files of the context stage share.  unwind.c has
 * the code facts, the frame trie and the unwinder; tailcall.c the
 * missing-frame inference; profile.c turns the trie into a CS profile.
 */
#ifndef SPGO_CONTEXT_IMPL_H
#define SPGO_CONTEXT_IMPL_H

#include "spgo/context.h"

/* Per-instruction flags of struct spgo_cs_code. */
enum {
	CS_PROEPI = 1,   /* in a prologue or epilogue */
	CS_KEY_DONE = 2, /* keys[i] is computed */
};

/* The root frame's address (no code lives there). */
#define CS_ROOT_ADDR (UINT64_MAX - 1)
/* Inline frames looked at per address. */
#define CS_MAX_INLINE 64

/* Index of the instruction starting at addr, or -1. */
long cs_insn_index(const struct spgo_cs_code *c, uint64_t addr);
/* The call instruction just before a return address (llvm-profgen's
 * getCallAddrFromFrameAddr): its address, 0 when the instruction before is
 * no call; SPGO_AGG_EXTERNAL stays external. */
uint64_t cs_call_before(const struct spgo_cs_code *c, uint64_t ret);

#endif
