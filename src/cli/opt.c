/* The option parser of the command line: see opt.h. */
#include "cli/opt.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cli_init(struct cli_parser *p, const struct cli_cmd *cmd, int argc, char **argv)
{
	memset(p, 0, sizeof *p);
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	p->i = 1; /* argv[0] is the command's name */
}

static void vbad(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "spgo %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'spgo help %s' for more information.\n", cmd);
}

int cli_bad(const struct cli_parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vbad(p->cmd->name, fmt, ap);
	va_end(ap);
	return CLI_ERR;
}

int cli_usage(const struct cli_parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vbad(p->cmd->name, fmt, ap);
	va_end(ap);
	return 2;
}

int cli_bad_cmd(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vbad(cmd, fmt, ap);
	va_end(ap);
	return CLI_ERR;
}

/* The table's entry for name (len bytes), or NULL. */
static const struct cli_opt *lookup(const struct cli_opt *opts, const char *name, size_t len)
{
	for (const struct cli_opt *o = opts; o && o->name; o++)
		if (strlen(o->name) == len && !memcmp(o->name, name, len))
			return o;
	return NULL;
}

/* The edit distance (insertions, deletions, substitutions, and swaps of
 * neighbours: "--ouptut") between a (la bytes) and b, up to 63 bytes each;
 * longer words are not compared (a large value). */
static size_t edit_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b), d[64][64];
	if (la > 63 || lb > 63)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *cli_did_you_mean(const struct cli_cmd *cmd, const char *name, size_t len)
{
	/* Close enough to be a typo, not another word: one edit in a name of
	 * up to 4 bytes, two in a longer one, and '_' taken for '-' free of
	 * charge (gflags' --gcov_version for --gcov-version). */
	char norm[64];
	if (len >= sizeof norm)
		return NULL;
	for (size_t i = 0; i < len; i++)
		norm[i] = name[i] == '_' ? '-' : name[i];
	const char *best = NULL;
	size_t bestd = len <= 4 ? 1 : 2;
	for (const struct cli_opt *o = cmd->opts; o && o->name; o++) {
		if (!o->name[1] || o->key == CLI_IGNORE)
			continue; /* (one letter: too short to guess from) */
		size_t d = edit_distance(norm, len, o->name);
		if (d <= bestd && d < len) {
			best = o->name;
			bestd = d;
			if (!d)
				break;
		}
	}
	return best;
}

/* "unknown option 'X'", with the option of the table it is a typo of, if
 * any.  name: the long name as written (len bytes). */
static int unknown(struct cli_parser *p, const char *name, size_t len)
{
	const char *guess = cli_did_you_mean(p->cmd, name, len);
	if (guess)
		return cli_bad(p, "unknown option '%s'; did you mean '--%s'?", p->opt, guess);
	return cli_bad(p, "unknown option '%s'", p->opt);
}

/* Deliver option o; its value is inline (after '=' or in a cluster), else
 * the next argument when it takes one. */
static int take(struct cli_parser *p, const struct cli_opt *o, const char *inline_val)
{
	if (o->arg == CLI_OPT) {
		p->val = inline_val; /* the next argument is never its value */
	} else if (o->arg == CLI_NONE) {
		if (inline_val)
			return cli_bad(p, "option '%s' takes no value", p->opt);
		p->val = o->value;
	} else if (inline_val) {
		p->val = inline_val;
	} else if (p->i < p->argc) {
		p->val = p->argv[p->i++];
	} else {
		return cli_bad(p, "option '%s' needs a value", p->opt);
	}
	if (o->key == CLI_IGNORE)
		return cli_next(p);
	return o->key;
}

/* The next short option of a cluster "-abc". */
static int short_opt(struct cli_parser *p)
{
	char c = *p->cluster++;
	snprintf(p->opt, sizeof p->opt, "-%c", c);
	const struct cli_opt *o = lookup(p->cmd->opts, &c, 1);
	if (!o && c == 'h') {
		p->cmd->usage(stdout);
		return CLI_HELP;
	}
	if (!o && p->cluster == p->argv[p->i - 1] + 2 && *p->cluster) {
		/* "-binary": a long option written with one dash (gflags'
		 * way: create_llvm_prof -binary=...) */
		const char *w = p->cluster - 1;
		const char *guess = cli_did_you_mean(p->cmd, w, strcspn(w, "="));
		if (guess)
			return cli_bad(p, "unknown option '-%.*s'; did you mean '--%s'?",
				       (int)strcspn(w, "="), w, guess);
	}
	if (!o)
		return cli_bad(p, "unknown option '-%c'", c);
	const char *rest = *p->cluster ? p->cluster : NULL;
	if (o->arg == CLI_REQ) {
		p->cluster = NULL; /* the rest of the cluster is the value */
		return take(p, o, rest);
	}
	if (!rest)
		p->cluster = NULL;
	return take(p, o, NULL);
}

