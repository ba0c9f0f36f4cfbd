/*
 * The pseudo-probe decoder in-process, so that it also runs under
 * ASan+UBSan: small ELF files made here with hand-encoded .pseudo_probe and
 * .pseudo_probe_desc sections (a function with an inlinee, a discriminator
 * and a split part with its sentinel; the legacy absolute encoding), then
 * bad ones: cut sections, LEB128 overflows, counts larger than the section,
 * unknown probe types, GUIDs with no descriptor or no symbol, an inline
 * tree 100000 records deep, and random byte changes.  Each bad one must
 * fail with one message naming the file, the section and the offset (or
 * load with a warning where the probes stay usable), never crash.
 */
#include <elf.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/probe.h"

/* ---- building a small ELF file ---------------------------------------------- */

typedef VEC(uint8_t) bytes;

static void put(bytes *b, const void *p, size_t n)
{
	VEC_GROW(b, b->n + n);
	memcpy(b->v + b->n, p, n);
	b->n += n;
}
static void put_u8(bytes *b, uint8_t v) { put(b, &v, 1); }
static void put_u64(bytes *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		put_u8(b, (uint8_t)(v >> 8 * i));
}
static void put_uleb(bytes *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		put_u8(b, (uint8_t)(c | (v ? 0x80 : 0)));
	} while (v);
}
static void put_sleb(bytes *b, int64_t v)
{
	for (;;) {
		uint8_t c = (uint8_t)(v & 0x7f);
		v >>= 7;
		int done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		put_u8(b, (uint8_t)(c | (done ? 0 : 0x80)));
		if (done)
			break;
	}
}

#define TEXT 0x401000u

/* The symbols of every test file: name, address, size. */
static const struct {
	const char *name;
	uint64_t addr, size;
} syms[] = {{"foo", TEXT, 0x40}, {"bar", TEXT + 0x40, 0x40}, {"foo.cold", TEXT + 0x80, 0x20}};

/* Write an x86-64 ET_EXEC with .text (0x100 bytes at TEXT), the symbols
 * above and the two probe sections (either may be NULL: left out); returns
 * the path of a fresh temporary file. */
static char *make_elf(const bytes *desc, const bytes *probe)
{
	bytes f = {0}, strtab = {0}, shstr = {0}, symtab = {0};
	put_u8(&strtab, 0);
	put_u8(&shstr, 0);
	Elf64_Sym null_sym = {0};
	put(&symtab, &null_sym, sizeof null_sym);
	for (size_t i = 0; i < SPGO_ARRAY_LEN(syms); i++) {
		Elf64_Sym s = {0};
		s.st_name = (Elf64_Word)strtab.n;
		put(&strtab, syms[i].name, strlen(syms[i].name) + 1);
		s.st_info = ELF64_ST_INFO(STB_GLOBAL, i == 2 ? STT_NOTYPE : STT_FUNC);
		s.st_shndx = 1;
		s.st_value = syms[i].addr;
		s.st_size = syms[i].size;
		put(&symtab, &s, sizeof s);
	}
	/* Sections: 1 .text, 2 .symtab, 3 .strtab, 4 .shstrtab, 5 desc, 6 probe. */
	const char *names[] = {"", ".text", ".symtab", ".strtab", ".shstrtab", ".pseudo_probe_desc", ".pseudo_probe"};
	Elf64_Word name_off[7];
	for (int i = 0; i < 7; i++) {
		name_off[i] = (Elf64_Word)shstr.n;
		put(&shstr, names[i], strlen(names[i]) + 1);
	}
	uint8_t text[0x100];
	memset(text, 0x90, sizeof text);
	const bytes textb = {text, sizeof text, sizeof text};
	const bytes *data[7] = {NULL, &textb, &symtab, &strtab, &shstr, desc, probe};
	Elf64_Ehdr eh = {0};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof eh;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shstrndx = 4;
	Elf64_Shdr sh[7] = {{0}};
	size_t off = sizeof eh + sizeof(Elf64_Phdr);
	int nsec = 1;
	for (int i = 1; i < 7; i++) {
		if (!data[i])
			continue;
		Elf64_Shdr *s = &sh[nsec++];
		s->sh_name = name_off[i];
		s->sh_type = i == 2 ? SHT_SYMTAB : i == 3 || i == 4 ? SHT_STRTAB : SHT_PROGBITS;
		s->sh_offset = off;
		s->sh_size = data[i]->n;
		s->sh_addralign = 1;
		if (i == 1) {
			s->sh_flags = SHF_ALLOC | SHF_EXECINSTR;
			s->sh_addr = TEXT;
		}
		if (i == 2) {
			s->sh_link = 3;
			s->sh_info = 1;
			s->sh_entsize = sizeof(Elf64_Sym);
		}
		off += data[i]->n;
	}
	off = (off + 7) & ~(size_t)7;
	eh.e_shoff = off;
	eh.e_shnum = (Elf64_Half)nsec;
	Elf64_Phdr ph = {PT_LOAD, PF_R | PF_X, sizeof eh + sizeof(Elf64_Phdr), TEXT, TEXT, 0x100, 0x100, 0x1000};
	put(&f, &eh, sizeof eh);
	put(&f, &ph, sizeof ph);
	for (int i = 1; i < 7; i++)
		if (data[i])
			put(&f, data[i]->v, data[i]->n);
	while (f.n < off)
		put_u8(&f, 0);
	put(&f, sh, (size_t)nsec * sizeof *sh);
	char *path = xstrdup("/tmp/spgo-probe-test-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, f.v, f.n) != (ssize_t)f.n) {
		free(path);
		path = NULL;
	}
	if (fd >= 0)
		close(fd);
	VEC_FREE(&f);
	VEC_FREE(&strtab);
	VEC_FREE(&shstr);
	VEC_FREE(&symtab);
	return path;
}

