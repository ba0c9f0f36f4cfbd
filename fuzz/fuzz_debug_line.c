/* One .debug_line table, straight into spgo's reader (the deepest way in:
 * no ELF around it).  The first byte picks the comp_dir case. */
#include <string.h>

#include "binary/binary_impl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	spgo_quiet = 1;
	static const char *dirs[] = {NULL, "/comp", "rel/dir", ""};
	struct spgo_strtab files;
	spgo_strtab_init(&files);
	spgo_row_vec rows = {0};
	spgo_seq_vec seqs = {0};
	struct spgo_cu cu = {0};
	/* The rest is .debug_line; a copy of exactly its size. */
	uint8_t *line = malloc(size - 1 ? size - 1 : 1);
	memcpy(line, data + 1, size - 1);
	struct spgo_line_input in = {.line = line, .line_size = size - 1, .path = "fuzz"};
	struct spgo_line_unit u = {.stmt_list = 0, .comp_dir = dirs[data[0] & 3]};
	struct spgo_line_output out = {&files, &rows, &seqs};
	spgo_read_line_table(&in, &u, &out, &cu);
	free(cu.files);
	free(line);
	VEC_FREE(&rows);
	VEC_FREE(&seqs);
	spgo_strtab_free(&files);
	return 0;
}
