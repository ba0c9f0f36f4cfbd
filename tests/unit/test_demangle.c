/*
 * The demangler of spgo symbolize (src/binary/demangle.c) on a table of
 * names whose expected form is what llvm-cxxfilt-19 prints (the demangler
 * llvm-symbolizer-19 uses): clang's unique internal names of C static
 * functions (_ZL3midi.__uniq.N), every C parameter shape, nested names,
 * constructors, destructors, const members, substitutions, vendor
 * suffixes; and names it must leave alone (NULL: printed as stored) --
 * malformed ones, and templates, packs and member pointers, which it does
 * not read (llvm-symbolizer demangles those; spgo prints them as stored).
 * Then random strings over the mangling alphabet: no crash, no leak.
 */
#include "binary/binary_impl.h"
#include "harness.h"

static const struct {
	const char *mangled, *want; /* want NULL: not demangled */
} cases[] = {
	{"_ZL3midi.__uniq.1691", "mid(int) (.__uniq.1691)"},
	{"_ZL3foov", "foo()"},
	{"_Z3foov", "foo()"},
	{"_Z3fooPKc", "foo(char const*)"},
	{"_Z3fooPFiiE", "foo(int (*)(int))"},
	{"_Z3fooPA10_i", "foo(int (*) [10])"},
	{"_Z3fooA10_i", "foo(int [10])"},
	{"_Z3fooP1SS0_", "foo(S*, S*)"},
	{"_Z3fooP1SS_", "foo(S*, S)"},
	{"_Z3fooiz", "foo(int, ...)"},
	{"_Z3fooz", "foo(...)"},
	{"_Z3fooPPFiiE", "foo(int (**)(int))"},
	{"_Z3fooKPFiiE", "foo(int (* const)(int))"},
	{"_Z3fooPKPc", "foo(char* const*)"},
	{"_Z3fooRi", "foo(int&)"},
	{"_Z3fooOi", "foo(int&&)"},
	{"_Z3fooPVi", "foo(int volatile*)"},
	{"_Z3fooPrKi", "foo(int const restrict*)"},
	{"_ZN1a1bEv", "a::b()"},
	{"_ZNK1a1bEv", "a::b() const"},
	{"_ZN1aC1Ev", "a::a()"},
	{"_ZN1aD2Ev", "a::~a()"},
	{"_ZN1a1b1cEPNS_1dE", "a::b::c(a::d*)"},
	{"_ZN1a1bEPS_", "a::b(a*)"},
	{"_ZN1a1bEPNS_1bE", "a::b(a::b*)"},
	{"_ZNSt3foo3barEv", "std::foo::bar()"},
	{"_Z3fooSt6vector", "foo(std::vector)"},
	{"_ZL3var", "var"},
	{"_ZN1a3varE", "a::var"},
	{"_Z3fooPA2_A3_i", "foo(int (*) [2][3])"},
	{"_Z3fooPFvPFiiEE", "foo(void (*)(int (*)(int)))"},
	{"_Z3fooFivE", "foo(int ())"},
	{"_Z3fooPFPFivEiE", "foo(int (* (*)(int))())"},
	{"_Z3fooDn", "foo(std::nullptr_t)"},
	{"_Z3fooDiDsDu", "foo(char32_t, char16_t, char8_t)"},
	{"_Z3foonogew", "foo(__int128, unsigned __int128, __float128, long double, wchar_t)"},
	{"_Z3fooab", "foo(signed char, bool)"},
	{"_Z3foo1S1T", "foo(S, T)"},
	{"_Z3foo1SS_S_", "foo(S, S, S)"},
	{"_Z3fooPKcS0_", "foo(char const*, char const*)"},
	{"_Z3fooPKcS_", "foo(char const*, char const)"},
	{"_Z3fooPK1SS1_", "foo(S const*, S const*)"},
	{"_Z3fooPv.cold.1", "foo(void*) (.cold.1)"},
	{"_Z3foov.llvm.123", "foo() (.llvm.123)"},
	{"_Zv", NULL},
	{"_Z", NULL},
	{"_Z3", NULL},
	{"_Z3fo", NULL},
	{"_Z3foo", "foo"},
	{"_Z3fooP", NULL},
	{"_Z3fooS_", NULL},
	{"_Z3fooA_i", "foo(int [])"},
	{"_Z3fooPFiE", "foo(int (*)())"},
	{"_ZN1aE", "a"},
	{"_ZN1a1bEPNS0_1cE", NULL},
	{"_ZN1a1b1cEv", "a::b::c()"},
	{"_ZN1a1b1cEPS0_", "a::b::c(a::b*)"},
	{"_ZL12op_sometimesj.__uniq.118125859918698042390275950387953358138", "op_sometimes(unsigned int) (.__uniq.118125859918698042390275950387953358138)"},
	{"_ZL6reportPKci.__uniq.40046966418851807580830006847438821565", "report(char const*, int) (.__uniq.40046966418851807580830006847438821565)"},
	{"_ZSt4moveRi", "std::move(int&)"},
	{"_ZN1a1bEPKNS_1cE", "a::b(a::c const*)"},
	{"_Z1fPFvvEPS_", "f(void (*)(), void (*)())"},
	{"_Z1fPFvvES0_", "f(void (*)(), void (*)())"},
	{"_Z1fP1SPS_S1_", "f(S*, S*, S*)"},
	{"_Z1fPKPKc", "f(char const* const*)"},
	{"_Z1fRA4_KPc", "f(char* const (&) [4])"},
	{"_Z1fPA4_Kc", "f(char const (*) [4])"},
	{"_Z1fPKA4_c", "f(char const (*) [4])"},
	{"_Z1fPVKi", "f(int const volatile*)"},
	{"_ZNVK1a1bEv", "a::b() const volatile"},
	{"_ZNKSt3foo3barEv", "std::foo::bar() const"},
	{"_Z1fSt3foo", "f(std::foo)"},
	{"_Z1fSt3fooS_", "f(std::foo, std::foo)"},
	{"_Z1fN1a1bES_S0_", "f(a::b, a, a::b)"},
	{"_Z1fSA_", NULL},
	{"_Z1f1SS_S_S_S_S_S_S_S_S_S_S_S_", "f(S, S, S, S, S, S, S, S, S, S, S, S, S)"},
	{"_Z1fPKcPKcPKc", "f(char const*, char const*, char const*)"},
	{"_Z1fPFivEPFivE", "f(int (*)(), int (*)())"},
	{"_Z1fPPA3_i", "f(int (**) [3])"},
	{"_ZL1fv.", "f() (.)"},
	{"_ZL1fv..x", "f() (..x)"},
	{"_Z1fv__uniq", NULL},
	{"_Z1fKFivE", "f(int () const)"},
	{"_Z1fPKFivE", "f(int (*)() const)"},
	/* What demangle.c does not read: templates, packs, member pointers. */
	{"_Z3fooIiEvT_", NULL},
	{"_Z1fDp1S", NULL},
	{"_Z1fM1Si", NULL},
	{"main", NULL},
	{"", NULL},
};