/* ---- the good sections -------------------------------------------------------- */

static void put_desc(bytes *b, const char *name, uint64_t hash)
{
	put_u64(b, spgo_guid(name));
	put_u64(b, hash);
	put_uleb(b, strlen(name));
	put(b, name, strlen(name));
}

static void good_desc(bytes *d)
{
	put_desc(d, "foo", 0x1234);
	put_desc(d, "bar", 0x4321);
}

/* A probe: index, type | attributes << 4 | 0x80, delta[, discriminator]. */
static void put_probe(bytes *b, uint32_t index, unsigned type, unsigned attr, int64_t delta, uint32_t disc)
{
	put_uleb(b, index);
	put_u8(b, (uint8_t)(0x80 | attr << 4 | type));
	put_sleb(b, delta);
	if (attr & SPGO_PROBE_ATTR_DISCRIMINATOR)
		put_uleb(b, disc);
}

/*
 * foo: probes 1 (block, +4), 2 (direct call, +6), 3 (block, +2,
 * discriminator 5); bar inlined at probe 2 with probe 1 (+0).  Then foo's
 * record for the part foo.cold: a sentinel naming foo.cold, probe 4 (+3).
 */
static size_t first_tree_len; /* where foo.cold's record starts */

static void good_probes(bytes *p)
{
	put_u64(p, spgo_guid("foo"));
	put_uleb(p, 3);
	put_uleb(p, 1);
	put_probe(p, 1, SPGO_PROBE_BLOCK, 0, 4, 0);
	put_probe(p, 2, SPGO_PROBE_DIRECT_CALL, 0, 6, 0);
	put_probe(p, 3, SPGO_PROBE_BLOCK, SPGO_PROBE_ATTR_DISCRIMINATOR, 2, 5);
	put_uleb(p, 2);
	put_u64(p, spgo_guid("bar"));
	put_uleb(p, 1);
	put_uleb(p, 0);
	put_probe(p, 1, SPGO_PROBE_BLOCK, 0, 0, 0);
	first_tree_len = p->n;
	put_u64(p, spgo_guid("foo"));
	put_uleb(p, 2);
	put_uleb(p, 0);
	put_uleb(p, 0);
	put_u8(p, SPGO_PROBE_ATTR_SENTINEL << 4);
	put_u64(p, spgo_guid("foo.cold"));
	put_probe(p, 4, SPGO_PROBE_BLOCK, 0, 3, 0);
}

static struct spgo_binary *open_elf(const bytes *desc, const bytes *probe, char **path)
{
	*path = make_elf(desc, probe);
	struct spgo_binary *bin = NULL;
	if (*path && spgo_binary_open(&bin, *path, NULL) < 0)
		bin = NULL;
	return bin;
}

