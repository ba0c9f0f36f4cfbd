/*
 * The symbolizer's output (spgo/symbolize.h), in-process on this test's own
 * binary: the text of one address, unknown addresses, the listings, the
 * stream, two threads giving the same bytes as one, and errors (no probes,
 * a failed write).
 */
#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/symbolize.h"

int symout_marker(int x);
__attribute__((noinline)) int symout_marker(int x)
{
	return x * 5 + 2;
}

static struct spgo_binary *self_bin(void)
{
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, "/proc/self/exe", NULL) < 0)
		return NULL;
	return bin;
}

static uint64_t symbol_addr(struct spgo_binary *bin, const char *name)
{
	size_t ns;
	const struct spgo_symbol *syms = spgo_binary_symbols(bin, &ns);
	for (size_t i = 0; i < ns; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	return 0;
}

/* A symbolizer into a memory buffer: *buf holds the text after finish. */
struct mem {
	char *buf;
	size_t len;
	FILE *fp;
};

static struct spgo_symout *mem_symout(struct mem *m, struct spgo_binary *bin, enum spgo_sym_mode mode,
				      int threads)
{
	memset(m, 0, sizeof *m);
	m->fp = open_memstream(&m->buf, &m->len);
	return m->fp ? spgo_symout_new(bin, mode, m->fp, threads) : NULL;
}

static int mem_finish(struct mem *m, struct spgo_symout *s)
{
	int rc = spgo_symout_finish(s);
	fclose(m->fp);
	return rc;
}

static void test_one_address(void)
{
	struct spgo_binary *bin = self_bin();
	REQUIRE(bin);
	uint64_t a = symbol_addr(bin, "symout_marker");
	REQUIRE(a);
	char text[32];
	snprintf(text, sizeof text, " 0x%llx \n", (unsigned long long)a);
	struct mem m;
	struct spgo_symout *s = mem_symout(&m, bin, SPGO_SYM_PLAIN, 0);
	REQUIRE(s);
	CHECK(spgo_symout_addr(s, text) == 0);
	char bad[] = "zzz";
	CHECK(spgo_symout_addr(s, bad) == 0);
	CHECK(mem_finish(&m, s) == 0);
	/* "symout_marker\n.../tests/unit/test_symout.c:LINE:COL\n\n??\n??:0:0\n\n" */
	CHECK(!strncmp(m.buf, "symout_marker\n", 14));
	CHECK(strstr(m.buf, "tests/unit/test_symout.c:") != NULL);
	size_t n = strlen(m.buf);
	const char *tail = "\n\n??\n??:0:0\n\n"; /* the end of the first answer, then "zzz"'s */
	CHECK(n > strlen(tail) && !strcmp(m.buf + n - strlen(tail), tail));
	free(m.buf);
	/* verbose mode names the fields */
	s = mem_symout(&m, bin, SPGO_SYM_VERBOSE, 0);
	CHECK(spgo_symout_addr(s, text) == 0);
	CHECK(mem_finish(&m, s) == 0);
	CHECK(strstr(m.buf, "symout_marker\n  Filename: ") == m.buf);
	CHECK(strstr(m.buf, "\n  Line: ") && strstr(m.buf, "\n  Column: "));
	free(m.buf);
	CHECK(symout_marker(1) == 7);
	spgo_binary_close(bin);
}

/* Every instruction address of the binary as text, one per line. */
static char *all_addresses(struct spgo_binary *bin, size_t *len)
{
	size_t ni;
	const struct spgo_insn *in = spgo_binary_insns(bin, &ni);
	char *text = xmalloc(ni * 20 + 1), *p = text;
	for (size_t i = 0; i < ni; i++)
		p += sprintf(p, "0x%llx\n", (unsigned long long)in[i].addr);
	*len = (size_t)(p - text);
	return text;
}

static void test_threads_same_bytes(void)
{
	struct spgo_binary *bin = self_bin();
	REQUIRE(bin);
	size_t len;
	char *text = all_addresses(bin, &len);
	REQUIRE(len > 100000); /* enough for several chunks on the threads */
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len + 1);
	struct mem one, two;
	struct spgo_symout *s = mem_symout(&one, bin, SPGO_SYM_DISCRIMINATORS, 0);
	CHECK(spgo_symout_text(s, text, len) == 0);
	CHECK(mem_finish(&one, s) == 0);
	s = mem_symout(&two, bin, SPGO_SYM_DISCRIMINATORS, 1);
	CHECK(spgo_symout_text(s, copy, len) == 0);
	CHECK(mem_finish(&two, s) == 0);
	CHECK(one.len > len);
	CHECK(one.len == two.len && !memcmp(one.buf, two.buf, one.len));
	free(one.buf);
	free(two.buf);
	free(text);
	free(copy);
	spgo_binary_close(bin);
}

