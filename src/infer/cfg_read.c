/*
 * Files of CFGs built from instructions rather than read as text (see
 * spgo/infer.h, "CFG files from instructions"): instruction lists in text
 * (spgo infer --insns) and the functions of a binary (spgo infer --binary).
 * Either way each function becomes a CFG labelled by block address, so the
 * result prints and infers as a parsed CFG file does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/infer.h"

/*
 * The instruction-list format, one function after another:
 *
 *     func NAME ENTRY
 *     ADDR SIZE CLASS [TARGET] [noreturn] [table=T1,T2,...]
 *
 * addresses in hex (0x optional), SIZE in decimal, CLASS one of other jcc
 * jmp ijmp call icall ret trap.  Each function becomes a CFG
 * (spgo_cfg_from_insns); noreturn marks the call's target as one that does
 * not return, table= gives an indirect jump's targets.
 */
struct insn_func {
	char *name;
	uint64_t entry;
	VEC(struct spgo_insn) insns;
	VEC(uint64_t) tables;   /* (insn index << 32 | count), then targets */
	VEC(uint64_t) noreturn; /* call targets that do not return */
};

static const char *const insn_classes[] = {"other", "jcc", "jmp", "ijmp", "call", "icall", "ret", "trap"};

static int hexnum(const char *s, uint64_t *v)
{
	char *end;
	if (!*s)
		return -1;
	*v = strtoull(s, &end, 16);
	return *end ? -1 : 0;
}

static size_t table_cb(void *ctx, const struct spgo_insn *jmp, uint64_t *targets, size_t max)
{
	const struct insn_func *f = ctx;
	size_t idx = (size_t)(jmp - f->insns.v);
	for (size_t k = 0; k < f->tables.n;) {
		uint64_t head = f->tables.v[k];
		size_t cnt = (size_t)(head & 0xffffffffu);
		if ((head >> 32) == idx) {
			size_t n = cnt < max ? cnt : max;
			memcpy(targets, &f->tables.v[k + 1], n * sizeof *targets);
			return n;
		}
		k += 1 + cnt;
	}
	return 0;
}

static int noreturn_cb(void *ctx, uint64_t target)
{
	const struct insn_func *f = ctx;
	for (size_t k = 0; k < f->noreturn.n; k++)
		if (f->noreturn.v[k] == target)
			return 1;
	return 0;
}

static void func_free(struct insn_func *f)
{
	free(f->name);
	VEC_FREE(&f->insns);
	VEC_FREE(&f->tables);
	VEC_FREE(&f->noreturn);
	memset(f, 0, sizeof *f);
}

/* Append a built CFG to out, labelled by block address. */
static void add_cfg(struct spgo_cfg_file *out, struct spgo_cfg *c)
{
	out->cfgs = xrealloc(out->cfgs, (out->n + 1) * sizeof *out->cfgs);
	out->labels = xrealloc(out->labels, (out->n + 1) * sizeof *out->labels);
	out->truth_block = xrealloc(out->truth_block, (out->n + 1) * sizeof *out->truth_block);
	out->truth_edge = xrealloc(out->truth_edge, (out->n + 1) * sizeof *out->truth_edge);
	char **labels = xmalloc((c->nblocks + 1) * sizeof *labels);
	for (size_t b = 0; b < c->nblocks; b++)
		labels[b] = xasprintf("%llx", (unsigned long long)c->blocks[b].addr);
	out->cfgs[out->n] = *c;
	out->labels[out->n] = labels;
	out->truth_block[out->n] = out->truth_edge[out->n] = NULL;
	out->n++;
}

/* Build the CFG of f and append it to out (labels: block addresses). */
static int func_cfg(struct insn_func *f, struct spgo_cfg_file *out)
{
	struct spgo_bincfg_opts o = {.jump_table = table_cb, .is_noreturn = noreturn_cb, .ctx = f};
	struct spgo_cfg c;
	if (spgo_cfg_from_insns(&c, f->insns.v, f->insns.n, f->entry, &o)) {
		char *msg = xstrdup(spgo_errmsg());
		spgo_error("function %s: %s", f->name, msg);
		free(msg);
		return -1;
	}
	c.name = xstrdup(f->name);
	add_cfg(out, &c);
	return 0;
}

