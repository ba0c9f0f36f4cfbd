/*
 * demangle.c: Itanium C++ ABI names back to source form, as
 * llvm-symbolizer prints function names (it demangles by default), for
 * `spgo symbolize`.
 *
 * Why spgo needs it for C: clang -fpseudo-probe-for-profiling turns on
 * unique internal linkage names, which mangles every static function of a
 * C file: static int mid(int) becomes _ZL3midi.__uniq.1691...; and
 * llvm-symbolizer prints "mid(int) (.__uniq.1691...)" (what follows the
 * first '.' after the encoding is a vendor suffix, shown in parentheses).
 *
 * What is read: _Z, then a function name -- an optional L (internal
 * linkage), a source name, a nested name N [K] [V] name... E with
 * constructors (C1-C3) and destructors (D0-D2), St for std:: -- and its
 * parameter types: the builtin types, pointers, references, cv
 * qualifiers, arrays, function types, class/enum names and substitutions
 * (S_, S0_ ...).  A data name (no types) is its name.  Anything else
 * (templates, operators, local names, ...) is not demangled: the caller
 * prints the name as stored, and a test compares with llvm-symbolizer-19
 * where it matters (tests/unit/test_demangle.c, symbolize_llvm.sh).
 *
 * Printing follows LLVM's spelling: qualifiers after what they qualify
 * ("char const*"), ", " between parameters, "()" for (void), "int (*)(int)"
 * and "int (*) [4]" for pointers to functions and arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"

enum { N_NAME, N_QUAL, N_PTR, N_REF, N_RREF, N_ARRAY, N_FUNC };
enum { Q_CONST = 1, Q_VOLATILE = 2, Q_RESTRICT = 4 };

#define MAX_NODES 512
#define MAX_DEPTH 64
#define MAX_NAMES 8192 /* bytes of composed names ("a::b") */

struct node {
	int kind;
	int child;            /* pointee, element, qualified type, return type */
	int quals;            /* N_QUAL; N_FUNC: of the function (member) */
	const char *s;        /* N_NAME: text; N_ARRAY: dimension */
	size_t n;
	int first, nparams;   /* N_FUNC: its parameters in params[] */
};

struct dm {
	const char *p, *end;
	struct node nodes[MAX_NODES];
	int nn;
	int subs[MAX_NODES], nsubs;
	int params[MAX_NODES], nparam;
	int depth;
	int bad;
	/* The text of composed names; fixed, so that nodes may point in. */
	char names[MAX_NAMES];
	size_t names_n;
	VEC(char) out;
};

static int node(struct dm *d, int kind)
{
	if (d->nn == MAX_NODES) {
		d->bad = 1;
		return 0;
	}
	struct node *x = &d->nodes[d->nn];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->child = -1;
	return d->nn++;
}

static void add_sub(struct dm *d, int n)
{
	if (d->nsubs < MAX_NODES)
		d->subs[d->nsubs++] = n;
}

static int peek(const struct dm *d, size_t i)
{
	return d->p + i < d->end ? (unsigned char)d->p[i] : 0;
}

static int eat(struct dm *d, char c)
{
	if (peek(d, 0) != c)
		return 0;
	d->p++;
	return 1;
}

/* <number>: decimal digits; -1 when none. */
static long number(struct dm *d)
{
	long v = 0;
	int any = 0;
	while (peek(d, 0) >= '0' && peek(d, 0) <= '9' && v < 1000000) {
		v = v * 10 + (*d->p++ - '0');
		any = 1;
	}
	return any ? v : -1;
}

/* A name node with text s[0, n). */
static int name_node(struct dm *d, const char *s, size_t n)
{
	int x = node(d, N_NAME);
	d->nodes[x].s = s;
	d->nodes[x].n = n;
	return x;
}