static void test_stream(void)
{
	struct spgo_binary *bin = self_bin();
	REQUIRE(bin);
	uint64_t a = symbol_addr(bin, "symout_marker");
	char in_text[64];
	snprintf(in_text, sizeof in_text, "0x%llx\n%llu\n", (unsigned long long)a, (unsigned long long)a);
	FILE *in = fmemopen(in_text, strlen(in_text), "r");
	REQUIRE(in);
	struct mem m;
	struct spgo_symout *s = mem_symout(&m, bin, SPGO_SYM_PLAIN, 1);
	CHECK(spgo_symout_stream(s, in) == 0);
	CHECK(mem_finish(&m, s) == 0);
	fclose(in);
	/* hex and decimal give the same answer, twice */
	CHECK(m.len % 2 == 0 && m.len > 0 && !memcmp(m.buf, m.buf + m.len / 2, m.len / 2));
	free(m.buf);
	spgo_binary_close(bin);
}

static void test_listings(void)
{
	struct spgo_binary *bin = self_bin();
	REQUIRE(bin);
	size_t ni, nf;
	spgo_binary_insns(bin, &ni);
	spgo_binary_functions(bin, &nf);
	struct mem m;
	struct spgo_symout *s = mem_symout(&m, bin, SPGO_SYM_PLAIN, 0);
	CHECK(spgo_symout_list_insns(s) == 0);
	CHECK(mem_finish(&m, s) == 0);
	size_t lines = 0;
	for (size_t i = 0; i < m.len; i++)
		lines += m.buf[i] == '\n';
	CHECK_EQ_U64(lines, ni);
	CHECK(strstr(m.buf, " call 0x") != NULL);
	free(m.buf);
	s = mem_symout(&m, bin, SPGO_SYM_PLAIN, 0);
	CHECK(spgo_symout_list_functions(s) == 0);
	CHECK(mem_finish(&m, s) == 0);
	CHECK(strstr(m.buf, " symout_marker symout_marker decl_line=") != NULL);
	free(m.buf);
	spgo_binary_close(bin);
}

static void test_errors(void)
{
	struct spgo_binary *bin = self_bin();
	REQUIRE(bin);
	/* gcc writes no pseudo-probes */
	struct mem m;
	struct spgo_symout *s = mem_symout(&m, bin, SPGO_SYM_PROBES, 0);
	char text[] = "0x1000";
	CHECK(spgo_symout_addr(s, text) < 0);
	CHECK(strstr(spgo_errmsg(), "no pseudo-probes") != NULL);
	CHECK(spgo_symout_list_functions(s) < 0);
	CHECK(mem_finish(&m, s) == 0);
	free(m.buf);
	/* a write that fails is reported at the end */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		s = spgo_symout_new(bin, SPGO_SYM_PLAIN, full, 1);
		CHECK(spgo_symout_list_insns(s) == 0);
		CHECK(spgo_symout_finish(s) < 0);
		CHECK(strstr(spgo_errmsg(), "write error") != NULL);
		fclose(full);
	}
	spgo_binary_close(bin);
}

int main(void)
{
	RUN(test_one_address);
	RUN(test_threads_same_bytes);
	RUN(test_stream);
	RUN(test_listings);
	RUN(test_errors);
	DONE();
}
