/*
 * minivm: the bundled example program of `make demo`.
 *
 * A small language (integers, arrays, while/if, functions) compiled from
 * source text to bytecode by a recursive-descent parser and run by a switch
 * dispatch interpreter.  It is branchy in the ways where profile-guided
 * optimization pays: a lexer and parser with skewed character classes, an
 * interpreter loop whose hot opcodes are a few of many, and helper calls
 * worth inlining on the hot path only.
 *
 * usage: minivm [SCALE]   (runs the built-in workload SCALE times, default 20)
 * Output is a checksum, so the optimized and unoptimized builds can be
 * compared for correctness.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bytecode ------------------------------------------------------------ */

enum op {
	OP_PUSH, OP_LOAD, OP_STORE, OP_GLOAD, OP_GSTORE, OP_ADD, OP_SUB, OP_MUL,
	OP_DIV, OP_MOD, OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
	OP_NOT, OP_NEG, OP_JMP, OP_JZ, OP_CALL, OP_RET, OP_POP, OP_ALOAD,
	OP_ASTORE, OP_NEWARR, OP_LEN, OP_PRINT, OP_HALT,
};

#define MAX_CODE 65536
#define MAX_NAMES 256
#define MAX_FUNCS 64
#define STACK 4096

static int32_t code[MAX_CODE];
static int ncode;

struct func {
	char name[32];
	int entry, nparams, nlocals;
};
static struct func funcs[MAX_FUNCS];
static int nfuncs;

static char globals_names[MAX_NAMES][32];
static int nglobals;

/* Arrays live in one arena; a value that is an array is its handle. */
static int64_t *arena;
static int64_t arena_used, arena_cap;

static void die(const char *msg)
{
	fprintf(stderr, "minivm: %s\n", msg);
	exit(1);
}

static void emit(int32_t x)
{
	if (ncode >= MAX_CODE)
		die("program too large");
	code[ncode++] = x;
}

/* ---- lexer --------------------------------------------------------------- */

enum tok { T_EOF, T_NUM, T_NAME, T_PUNCT, T_KEYWORD };
static const char *src;
static enum tok tok;
static int64_t tok_num;
static char tok_text[32];

static const char *keywords[] = {"fn", "var", "while", "if", "else", "return", "print", "new", "len"};
enum { K_FN, K_VAR, K_WHILE, K_IF, K_ELSE, K_RETURN, K_PRINT, K_NEW, K_LEN };
/* Tokens compare as small integers: punctuation is its one or two
 * characters, a keyword KW(index). */
#define P2(a, b) ((a) | ((b) << 8))
#define KW(k) (0x10000 + (k))
static int tok_code;

static void next(void)
{
	for (;;) {
		while (*src == ' ' || *src == '\n' || *src == '\t')
			src++;
		if (src[0] == '#') {
			while (*src && *src != '\n')
				src++;
			continue;
		}
		break;
	}
	if (!*src) {
		tok = T_EOF;
		return;
	}
	if (isdigit((unsigned char)*src)) {
		tok_num = 0;
		while (isdigit((unsigned char)*src))
			tok_num = tok_num * 10 + (*src++ - '0');
		tok = T_NUM;
		return;
	}
	if (isalpha((unsigned char)*src) || *src == '_') {
		int n = 0;
		while (isalnum((unsigned char)*src) || *src == '_') {
			if (n < 31)
				tok_text[n++] = *src;
			src++;
		}
		tok_text[n] = 0;
		tok = T_NAME;
		for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
			if (!strcmp(tok_text, keywords[i])) {
				tok = T_KEYWORD;
				tok_code = KW((int)i);
			}
		return;
	}
	/* Two-character operators first. */
	if ((src[0] == '<' || src[0] == '>' || src[0] == '=' || src[0] == '!') && src[1] == '=') {
		tok_text[0] = src[0], tok_text[1] = '=', tok_text[2] = 0;
		src += 2;
	} else if ((src[0] == '&' && src[1] == '&') || (src[0] == '|' && src[1] == '|')) {
		tok_text[0] = src[0], tok_text[1] = src[1], tok_text[2] = 0;
		src += 2;
	} else {
		tok_text[0] = *src++, tok_text[1] = 0;
	}
	tok = T_PUNCT;
	tok_code = P2(tok_text[0], tok_text[1]);
}