static void test_good(void)
{
	bytes d = {0}, p = {0};
	good_desc(&d);
	good_probes(&p);
	char *path;
	struct spgo_binary *bin = open_elf(&d, &p, &path);
	REQUIRE(bin);
	CHECK(spgo_binary_load_probes(bin) == 1);
	CHECK(spgo_binary_load_probes(bin) == 1); /* once */
	size_t n;
	const struct spgo_probe *all = spgo_binary_probes(bin, &n);
	REQUIRE(n == 5);
	CHECK_EQ_U64(all[0].addr, TEXT + 4);
	CHECK_EQ_U64(all[1].addr, TEXT + 10);
	CHECK_EQ_U64(all[1].type, SPGO_PROBE_DIRECT_CALL);
	CHECK_EQ_U64(all[4].addr, TEXT + 0x83);
	CHECK_EQ_U64(all[4].index, 4);
	/* Two probes at foo+12, in section order: foo's 3, then bar's 1. */
	const struct spgo_probe *at = spgo_binary_probes_at(bin, TEXT + 12, &n);
	REQUIRE(n == 2);
	CHECK_EQ_U64(at[0].guid, spgo_guid("foo"));
	CHECK_EQ_U64(at[0].index, 3);
	CHECK_EQ_U64(at[0].discriminator, 5);
	CHECK_EQ_U64(at[0].attr, SPGO_PROBE_ATTR_DISCRIMINATOR);
	CHECK_EQ_U64(at[1].guid, spgo_guid("bar"));
	struct spgo_probe_frame fr[4];
	CHECK(spgo_probe_inline_chain(bin, &at[1], fr, 4) == 2);
	CHECK_STREQ(fr[0].function, "bar");
	CHECK_EQ_U64(fr[0].probe, 1);
	CHECK_STREQ(fr[1].function, "foo");
	CHECK_EQ_U64(fr[1].probe, 2);
	CHECK(spgo_probe_inline_chain(bin, &at[1], fr, 1) == 2); /* more than max */
	CHECK(spgo_probe_inline_chain(bin, &at[0], fr, 4) == 1);
	CHECK(spgo_binary_probes_at(bin, TEXT + 5, &n) == NULL && n == 0);
	/* Descriptors, tied to symbols and parts. */
	const struct spgo_probe_desc *foo = spgo_binary_probe_desc(bin, spgo_guid("foo"));
	REQUIRE(foo);
	CHECK_EQ_U64(foo->checksum, 0x1234);
	CHECK_EQ_U64(foo->start, TEXT);
	CHECK_EQ_U64(foo->nprobes, 4);
	CHECK_EQ_U64(foo->max_index, 4);
	REQUIRE(foo->nparts == 1);
	size_t np;
	const struct spgo_probe_part *parts = spgo_binary_probe_parts(bin, &np);
	REQUIRE(np == 1);
	CHECK_STREQ(parts[foo->part].symbol, "foo.cold");
	CHECK_EQ_U64(parts[foo->part].start, TEXT + 0x80);
	const struct spgo_probe_stats *st = spgo_binary_probe_stats(bin);
	CHECK_EQ_U64(st->records, 3);
	CHECK_EQ_U64(st->top_records, 2);
	CHECK_EQ_U64(st->sentinels, 1);
	CHECK_EQ_U64(st->no_desc + st->unplaced_records + st->address_based, 0);
	spgo_binary_close(bin);
	unlink(path);
	free(path);
	VEC_FREE(&d);
	VEC_FREE(&p);
}

/* The legacy encoding: the first probe's address is absolute. */
static void test_legacy(void)
{
	bytes d = {0}, p = {0};
	good_desc(&d);
	put_u64(&p, spgo_guid("bar"));
	put_uleb(&p, 2);
	put_uleb(&p, 0);
	put_uleb(&p, 1);
	put_u8(&p, SPGO_PROBE_BLOCK);
	put_u64(&p, TEXT + 0x44);
	put_probe(&p, 2, SPGO_PROBE_INDIRECT_CALL, 0, 8, 0);
	char *path;
	struct spgo_binary *bin = open_elf(&d, &p, &path);
	REQUIRE(bin);
	CHECK(spgo_binary_load_probes(bin) == 1);
	size_t n;
	const struct spgo_probe *all = spgo_binary_probes(bin, &n);
	REQUIRE(n == 2);
	CHECK_EQ_U64(all[0].addr, TEXT + 0x44);
	CHECK_EQ_U64(all[1].addr, TEXT + 0x4c);
	CHECK_STREQ(spgo_probe_type_name(all[1].type), "IndirectCall");
	CHECK(spgo_binary_probe_stats(bin)->address_based);
	spgo_binary_close(bin);
	unlink(path);
	free(path);
	VEC_FREE(&d);
	VEC_FREE(&p);
}

