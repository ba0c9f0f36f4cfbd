/* The option parser of the command line: see opt.h. */
#include "cli/opt.h"

#include <stdarg.h>
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
	if (p->cmd->pass_unknown && a[1] != '-' ? !lookup(p->cmd->opts, a + 1, 1)
	    : p->cmd->pass_unknown && a[2] && !lookup(p->cmd->opts, a + 2, strcspn(a + 2, "="))) {
		p->val = a;
		return CLI_ARG;
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
		return cli_bad(p, "unknown option '%s'", p->opt);
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