static int is(int code)
{
	return (tok == T_PUNCT || tok == T_KEYWORD) && tok_code == code;
}

static void expect(int code)
{
	if (!is(code)) {
		fprintf(stderr, "minivm: syntax error near '%.20s'\n", src);
		exit(1);
	}
	next();
}

/* ---- parser and code generator ------------------------------------------ */

static char locals[32][32];
static int nlocals;

static int find_local(const char *name)
{
	for (int i = 0; i < nlocals; i++)
		if (!strcmp(locals[i], name))
			return i;
	return -1;
}

static int find_global(const char *name, int create)
{
	for (int i = 0; i < nglobals; i++)
		if (!strcmp(globals_names[i], name))
			return i;
	if (!create)
		return -1;
	if (nglobals == MAX_NAMES)
		die("too many globals");
	strcpy(globals_names[nglobals], name);
	return nglobals++;
}

static int find_func(const char *name)
{
	for (int i = 0; i < nfuncs; i++)
		if (!strcmp(funcs[i].name, name))
			return i;
	return -1;
}

static void expr(void);

static void primary(void)
{
	if (tok == T_NUM) {
		emit(OP_PUSH);
		emit((int32_t)tok_num);
		next();
	} else if (is('(')) {
		next();
		expr();
		expect(')');
	} else if (is('-')) {
		next();
		primary();
		emit(OP_NEG);
	} else if (is('!')) {
		next();
		primary();
		emit(OP_NOT);
	} else if (is(KW(K_NEW))) {
		next();
		expect('(');
		expr();
		expect(')');
		emit(OP_NEWARR);
	} else if (is(KW(K_LEN))) {
		next();
		expect('(');
		expr();
		expect(')');
		emit(OP_LEN);
	} else if (tok == T_NAME) {
		char name[32];
		strcpy(name, tok_text);
		next();
		if (is('(')) {
			int f = find_func(name), nargs = 0;
			if (f < 0)
				die("unknown function");
			next();
			while (!is(')')) {
				expr();
				nargs++;
				if (is(','))
					next();
			}
			next();
			if (nargs != funcs[f].nparams)
				die("wrong number of arguments");
			emit(OP_CALL);
			emit(f);
		} else {
			int l = find_local(name);
			if (l >= 0) {
				emit(OP_LOAD);
				emit(l);
			} else {
				int g = find_global(name, 0);
				if (g < 0)
					die("unknown variable");
				emit(OP_GLOAD);
				emit(g);
			}
			if (is('[')) {
				next();
				expr();
				expect(']');
				emit(OP_ALOAD);
			}
		}
	} else {
		die("syntax error in expression");
	}
}

static int binop(int level)
{
	static const int ops[][4] = {
		{P2('|', '|')}, {P2('&', '&')}, {P2('=', '='), P2('!', '=')},
		{'<', P2('<', '='), '>', P2('>', '=')}, {'+', '-'}, {'*', '/', '%'},
	};
	static const int codes[][4] = {
		{OP_OR}, {OP_AND}, {OP_EQ, OP_NE}, {OP_LT, OP_LE, OP_GT, OP_GE}, {OP_ADD, OP_SUB},
		{OP_MUL, OP_DIV, OP_MOD},
	};
	for (int i = 0; i < 4 && ops[level][i]; i++)
		if (is(ops[level][i]))
			return codes[level][i];
	return -1;
}

static void expr_level(int level)
{
	if (level == 6) {
		primary();
		return;
	}
	expr_level(level + 1);
	int op;
	while ((op = binop(level)) >= 0) {
		next();
		expr_level(level + 1);
		emit(op);
	}
}