int cli_next(struct cli_parser *p)
{
	if (p->cluster)
		return short_opt(p);
	if (p->i >= p->argc)
		return CLI_END;
	const char *a = p->argv[p->i];
	if (p->dashdash || a[0] != '-' || a[1] == 0) {
		/* An argument. */
		if (p->cmd->in_order)
			return CLI_END;
		p->val = a;
		p->i++;
		return CLI_ARG;
	}
	p->i++;
	if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		; /* every command's, even one that passes unknown options on */
	else if (p->cmd->pass_unknown && a[1] != '-' ? !lookup(p->cmd->opts, a + 1, 1)
	    : p->cmd->pass_unknown && a[2] && !lookup(p->cmd->opts, a + 2, strcspn(a + 2, "="))) {
		p->val = a;
		return CLI_ARG;
	}
	size_t wlen = strcspn(a + 1, "=");
	if (a[1] != '-' && wlen > 1 && lookup(p->cmd->opts, a + 1, wlen)) {
		/* "-binary=prog", "-out x": one dash before a long option's
		 * whole name (the gflags tools' way: create_llvm_prof) is that
		 * option, not "-o ut=x" */
		snprintf(p->opt, sizeof p->opt, "-%.*s", (int)(wlen < 60 ? wlen : 60), a + 1);
		return take(p, lookup(p->cmd->opts, a + 1, wlen), a[1 + wlen] ? a + 2 + wlen : NULL);
	}
	if (a[1] != '-') {
		p->cluster = a + 1;
		return short_opt(p);
	}
	if (a[2] == 0) {
		p->dashdash = 1;
		return p->cmd->in_order ? CLI_END : cli_next(p);
	}
	const char *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	snprintf(p->opt, sizeof p->opt, "--%.*s", (int)(len < 60 ? len : 60), name);
	const struct cli_opt *o = lookup(p->cmd->opts, name, len);
	if (!o && len == 4 && !memcmp(name, "help", 4)) {
		p->cmd->usage(stdout);
		return CLI_HELP;
	}
	if (!o)
		return unknown(p, name, len);
	return take(p, o, eq ? eq + 1 : NULL);
}

int cli_u64(const struct cli_parser *p, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (spgo_parse_u64(p->val, out) < 0 || *out < lo || *out > hi)
		return cli_bad(p, "option '%s': '%s' is not a number in [%llu, %llu]", p->opt, p->val,
			       (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

int cli_double(const struct cli_parser *p, double lo, double hi, double *out)
{
	char *end;
	*out = strtod(p->val, &end);
	if (!*p->val || *end || !(*out > lo && *out <= hi))
		return cli_bad(p, "option '%s': '%s' is not a number in (%g, %g]", p->opt, p->val, lo, hi);
	return 0;
}

int cli_bool(const struct cli_parser *p, int *out)
{
	static const char *const words[] = {"true", "TRUE", "True", "1", "false", "FALSE", "False", "0"};
	if (!p->val) {
		*out = 1;
		return 0;
	}
	for (int k = 0; k < 8; k++)
		if (!strcmp(p->val, words[k])) {
			*out = k < 4;
			return 0;
		}
	return cli_bad(p, "option '%s': '%s' is not true, false, 1 or 0", p->opt, p->val);
}

int cli_choice(const struct cli_parser *p, const char *choices, int *out)
{
	int k = 0;
	for (const char *c = choices; *c; c += strlen(c) + 1, k++)
		if (!strcmp(c, p->val)) {
			*out = k;
			return 0;
		}
	char list[256];
	size_t n = 0;
	list[0] = 0;
	for (const char *c = choices; *c && n < sizeof list; c += strlen(c) + 1)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", c);
	return cli_bad(p, "option '%s': '%s' is not one of %s", p->opt, p->val, list);
}