/* No probe sections: 0, no error; one of the two: an error. */
static void test_missing(void)
{
	bytes d = {0};
	good_desc(&d);
	char *path;
	struct spgo_binary *bin = open_elf(NULL, NULL, &path);
	REQUIRE(bin);
	CHECK(spgo_binary_load_probes(bin) == 0);
	size_t n;
	CHECK(spgo_binary_probes(bin, &n) == NULL && n == 0);
	spgo_binary_close(bin);
	unlink(path);
	free(path);
	bin = open_elf(&d, NULL, &path);
	REQUIRE(bin);
	CHECK(spgo_binary_load_probes(bin) == -1);
	CHECK(strstr(spgo_errmsg(), path) && strstr(spgo_errmsg(), "no .pseudo_probe section"));
	spgo_binary_close(bin);
	unlink(path);
	free(path);
	VEC_FREE(&d);
}

/* Load d and p: the load must fail with a message naming the file, the
 * section and "offset 0xOFF", and containing what. */
static void expect_error(const bytes *d, const bytes *p, const char *section, size_t offset, const char *what)
{
	char *path;
	struct spgo_binary *bin = open_elf(d, p, &path);
	REQUIRE(bin);
	char want[128];
	snprintf(want, sizeof want, "section %s offset 0x%zx: ", section, offset);
	int rc = spgo_binary_load_probes(bin);
	CHECK(rc == -1);
	const char *msg = spgo_errmsg();
	if (rc != -1 || !strstr(msg, path) || !strstr(msg, want) || !strstr(msg, what)) {
		fprintf(stderr, "want '%s' and '%s', got: %s\n", want, what, rc == -1 ? msg : "(loaded)");
		CHECK(!"error message");
	}
	/* The same error again, and empty tables. */
	CHECK(spgo_binary_load_probes(bin) == -1 && !strcmp(spgo_errmsg(), msg));
	size_t n;
	CHECK(spgo_binary_probes(bin, &n) == NULL && n == 0);
	spgo_binary_close(bin);
	unlink(path);
	free(path);
}