static void expr(void)
{
	expr_level(0);
}

static void statement(void);

static void block(void)
{
	expect('{');
	while (!is('}'))
		statement();
	next();
}

static void assignment(const char *name)
{
	int l = find_local(name), g = l < 0 ? find_global(name, 1) : -1;
	if (is('[')) {
		next();
		if (l >= 0)
			emit(OP_LOAD), emit(l);
		else
			emit(OP_GLOAD), emit(g);
		expr();
		expect(']');
		expect('=');
		expr();
		emit(OP_ASTORE);
	} else {
		expect('=');
		expr();
		if (l >= 0)
			emit(OP_STORE), emit(l);
		else
			emit(OP_GSTORE), emit(g);
	}
	expect(';');
}

static void statement(void)
{
	if (is(KW(K_VAR))) {
		next();
		if (tok != T_NAME)
			die("expected a name after var");
		strcpy(locals[nlocals++], tok_text);
		char name[32];
		strcpy(name, tok_text);
		next();
		assignment(name);
	} else if (is(KW(K_WHILE))) {
		next();
		int top = ncode;
		expr();
		emit(OP_JZ);
		int patch = ncode;
		emit(0);
		block();
		emit(OP_JMP);
		emit(top);
		code[patch] = ncode;
	} else if (is(KW(K_IF))) {
		next();
		expr();
		emit(OP_JZ);
		int patch = ncode;
		emit(0);
		block();
		if (is(KW(K_ELSE))) {
			next();
			emit(OP_JMP);
			int patch2 = ncode;
			emit(0);
			code[patch] = ncode;
			if (is(KW(K_IF)))
				statement();
			else
				block();
			code[patch2] = ncode;
		} else {
			code[patch] = ncode;
		}
	} else if (is(KW(K_RETURN))) {
		next();
		expr();
		expect(';');
		emit(OP_RET);
	} else if (is(KW(K_PRINT))) {
		next();
		expr();
		expect(';');
		emit(OP_PRINT);
	} else if (tok == T_NAME) {
		char name[32];
		strcpy(name, tok_text);
		next();
		if (is('(')) { /* a call as a statement */
			src -= 1; /* re-lex "(" through primary */
			while (*src != '(')
				src--;
			strcpy(tok_text, name);
			tok = T_NAME;
			primary();
			emit(OP_POP);
			expect(';');
		} else {
			assignment(name);
		}
	} else {
		die("syntax error in statement");
	}
}

static void function(void)
{
	expect(KW(K_FN));
	if (nfuncs == MAX_FUNCS)
		die("too many functions");
	struct func *f = &funcs[nfuncs++];
	strcpy(f->name, tok_text);
	next();
	expect('(');
	nlocals = 0;
	while (!is(')')) {
		strcpy(locals[nlocals++], tok_text);
		next();
		if (is(','))
			next();
	}
	next();
	f->nparams = nlocals;
	f->entry = ncode;
	block();
	emit(OP_PUSH), emit(0), emit(OP_RET);
	f->nlocals = 32;
}

static void compile(const char *text)
{
	src = text;
	ncode = nfuncs = nglobals = 0;
	next();
	while (tok != T_EOF)
		function();
}

/* ---- interpreter --------------------------------------------------------- */

static int64_t globals[MAX_NAMES];
static uint64_t checksum;

static int64_t new_array(int64_t n)
{
	if (n < 0 || n > 1 << 24)
		die("bad array size");
	if (arena_used + n + 1 > arena_cap) {
		arena_cap = (arena_used + n + 1) * 2;
		arena = realloc(arena, (size_t)arena_cap * sizeof *arena);
		if (!arena)
			die("out of memory");
	}
	int64_t h = arena_used;
	arena[h] = n;
	memset(&arena[h + 1], 0, (size_t)n * sizeof *arena);
	arena_used += n + 1;
	return h;
}

