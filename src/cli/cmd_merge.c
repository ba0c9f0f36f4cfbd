/* spgo merge: add up profiles of any formats, with weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/profile_cli.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo merge -o OUT [--weight W:FILE]... [--flatten|--cs-nested] [options] FILES...\n"
		    "Merges sample profiles (text, extended binary, gcov; CS or not), each\n"
		    "multiplied by its weight (default 1).  --flatten merges CS contexts into\n"
		    "their leaf functions; --cs-nested turns CS contexts into the nested form\n"
		    "(inlinees of their caller contexts), as llvm-profdata's\n"
		    "--convert-sample-profile-layout=nest does.\n%s",
		cli_write_help);
}

/* A context-less copy of a CS profile: every context merged into its leaf. */
static struct spgo_profile *flatten(struct spgo_profile *p)
{
	struct spgo_profile *f = spgo_profile_new();
	uint32_t *namemap = xmalloc((p->names.n + 1) * sizeof *namemap);
	memset(namemap, 0xff, (p->names.n + 1) * sizeof *namemap);
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t s = p->top.v[i];
		uint32_t d = spgo_func_get(f, spgo_name(p, p->funcs.v[s].name));
		spgo_func_merge(f, d, p, s, 1, namemap);
		spgo_fn(f, d)->attrs = 0;
	}
	f->flags = p->flags & ~(unsigned)(SPGO_PROF_CS | SPGO_PROF_PREINLINED);
	free(namemap);
	spgo_profile_free(p);
	return f;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL, *v;
	enum spgo_format fmt = SPGO_FMT_UNKNOWN;
	struct spgo_write_opts o = {0};
	int flat = 0, nest = 0, n = 0;
	const char **files = xcalloc((size_t)argc, sizeof *files);
	uint64_t *weights = xcalloc((size_t)argc, sizeof *weights);
	for (int i = 1; i < argc; i++) {
		int r;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			free(files);
			free(weights);
			return 0;
		}
		if ((r = cli_opt(argc, argv, &i, "-o", &v)) != 0 ||
		    (r = cli_opt(argc, argv, &i, "--output", &v)) != 0) {
			if (r < 0)
				goto bad;
			out = v;
			continue;
		}
		if ((r = cli_opt(argc, argv, &i, "--weight", &v)) != 0 ||
		    (r = cli_opt(argc, argv, &i, "-w", &v)) != 0) {
			if (r < 0)
				goto bad;
			const char *c = strchr(v, ':');
			char *end;
			unsigned long long w = c ? strtoull(v, &end, 10) : 0;
			if (!c || end != c || w == 0) {
				fprintf(stderr, "spgo: merge: --weight takes W:FILE with W >= 1\n");
				goto bad;
			}
			files[n] = c + 1;
			weights[n++] = w;
			continue;
		}
		if (!strcmp(argv[i], "--flatten")) {
			flat = 1;
			continue;
		}
		if (!strcmp(argv[i], "--cs-nested")) {
			nest = 1;
			continue;
		}
		if ((r = cli_write_opt(argc, argv, &i, &fmt, &o)) != 0) {
			if (r < 0)
				goto bad;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "spgo: merge: unknown option '%s'\n", argv[i]);
			goto bad;
		}
		files[n] = argv[i];
		weights[n++] = 1;
	}
	if (!out || n == 0) {
		usage(stderr);
		goto bad;
	}
	/* Each input is read straight into the accumulated profile, its counts
	 * times its weight; with --flatten, CS inputs are flattened first. */
	struct spgo_profile *acc = spgo_profile_new();
	int kind = -1; /* 1: context-sensitive, 0: plain, -1: not yet known */
	for (int i = 0; i < n; i++) {
		enum spgo_format f;
		size_t before = acc->top.n;
		int rc;
		if (flat) {
			struct spgo_profile *p = spgo_profile_read(files[i], &f);
			rc = p ? 0 : -1;
			if (p) {
				if (p->flags & SPGO_PROF_CS)
					p = flatten(p);
				spgo_profile_merge(acc, p, weights[i]);
				spgo_profile_free(p);
			}
		} else {
			rc = spgo_profile_read_into(acc, files[i], weights[i], &f);
		}
		if (rc < 0) {
			spgo_profile_free(acc);
			free(files);
			free(weights);
			return cli_fail();
		}
		if (fmt == SPGO_FMT_UNKNOWN)
			fmt = f;
		for (size_t j = before; j < acc->top.n; j++) {
			int cs = spgo_fn(acc, acc->top.v[j])->ctx != SPGO_NONE;
			if (kind >= 0 && cs != kind) {
				fprintf(stderr, "spgo: %s: cannot merge a context-sensitive profile with a "
						"plain one (use --flatten)\n", files[i]);
				spgo_profile_free(acc);
				goto bad;
			}
			kind = cs;
		}
	}
	if (kind == 0)
		acc->flags &= ~(unsigned)SPGO_PROF_CS;
	if (nest && (acc->flags & SPGO_PROF_CS)) {
		struct spgo_profile *nested = spgo_profile_cs_nest(acc);
		spgo_profile_free(acc);
		if (!nested) {
			free(files);
			free(weights);
			return cli_fail();
		}
		acc = nested;
	}
	/* Only the extended binary format carries the summary. */
	spgo_profile_finalize(acc, fmt == SPGO_FMT_EXTBINARY ? 0 : SPGO_FIN_NO_SUMMARY);
	int rc = spgo_profile_write(acc, out, fmt, &o);
	spgo_profile_free(acc);
	free(files);
	free(weights);
	return rc < 0 ? cli_fail() : 0;
bad:
	free(files);
	free(weights);
	return 2;
}
