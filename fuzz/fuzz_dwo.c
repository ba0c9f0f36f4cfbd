/* A split DWARF file (.dwo, or a .dwp package) straight into spgo's split
 * unit reader (src/binary/split*.c), as a skeleton unit would have it read:
 * unit headers, abbrevs, the string offset and range list tables, the
 * DIEs of every scope and their origins. */
#include "binary/binary_impl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	spgo_split_read_file(fuzz_path(data, size));
	return 0;
}