static int64_t *element(int64_t arr, int64_t i)
{
	if (arr < 0 || arr >= arena_used || i < 0 || i >= arena[arr])
		die("array index out of range");
	return &arena[arr + 1 + i];
}

static int64_t run(int entry_func)
{
	static int64_t stack[STACK];
	static struct {
		int ret_pc, base;
	} frames[1024];
	int sp = 0, fp = 0, nframes = 0;
	int pc = funcs[entry_func].entry;
	sp = funcs[entry_func].nlocals;
	for (;;) {
		int32_t op = code[pc++];
		switch (op) {
		case OP_PUSH: stack[sp++] = code[pc++]; break;
		case OP_LOAD: stack[sp++] = stack[fp + code[pc++]]; break;
		case OP_STORE: stack[fp + code[pc++]] = stack[--sp]; break;
		case OP_GLOAD: stack[sp++] = globals[code[pc++]]; break;
		case OP_GSTORE: globals[code[pc++]] = stack[--sp]; break;
		case OP_ADD: sp--; stack[sp - 1] += stack[sp]; break;
		case OP_SUB: sp--; stack[sp - 1] -= stack[sp]; break;
		case OP_MUL: sp--; stack[sp - 1] *= stack[sp]; break;
		case OP_DIV:
			sp--;
			if (stack[sp] == 0)
				die("division by zero");
			stack[sp - 1] /= stack[sp];
			break;
		case OP_MOD:
			sp--;
			if (stack[sp] == 0)
				die("division by zero");
			stack[sp - 1] %= stack[sp];
			break;
		case OP_LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
		case OP_LE: sp--; stack[sp - 1] = stack[sp - 1] <= stack[sp]; break;
		case OP_GT: sp--; stack[sp - 1] = stack[sp - 1] > stack[sp]; break;
		case OP_GE: sp--; stack[sp - 1] = stack[sp - 1] >= stack[sp]; break;
		case OP_EQ: sp--; stack[sp - 1] = stack[sp - 1] == stack[sp]; break;
		case OP_NE: sp--; stack[sp - 1] = stack[sp - 1] != stack[sp]; break;
		case OP_AND: sp--; stack[sp - 1] = stack[sp - 1] && stack[sp]; break;
		case OP_OR: sp--; stack[sp - 1] = stack[sp - 1] || stack[sp]; break;
		case OP_NOT: stack[sp - 1] = !stack[sp - 1]; break;
		case OP_NEG: stack[sp - 1] = -stack[sp - 1]; break;
		case OP_JMP: pc = code[pc]; break;
		case OP_JZ:
			if (stack[--sp] == 0)
				pc = code[pc];
			else
				pc++;
			break;
		case OP_CALL: {
			struct func *f = &funcs[code[pc++]];
			if (nframes == 1024 || sp + f->nlocals >= STACK)
				die("stack overflow");
			frames[nframes].ret_pc = pc;
			frames[nframes].base = fp;
			nframes++;
			fp = sp - f->nparams;
			sp = fp + f->nlocals;
			pc = f->entry;
			break;
		}
		case OP_RET: {
			int64_t v = stack[--sp];
			if (nframes == 0)
				return v;
			nframes--;
			sp = fp;
			fp = frames[nframes].base;
			pc = frames[nframes].ret_pc;
			stack[sp++] = v;
			break;
		}
		case OP_POP: sp--; break;
		case OP_ALOAD: sp--; stack[sp - 1] = *element(stack[sp - 1], stack[sp]); break;
		case OP_ASTORE:
			sp -= 3;
			*element(stack[sp], stack[sp + 1]) = stack[sp + 2];
			break;
		case OP_NEWARR: stack[sp - 1] = new_array(stack[sp - 1]); break;
		case OP_LEN: stack[sp - 1] = arena[stack[sp - 1]]; break;
		case OP_PRINT: checksum = checksum * 31 + (uint64_t)stack[--sp]; break;
		case OP_HALT: return 0;
		default: die("bad opcode");
		}
	}
}