/* <source-name> ::= <length> <identifier> */
static int source_name(struct dm *d, const char **s, size_t *n)
{
	if (peek(d, 0) == '0') /* no leading zero */
		return d->bad = 1, -1;
	long len = number(d);
	if (len <= 0 || len > d->end - d->p)
		return d->bad = 1, -1;
	*s = d->p;
	*n = (size_t)len;
	d->p += len;
	return 0;
}

/* Room for n more bytes of composed names, or NULL (too long: bad). */
static char *names_room(struct dm *d, size_t n)
{
	if (n > MAX_NAMES - d->names_n) {
		d->bad = 1;
		return NULL;
	}
	char *at = d->names + d->names_n;
	d->names_n += n;
	return at;
}

/* A name node prefix + "::" + s[0, n) (just s without a prefix). */
static int join_name(struct dm *d, int prefix, const char *s, size_t n)
{
	if (prefix < 0)
		return name_node(d, s, n);
	const struct node *p = &d->nodes[prefix];
	size_t len = p->n + 2 + n;
	char *at = names_room(d, len);
	if (!at)
		return 0;
	memcpy(at, p->s, p->n);
	memcpy(at + p->n, "::", 2);
	memcpy(at + p->n + 2, s, n);
	return name_node(d, at, len);
}

static int type(struct dm *d);

/* <substitution> ::= S_ | S <seq-id> _ | St (std::, for names only) */
static int substitution(struct dm *d)
{
	long i = 0;
	if (eat(d, '_'))
		i = 0;
	else {
		long v = 0;
		int any = 0;
		while (((peek(d, 0) >= '0' && peek(d, 0) <= '9') || (peek(d, 0) >= 'A' && peek(d, 0) <= 'Z')) &&
		       v < MAX_NODES) {
			int c = *d->p++;
			v = v * 36 + (c <= '9' ? c - '0' : c - 'A' + 10);
			any = 1;
		}
		if (!any || !eat(d, '_'))
			return d->bad = 1, -1;
		i = v + 1;
	}
	if (i >= d->nsubs)
		return d->bad = 1, -1;
	return d->subs[i];
}

/*
 * <nested-name> ::= N [<CV-qualifiers>] <prefix> <unqualified-name> E; the
 * components are source names, ctors and dtors, S_ substitutions and
 * St.  *quals gets the member function's qualifiers.  Every prefix but the
 * whole name is a substitution candidate.
 */
static int nested_name(struct dm *d, int *quals)
{
	*quals = 0;
	while (peek(d, 0) == 'K' || peek(d, 0) == 'V' || peek(d, 0) == 'r') {
		int c = *d->p++;
		*quals |= c == 'K' ? Q_CONST : c == 'V' ? Q_VOLATILE : Q_RESTRICT;
	}
	int cur = -1;
	int pending = 0; /* cur is a new prefix: a candidate once more follows */
	const char *last = NULL; /* the last source name (for ctors/dtors) */
	size_t last_n = 0;
	while (!d->bad) {
		if (eat(d, 'E'))
			return cur >= 0 ? cur : (d->bad = 1, -1);
		if (pending)
			add_sub(d, cur);
		pending = 1;
		int c = peek(d, 0);
		if (c == 'S' && peek(d, 1) == 't' && cur < 0) {
			d->p += 2;
			cur = name_node(d, "std", 3);
			pending = 0; /* "std" alone is no candidate */
			continue;
		}
		if (c == 'S' && cur < 0) {
			d->p++;
			cur = substitution(d);
			if (cur >= 0 && d->nodes[cur].kind != N_NAME)
				d->bad = 1;
			pending = 0; /* already one */
			continue;
		}
		if (c == 'L' && peek(d, 1) >= '0' && peek(d, 1) <= '9')
			d->p++;
		if ((c == 'C' && peek(d, 1) >= '1' && peek(d, 1) <= '3') ||
		    (c == 'D' && peek(d, 1) >= '0' && peek(d, 1) <= '2')) {
			if (!last)
				return d->bad = 1, -1;
			d->p += 2;
			if (c == 'C') {
				cur = join_name(d, cur, last, last_n);
			} else { /* "~Name" */
				char *t = names_room(d, last_n + 1);
				if (!t)
					return -1;
				t[0] = '~';
				memcpy(t + 1, last, last_n);
				cur = join_name(d, cur, t, last_n + 1);
			}
			continue;
		}
		const char *s;
		size_t n;
		if (source_name(d, &s, &n) < 0)
			return -1;
		last = s, last_n = n;
		cur = join_name(d, cur, s, n);
	}
	return -1;
}

