/*
 * binary_impl.h: the inside of struct spgo_binary, shared by the files of
 * src/binary only.  Everyone else goes through spgo/binary.h.
 */
#ifndef SPGO_BINARY_IMPL_H
#define SPGO_BINARY_IMPL_H

#include <libelf.h>

#include "spgo/binary.h"
#include "spgo/common.h"

struct spgo_binary {
	char *path;
	char *debug_path; /* separate debug file given by the user, or NULL */
	int fd;
	Elf *elf;
	enum spgo_elf_kind kind;
	unsigned machine;
	uint8_t build_id[64];
	size_t build_id_len;
	VEC(struct spgo_segment) segments;
};

#endif