int spgo_cfg_read_insns(struct spgo_cfg_file *out, const char *path)
{
	memset(out, 0, sizeof *out);
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!fp)
		return spgo_error("%s: cannot open", path);
	struct insn_func f = {0};
	char line[1 << 16];
	size_t lineno = 0;
	int rc = 0, have = 0;
	while (rc == 0 && fgets(line, sizeof line, fp)) {
		lineno++;
		char *save = NULL, *tok[8];
		int nt = 0;
		for (char *t = strtok_r(line, " \t\r\n", &save); t && nt < 8; t = strtok_r(NULL, " \t\r\n", &save))
			tok[nt++] = t;
		if (nt == 0 || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "func")) {
			if (have && f.insns.n)
				rc = func_cfg(&f, out);
			func_free(&f);
			if (rc)
				break;
			if (nt != 3 || hexnum(tok[2], &f.entry)) {
				rc = spgo_error("%s: line %zu: expected 'func NAME ENTRY'", path, lineno);
				break;
			}
			f.name = xstrdup(tok[1]);
			have = 1;
			continue;
		}
		struct spgo_insn in = {0};
		uint64_t a, sz;
		int cls = -1;
		char *szend;
		sz = strtoull(tok[1], &szend, 10);
		if (!have || nt < 3 || hexnum(tok[0], &a) || *szend || sz == 0 || sz > 15) {
			rc = spgo_error("%s: line %zu: expected 'ADDR SIZE CLASS [TARGET]' after a 'func' line",
					path, lineno);
			break;
		}
		for (size_t k = 0; k < SPGO_ARRAY_LEN(insn_classes); k++)
			if (!strcmp(tok[2], insn_classes[k]))
				cls = (int)k;
		if (cls < 0) {
			rc = spgo_error("%s: line %zu: unknown instruction class '%s'", path, lineno, tok[2]);
			break;
		}
		if (f.insns.n && a <= f.insns.v[f.insns.n - 1].addr) {
			rc = spgo_error("%s: line %zu: addresses must increase", path, lineno);
			break;
		}
		in.addr = a, in.size = (uint8_t)sz, in.cls = (uint8_t)cls;
		for (int k = 3; k < nt && rc == 0; k++) {
			uint64_t t;
			if (!strcmp(tok[k], "noreturn")) {
				if (in.target)
					VEC_PUSH(&f.noreturn, in.target);
			} else if (!strncmp(tok[k], "table=", 6)) {
				size_t at = f.tables.n;
				VEC_PUSH(&f.tables, (uint64_t)f.insns.n << 32);
				char *s2 = NULL;
				for (char *t2 = strtok_r(tok[k] + 6, ",", &s2); t2; t2 = strtok_r(NULL, ",", &s2)) {
					if (hexnum(t2, &t)) {
						rc = spgo_error("%s: line %zu: bad table entry '%s'", path, lineno, t2);
						break;
					}
					VEC_PUSH(&f.tables, t);
					f.tables.v[at]++;
				}
			} else if (!hexnum(tok[k], &t)) {
				in.target = t;
			} else {
				rc = spgo_error("%s: line %zu: unexpected '%s'", path, lineno, tok[k]);
			}
		}
		VEC_PUSH(&f.insns, in);
	}
	if (rc == 0 && have && f.insns.n)
		rc = func_cfg(&f, out);
	func_free(&f);
	if (fp != stdin)
		fclose(fp);
	if (rc == 0 && out->n == 0)
		rc = spgo_error("%s: no functions", path);
	if (rc)
		spgo_cfg_file_free(out);
	return rc;
}

/* A binary's functions (split parts with their parent), or those named
 * fname (linkage or symbol name), from the binary model; what it saw in
 * st. */
int spgo_cfg_read_binary(struct spgo_cfg_file *out, const char *path, const char *fname,
			 struct spgo_cfg_bin_stats *st)
{
	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, path, NULL))
		return -1;
	if (spgo_binary_check_machine(bin)) {
		spgo_binary_close(bin);
		return -1;
	}
	struct spgo_bb_addr_map bbmap;
	if (spgo_bb_addr_map_read(&bbmap, path)) {
		spgo_binary_close(bin);
		return -1;
	}
	size_t nf, ni;
	const struct spgo_function *fs = spgo_binary_functions(bin, &nf);
	const struct spgo_insn *insns = spgo_binary_insns(bin, &ni);
	int rc = 0;
	uint64_t last = UINT64_MAX;
	for (size_t i = 0; i < nf && rc == 0; i++) {
		const struct spgo_function *f = &fs[i];
		if (f->parent >= 0 || f->start == last)
			continue;
		if (fname && strcmp(fname, f->name) && (!f->symbol || strcmp(fname, f->symbol)))
			continue;
		const struct spgo_insn *in = spgo_binary_insn_at(bin, f->start);
		if (!in)
			continue; /* data, or not in an executable section */
		last = f->start;
		struct spgo_cfg c;
		if (spgo_cfg_from_binary(&c, bin, f->start, &bbmap)) {
			rc = -1;
			break;
		}
		st->funcs++;
		for (size_t b = 0; b < c.nblocks; b++) {
			const struct spgo_cfg_block *bl = &c.blocks[b];
			if (bl->flags & SPGO_BLOCK_NORETURN)
				st->noreturn++;
			/* the block's last instruction: the one before its end */
			size_t lo = 0, hi = ni;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (insns[mid].addr < bl->addr + bl->size)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > 0 && insns[lo - 1].cls == SPGO_INSN_INDIRECT_JUMP) {
				st->ijmps++;
				if (bl->nout && c.edges[c.succ[bl->out]].kind == SPGO_EDGE_TABLE)
					st->tables++;
				else if (!(bl->flags & SPGO_BLOCK_UNKNOWN_SUCCS))
					st->tailcalls++;
			}
		}
		add_cfg(out, &c);
	}
	spgo_bb_addr_map_free(&bbmap);
	spgo_binary_close(bin);
	if (rc == 0 && out->n == 0)
		rc = spgo_error(fname ? "%s: no function named %s" : "%s: no functions", path, fname);
	if (rc)
		spgo_cfg_file_free(out);
	return rc;
}
