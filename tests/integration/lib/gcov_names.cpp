// tests/integration/gen_gcov_cxx_names.sh: the names gcc 12 looks up in a
// gcov profile of a C++ program built by g++-12.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
struct Acc {  // a constructor and a destructor, out of line and inlined
  long v, w;
  explicit Acc(long k);
  ~Acc();
  long get() const { return v + w; }
};
Acc::Acc(long k) : v(k), w(0) {
  for (long i = 0; i < (k & 7); i++) w += (v ^ i) * 3;
}
Acc::~Acc() { if (w == 42) std::puts("w"); }
namespace {  // internal linkage: no DW_AT_linkage_name from g++
struct A {
  long s = 0;
  __attribute__((noinline)) long step(long x) {
    for (int i = 0; i < 8; i++) s += (x * 2654435761u + i) % 97 > 50 ? i : -i;
    return s;
  }
};
struct B {
  long s = 1;
  __attribute__((noinline)) long step(long x) {
    if (x % 3 == 0) s ^= x; else s += x >> 2;
    return s;
  }
};
}
__attribute__((noinline)) static long gen(long x) { return (x * 7) % 13; }
__attribute__((noinline)) Acc *make(long k) { return new Acc(k); }
struct Big { long a, b, c, d; };
// g++-12 -O2 makes it _ZL3isrRK3Bigl.isra.0 (IPA-SRA) with a .cold part
__attribute__((noinline)) static long isr(const Big &g, long x) {
  long s = g.a * x;
  for (int k = 0; k < 4; k++) {
    if (s == -12345 - k)
      throw std::runtime_error("odd value " + std::to_string(s) + " at " + std::to_string(k));
    s += (x ^ k) & 7;
  }
  return s;
}
int main(int argc, char **argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 200000, t = 0;
  A a;
  B b;
  Big g{3, 4, 5, 6}, h{argc, 1, 2, 3};
  for (long i = 0; i < n; i++) {
    Acc c(i);
    t += c.get() + a.step(i) + b.step(i) + gen(i) + isr(i & 1 ? g : h, i);
    if ((i & 1023) == 0) { Acc *p = make(i); t += p->get(); delete p; }
  }
  std::printf("%ld\n", t);
  return 0;
}