/* A class or enum type named by <name>: a source name or a nested name;
 * a substitution candidate. */
static int class_type(struct dm *d)
{
	int x;
	if (eat(d, 'N')) {
		int q;
		x = nested_name(d, &q);
		if (q)
			d->bad = 1;
	} else {
		const char *s;
		size_t n;
		if (source_name(d, &s, &n) < 0)
			return -1;
		x = name_node(d, s, n);
	}
	if (!d->bad)
		add_sub(d, x);
	return x;
}

static const char *builtin(int c, int c2, int *two)
{
	*two = 0;
	switch (c) {
	case 'v': return "void";
	case 'w': return "wchar_t";
	case 'b': return "bool";
	case 'c': return "char";
	case 'a': return "signed char";
	case 'h': return "unsigned char";
	case 's': return "short";
	case 't': return "unsigned short";
	case 'i': return "int";
	case 'j': return "unsigned int";
	case 'l': return "long";
	case 'm': return "unsigned long";
	case 'x': return "long long";
	case 'y': return "unsigned long long";
	case 'n': return "__int128";
	case 'o': return "unsigned __int128";
	case 'f': return "float";
	case 'd': return "double";
	case 'e': return "long double";
	case 'g': return "__float128";
	case 'z': return "...";
	case 'D':
		*two = 1;
		switch (c2) {
		case 'i': return "char32_t";
		case 's': return "char16_t";
		case 'u': return "char8_t";
		case 'n': return "std::nullptr_t";
		}
	}
	return NULL;
}

/* <bare-function-type> into d->params (one "void" is no parameter) until
 * E (in a function type) or the end (of the encoding). */
static int param_list(struct dm *d, int fn, int until_e)
{
	int list[MAX_DEPTH * 4], n = 0;
	while (!d->bad && (until_e ? peek(d, 0) != 'E' : d->p < d->end && peek(d, 0) != '.')) {
		if (n == (int)(sizeof list / sizeof *list))
			return d->bad = 1, -1;
		list[n++] = type(d);
	}
	if (d->bad || (n == 0 && !until_e)) /* "F i E" is "int ()" for LLVM */
		return d->bad = 1, -1;
	for (int i = 0; i < n; i++) { /* void only alone: no parameter */
		const struct node *x = &d->nodes[list[i]];
		if (x->kind == N_NAME && x->n == 4 && !memcmp(x->s, "void", 4)) {
			if (n > 1)
				return d->bad = 1, -1;
			n = 0;
		}
	}
	if (d->nparam + n > MAX_NODES)
		return d->bad = 1, -1;
	d->nodes[fn].first = d->nparam;
	d->nodes[fn].nparams = n;
	memcpy(d->params + d->nparam, list, (size_t)n * sizeof *list);
	d->nparam += n;
	return 0;
}

/* <function-type> ::= F [Y] <return type> <bare-function-type> [<ref>] E */
static int function_type(struct dm *d)
{
	eat(d, 'Y');
	int f = node(d, N_FUNC);
	d->nodes[f].child = type(d);
	if (param_list(d, f, 1) < 0)
		return -1;
	if (peek(d, 0) == 'R' || peek(d, 0) == 'O')
		return d->bad = 1, -1; /* ref-qualified: not read */
	eat(d, 'E');
	return f;
}