/* ---- the workload -------------------------------------------------------- */

static const char *program =
	"# a sieve, a sort, a recursive function and a string-like scan\n"
	"fn sieve(n) {\n"
	"  var a = new(n); var i = 2; var count = 0;\n"
	"  while (i < n) {\n"
	"    if (a[i] == 0) { count = count + 1; var j = i * i;\n"
	"      while (j < n) { a[j] = 1; j = j + i; } }\n"
	"    i = i + 1; }\n"
	"  return count; }\n"
	"fn fib(n) { if (n < 2) { return n; } return fib(n - 1) + fib(n - 2); }\n"
	"fn lcg(x) { return (x * 1103515245 + 12345) % 2147483648; }\n"
	"fn sort(a) {\n"
	"  var n = len(a); var i = 1;\n"
	"  while (i < n) { var v = a[i]; var j = i - 1; var go = 1;\n"
	"    while (go) { if (j < 0) { go = 0; } else if (a[j] > v) { a[j + 1] = a[j]; j = j - 1; } else { go = 0; } }\n"
	"    a[j + 1] = v; i = i + 1; }\n"
	"  return a[0]; }\n"
	"fn collatz(n) { var steps = 0;\n"
	"  while (n != 1) { if (n % 2 == 0) { n = n / 2; } else { n = 3 * n + 1; }\n"
	"    steps = steps + 1; }\n"
	"  return steps; }\n"
	"fn scan(a) { var i = 0; var words = 0; var inword = 0;\n"
	"  while (i < len(a)) { var c = a[i] % 7;\n"
	"    if (c == 0) { inword = 0; } else if (inword == 0) { inword = 1; words = words + 1; }\n"
	"    i = i + 1; }\n"
	"  return words; }\n"
	"fn main() {\n"
	"  print sieve(30000);\n"
	"  print fib(20);\n"
	"  var a = new(600); var i = 0; var x = 7;\n"
	"  while (i < 600) { x = lcg(x); a[i] = x % 10000; i = i + 1; }\n"
	"  print sort(a);\n"
	"  var k = 1; var total = 0;\n"
	"  while (k < 3000) { total = total + collatz(k); k = k + 1; }\n"
	"  print total;\n"
	"  print scan(a);\n"
	"  return 0; }\n";

/*
 * The front end's share of the work: a library of generated functions
 * (variants of the workload's own) compiled, but mostly not run.
 */
static char *library_source(int copies)
{
	static const char *tmpl =
		"fn lib%d_a(n) { var s = 0; var i = 0;\n"
		"  while (i < n) { if (i %% 3 == 0) { s = s + i * %d; } else { s = s - 1; } i = i + 1; }\n"
		"  return s; }\n"
		"fn lib%d_b(x, y) { # a comment that the lexer skips over\n"
		"  if (x > y && y >= 0 || x == %d) { return x - y; } else if (x < 0) { return -x; }\n"
		"  return lib%d_a(x + y) / (y + %d); }\n";
	size_t cap = (size_t)copies * 512 + 1, n = 0;
	char *text = malloc(cap);
	if (!text)
		die("out of memory");
	for (int i = 0; i < copies; i++)
		n += (size_t)snprintf(text + n, cap - n, tmpl, i, i + 1, i, i, i, i + 1);
	return text;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 20;
	char *lib = library_source(28);
	size_t lib_len = strlen(lib), prog_len = strlen(program);
	char *text = malloc(lib_len + prog_len + 1);
	if (!text)
		die("out of memory");
	memcpy(text, lib, lib_len);
	memcpy(text + lib_len, program, prog_len + 1);
	for (int round = 0; round < scale; round++) {
		for (int k = 0; k < 300; k++)
			compile(text); /* the front end is part of the workload */
		arena_used = 0;
		run(find_func("main"));
	}
	printf("minivm: %d rounds, checksum %016llx\n", scale, (unsigned long long)checksum);
	free(arena);
	free(text);
	free(lib);
	return 0;
}