static void test_table(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = spgo_demangle(cases[i].mangled);
		if (cases[i].want)
			CHECK_STREQ(got, cases[i].want);
		else if (got) {
			fprintf(stderr, "%s: demangled as \"%s\", want it as stored\n", cases[i].mangled, got);
			CHECK(got == NULL);
		}
		free(got);
	}
}

/* Random names over the letters of the grammar: every call returns, and a
 * result is a string. */
static void test_random(void)
{
	static const char abc[] = "NKPRAFESLCDvicjz1234_0.StVrOYT";
	char buf[40];
	unsigned long x = 12345;
	for (int k = 0; k < 200000; k++) {
		buf[0] = '_', buf[1] = 'Z';
		int n = 2 + (int)(x % 30);
		for (int j = 2; j < n; j++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			buf[j] = abc[(x >> 33) % (sizeof abc - 1)];
		}
		buf[n] = 0;
		char *got = spgo_demangle(buf);
		if (got)
			CHECK(strlen(got) < 4096);
		free(got);
	}
}

/* A deep nesting (pointer to pointer to ...) and a long list of
 * substitutions stay within the reader's bounds. */
static void test_limits(void)
{
	char deep[4096] = "_Z1f";
	for (int i = 0; i < 3000; i++)
		strcat(deep, "P");
	strcat(deep, "i");
	char *got = spgo_demangle(deep);
	CHECK(got == NULL);
	free(got);
	char many[8192] = "_Z1f1S";
	for (int i = 0; i < 1000; i++)
		strcat(many, "PS_");
	got = spgo_demangle(many);
	free(got); /* either way, no crash */
}

int main(void)
{
	RUN(test_table);
	RUN(test_random);
	RUN(test_limits);
	DONE();
}