static int type(struct dm *d)
{
	if (++d->depth > MAX_DEPTH || d->bad) {
		d->bad = 1;
		return 0;
	}
	int c = peek(d, 0), two, x = -1;
	const char *b = builtin(c, peek(d, 1), &two);
	if (b && (c != 'D' || two)) {
		d->p += 1 + two;
		x = name_node(d, b, strlen(b));
		d->depth--;
		return x; /* builtins are no substitution candidates */
	}
	switch (c) {
	case 'K': case 'V': case 'r': {
		/* <CV-qualifiers> ::= [r] [V] [K]: once each, in that order
		 * (a second K qualifies again: "const const", as LLVM). */
		int q = 0;
		q |= eat(d, 'r') ? Q_RESTRICT : 0;
		q |= eat(d, 'V') ? Q_VOLATILE : 0;
		q |= eat(d, 'K') ? Q_CONST : 0;
		int t = type(d);
		x = node(d, N_QUAL);
		d->nodes[x].child = t;
		d->nodes[x].quals = q;
		break;
	}
	case 'P': case 'R': case 'O': {
		d->p++;
		int t = type(d);
		x = node(d, c == 'P' ? N_PTR : c == 'R' ? N_REF : N_RREF);
		d->nodes[x].child = t;
		break;
	}
	case 'A': {
		d->p++;
		const char *dim = d->p;
		number(d); /* none: "int []" */
		if (!eat(d, '_')) {
			d->bad = 1;
			break;
		}
		x = node(d, N_ARRAY);
		d->nodes[x].s = dim;
		d->nodes[x].n = (size_t)(d->p - 1 - dim);
		d->nodes[x].child = type(d);
		break;
	}
	case 'F':
		d->p++;
		x = function_type(d);
		break;
	case 'S':
		if (peek(d, 1) == 't') { /* std::name */
			d->p += 2;
			const char *s;
			size_t n;
			if (source_name(d, &s, &n) < 0)
				break;
			x = join_name(d, name_node(d, "std", 3), s, n);
			break;
		}
		d->p++;
		x = substitution(d);
		d->depth--;
		return x; /* already a candidate */
	case 'N':
		x = class_type(d);
		d->depth--;
		return x;
	default:
		if (c >= '1' && c <= '9') {
			x = class_type(d);
			d->depth--;
			return x;
		}
		d->bad = 1;
	}
	if (!d->bad)
		add_sub(d, x);
	d->depth--;
	return d->bad ? 0 : x;
}

/* ---- printing: each type has a left and a right part ----------------------- */

static void put(struct dm *d, const char *s, size_t n)
{
	VEC_GROW(&d->out, d->out.n + n + 1);
	memcpy(d->out.v + d->out.n, s, n);
	d->out.n += n;
	d->out.v[d->out.n] = 0;
}

static void puts_(struct dm *d, const char *s)
{
	put(d, s, strlen(s));
}

static char last_char(const struct dm *d)
{
	return d->out.n ? d->out.v[d->out.n - 1] : 0;
}

static void quals(struct dm *d, int q)
{
	if (q & Q_CONST)
		puts_(d, " const");
	if (q & Q_VOLATILE)
		puts_(d, " volatile");
	if (q & Q_RESTRICT)
		puts_(d, " restrict");
}

/* Does the type print a right part that needs parentheses around a
 * pointer to it (an array or a function, through qualifiers)? */
static int has_right(const struct dm *d, int t)
{
	while (d->nodes[t].kind == N_QUAL)
		t = d->nodes[t].child;
	return d->nodes[t].kind == N_ARRAY || d->nodes[t].kind == N_FUNC;
}

static void print_right(struct dm *d, int t);