static void test_bad(void)
{
	bytes d = {0}, p = {0}, x = {0};
	good_desc(&d);
	good_probes(&p);
	spgo_quiet = 1;

	/* Cut sections, at every length: each must fail (but for a cut
	 * between two entries, which leaves a shorter valid section), none
	 * may crash. */
	size_t first_desc_len = 8 + 8 + 1 + 3;
	for (size_t cut = 1; cut < d.n; cut++) {
		bytes c = {d.v, d.n - cut, d.n};
		char *path;
		struct spgo_binary *bin = open_elf(&c, &p, &path);
		REQUIRE(bin);
		int rc = spgo_binary_load_probes(bin);
		CHECK(rc == (c.n == first_desc_len ? 1 : -1));
		if (rc < 0)
			CHECK(strstr(spgo_errmsg(), "section .pseudo_probe_desc offset 0x") != NULL);
		spgo_binary_close(bin);
		unlink(path);
		free(path);
	}
	for (size_t cut = 1; cut < p.n; cut++) {
		bytes c = {p.v, p.n - cut, p.n};
		char *path;
		struct spgo_binary *bin = open_elf(&d, &c, &path);
		REQUIRE(bin);
		int rc = spgo_binary_load_probes(bin);
		CHECK(rc == (c.n == first_tree_len ? 1 : -1));
		if (rc < 0)
			CHECK(strstr(spgo_errmsg(), "section .pseudo_probe offset 0x") != NULL);
		spgo_binary_close(bin);
		unlink(path);
		free(path);
	}
	/* The first cut: the last probe's delta. */
	bytes cut1 = {p.v, p.n - 1, p.n};
	expect_error(&d, &cut1, ".pseudo_probe", p.n - 1, "truncated probe address delta");
	/* A name longer than the section. */
	put_u64(&x, 1);
	put_u64(&x, 2);
	put_uleb(&x, 1000);
	put(&x, "abc", 3);
	expect_error(&x, &p, ".pseudo_probe_desc", 18, "runs past the end of the section");

	/* A probe count as an 11-byte ULEB128: overflow. */
	x.n = 0;
	put_u64(&x, spgo_guid("foo"));
	for (int i = 0; i < 10; i++)
		put_u8(&x, 0xff);
	put_u8(&x, 0x01);
	expect_error(&d, &x, ".pseudo_probe", 8, "probe count: ULEB128 overflows 64 bits");
	/* ... and one that needs more than 32 bits. */
	x.n = 0;
	put_u64(&x, spgo_guid("foo"));
	put_uleb(&x, (uint64_t)1 << 40);
	put_uleb(&x, 0);
	expect_error(&d, &x, ".pseudo_probe", 8, "probe count 1099511627776 does not fit in 32 bits");
	/* A huge count: 2^31 - 1 probes in a few bytes. */
	x.n = 0;
	put_u64(&x, spgo_guid("foo"));
	put_uleb(&x, 0x7fffffff);
	put_uleb(&x, 0x7fffffff);
	put_probe(&x, 1, 0, 0, 0, 0);
	expect_error(&d, &x, ".pseudo_probe", 0, "claims 2147483647 probes and 2147483647 inlined records");
	/* An unknown probe type. */
	x.n = 0;
	put_u64(&x, spgo_guid("foo"));
	put_uleb(&x, 1);
	put_uleb(&x, 0);
	put_probe(&x, 1, 5, 0, 0, 0);
	expect_error(&d, &x, ".pseudo_probe", 10, "unknown type 5");
	/* An SLEB128 delta that overflows 64 bits. */
	x.n = 0;
	put_u64(&x, spgo_guid("foo"));
	put_uleb(&x, 1);
	put_uleb(&x, 0);
	put_uleb(&x, 1);
	put_u8(&x, 0x80);
	for (int i = 0; i < 9; i++)
		put_u8(&x, 0xff);
	put_u8(&x, 0x01);
	expect_error(&d, &x, ".pseudo_probe", 12, "probe address delta: SLEB128 overflows 64 bits");
	VEC_FREE(&x);
	VEC_FREE(&d);
	VEC_FREE(&p);
	spgo_quiet = 0;
}

/* Usable with warnings: a GUID with no descriptor (named NULL, counted), a
 * record whose function has no symbol (left out, counted). */
static void test_warnings(void)
{
	bytes d = {0}, p = {0};
	put_desc(&d, "foo", 1);
	put_desc(&d, "nosuch", 2);
	/* foo with bar inlined (bar has no descriptor), then nosuch. */
	put_u64(&p, spgo_guid("foo"));
	put_uleb(&p, 1);
	put_uleb(&p, 1);
	put_probe(&p, 1, SPGO_PROBE_BLOCK, 0, 0, 0);
	put_uleb(&p, 1);
	put_u64(&p, spgo_guid("bar"));
	put_uleb(&p, 1);
	put_uleb(&p, 0);
	put_probe(&p, 1, SPGO_PROBE_BLOCK, 0, 1, 0);
	put_u64(&p, spgo_guid("nosuch"));
	put_uleb(&p, 2);
	put_uleb(&p, 0);
	put_probe(&p, 1, SPGO_PROBE_BLOCK, 0, 0, 0);
	put_probe(&p, 2, SPGO_PROBE_BLOCK, 0, 1, 0);
	char *path;
	struct spgo_binary *bin = open_elf(&d, &p, &path);
	REQUIRE(bin);
	spgo_quiet = 1;
	CHECK(spgo_binary_load_probes(bin) == 1);
	spgo_quiet = 0;
	size_t n;
	const struct spgo_probe *all = spgo_binary_probes(bin, &n);
	REQUIRE(n == 2);
	struct spgo_probe_frame fr[2];
	CHECK(spgo_probe_inline_chain(bin, &all[1], fr, 2) == 2);
	CHECK(fr[0].function == NULL && fr[0].guid == spgo_guid("bar"));
	const struct spgo_probe_stats *st = spgo_binary_probe_stats(bin);
	CHECK_EQ_U64(st->no_desc, 1);
	CHECK_EQ_U64(st->unplaced_records, 1);
	CHECK_EQ_U64(st->unplaced_probes, 2);
	CHECK_EQ_U64(st->desc_no_symbol, 1);
	spgo_binary_close(bin);
	unlink(path);
	free(path);
	VEC_FREE(&d);
	VEC_FREE(&p);
}