static void print_left(struct dm *d, int t)
{
	const struct node *x = &d->nodes[t];
	switch (x->kind) {
	case N_NAME: put(d, x->s, x->n); break;
	case N_QUAL: /* after the type; a function's after its parameters */
		print_left(d, x->child);
		if (d->nodes[x->child].kind != N_FUNC)
			quals(d, x->quals);
		break;
	case N_PTR: case N_REF: case N_RREF: {
		print_left(d, x->child);
		int t2 = x->child;
		while (d->nodes[t2].kind == N_QUAL)
			t2 = d->nodes[t2].child;
		if (d->nodes[t2].kind == N_ARRAY)
			puts_(d, " (");
		else if (d->nodes[t2].kind == N_FUNC)
			puts_(d, "(");
		puts_(d, x->kind == N_PTR ? "*" : x->kind == N_REF ? "&" : "&&");
		break;
	}
	case N_ARRAY: print_left(d, x->child); break;
	case N_FUNC:
		print_left(d, x->child);
		puts_(d, " ");
		break;
	}
}

static void print_params(struct dm *d, const struct node *f)
{
	puts_(d, "(");
	for (int i = 0; i < f->nparams; i++) {
		if (i)
			puts_(d, ", ");
		int p = d->params[f->first + i];
		print_left(d, p);
		print_right(d, p);
	}
	puts_(d, ")");
}

static void print_right(struct dm *d, int t)
{
	const struct node *x = &d->nodes[t];
	switch (x->kind) {
	case N_NAME: break;
	case N_QUAL:
		print_right(d, x->child);
		if (d->nodes[x->child].kind == N_FUNC)
			quals(d, x->quals);
		break;
	case N_PTR: case N_REF: case N_RREF:
		if (has_right(d, x->child))
			puts_(d, ")");
		print_right(d, x->child);
		break;
	case N_ARRAY:
		if (last_char(d) != ']')
			puts_(d, " ");
		puts_(d, "[");
		put(d, x->s, x->n);
		puts_(d, "]");
		print_right(d, x->child);
		break;
	case N_FUNC:
		print_params(d, x);
		quals(d, x->quals);
		print_right(d, x->child);
		break;
	}
}

/*
 * The source form of an Itanium-mangled name (_Z...), allocated; NULL when
 * it is not one or uses what this reader does not know (then print the
 * name as it is).
 */
char *spgo_demangle(const char *mangled)
{
	if (!spgo_name_mangled(mangled))
		return NULL;
	struct dm *d = xcalloc(1, sizeof *d);
	d->p = mangled + 2;
	d->end = mangled + strlen(mangled);
	/* The name. */
	int fq = 0, name = -1;
	if (eat(d, 'N')) {
		name = nested_name(d, &fq);
	} else if (peek(d, 0) == 'S' && peek(d, 1) == 't') {
		d->p += 2;
		const char *s;
		size_t n;
		if (source_name(d, &s, &n) == 0)
			name = join_name(d, name_node(d, "std", 3), s, n);
	} else {
		eat(d, 'L');
		const char *s;
		size_t n;
		if (source_name(d, &s, &n) == 0)
			name = name_node(d, s, n);
	}
	/* Its parameters, unless it is a data name. */
	int fn = -1;
	if (!d->bad && d->p < d->end && peek(d, 0) != '.') {
		fn = node(d, N_FUNC);
		d->nodes[fn].quals = fq;
		param_list(d, fn, 0);
	}
	char *res = NULL;
	/* The rest must be a vendor suffix ".xxx" (or nothing). */
	if (!d->bad && name >= 0 && (d->p == d->end || *d->p == '.')) {
		const struct node *nm = &d->nodes[name];
		put(d, nm->s, nm->n);
		if (fn >= 0) {
			print_params(d, &d->nodes[fn]);
			quals(d, fq);
		}
		if (d->p < d->end) {
			puts_(d, " (");
			puts_(d, d->p);
			puts_(d, ")");
		}
		res = xstrdup(d->out.v);
	}
	VEC_FREE(&d->out);
	free(d);
	return res;
}