/* An inline tree 100000 records deep: no recursion, a frame chain as long. */
static void test_deep(void)
{
	bytes d = {0}, p = {0};
	good_desc(&d);
	enum { DEPTH = 100000 };
	put_u64(&p, spgo_guid("foo"));
	put_uleb(&p, 0);
	put_uleb(&p, 1);
	for (int i = 1; i < DEPTH; i++) {
		put_uleb(&p, 7);
		put_u64(&p, spgo_guid(i & 1 ? "bar" : "foo"));
		put_uleb(&p, i == DEPTH - 1);
		put_uleb(&p, i < DEPTH - 1);
	}
	put_probe(&p, 9, SPGO_PROBE_BLOCK, 0, 1, 0);
	char *path;
	struct spgo_binary *bin = open_elf(&d, &p, &path);
	REQUIRE(bin);
	CHECK(spgo_binary_load_probes(bin) == 1);
	size_t n;
	const struct spgo_probe *all = spgo_binary_probes(bin, &n);
	REQUIRE(n == 1);
	CHECK_EQ_U64(all[0].addr, TEXT + 1);
	struct spgo_probe_frame fr[3];
	CHECK(spgo_probe_inline_chain(bin, &all[0], fr, 3) == DEPTH);
	CHECK(fr[0].probe == 9 && fr[1].probe == 7);
	spgo_binary_close(bin);
	unlink(path);
	free(path);
	VEC_FREE(&d);
	VEC_FREE(&p);
}

/* Random changes to the good sections: loaded or refused, never a crash
 * (what ASan and UBSan are here for). */
static void test_random(void)
{
	bytes d = {0}, p = {0};
	good_desc(&d);
	good_probes(&p);
	uint64_t seed = 12345;
	int loaded = 0, refused = 0;
	spgo_quiet = 1;
	for (int iter = 0; iter < 400; iter++) {
		bytes cd = {0}, cp = {0};
		put(&cd, d.v, d.n);
		put(&cp, p.v, p.n);
		for (int k = 0; k < 3; k++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			bytes *t = (seed >> 60) & 1 ? &cd : &cp;
			t->v[(seed >> 16) % t->n] = (uint8_t)(seed >> 40);
		}
		char *path;
		struct spgo_binary *bin = open_elf(&cd, &cp, &path);
		REQUIRE(bin);
		int rc = spgo_binary_load_probes(bin);
		loaded += rc == 1;
		refused += rc == -1;
		CHECK(rc != 0);
		if (rc == 1) {
			size_t n;
			const struct spgo_probe *all = spgo_binary_probes(bin, &n);
			struct spgo_probe_frame fr[8];
			for (size_t i = 0; i < n; i++)
				CHECK(spgo_probe_inline_chain(bin, &all[i], fr, 8) >= 1);
		} else {
			CHECK(strstr(spgo_errmsg(), " offset 0x") != NULL);
		}
		spgo_binary_close(bin);
		unlink(path);
		free(path);
		VEC_FREE(&cd);
		VEC_FREE(&cp);
	}
	spgo_quiet = 0;
	CHECK(loaded > 0 && refused > 0);
	VEC_FREE(&d);
	VEC_FREE(&p);
}

static void test_guid(void)
{
	/* llvm-profgen-19 --show-pseudo-probe: "GUID: 15822663052811949562 Name: main" */
	CHECK_EQ_U64(spgo_guid("main"), 15822663052811949562u);
	CHECK_EQ_U64(spgo_guid("work"), 9204417991963109735u);
}

int main(void)
{
	RUN(test_guid);
	RUN(test_good);
	RUN(test_legacy);
	RUN(test_missing);
	RUN(test_bad);
	RUN(test_warnings);
	RUN(test_deep);
	RUN(test_random);
	DONE();
}
