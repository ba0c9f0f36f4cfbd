// Two cases where llvm-profgen's probe-based CS profile depends on more
// than the samples (tests/integration/gen_cs_probe_merged.sh):
//  - step: both arms end in bump, inlined through viaA and viaB; the
//    code generator merges the identical tails, and bump's probe, its
//    location merged, loses its inline chain: a top-level record of bump
//    (which has no body of its own) amid step's code;
//  - work: hot only where run inlines it (run itself is cold, so its
//    context merges into run's base profile), cold where seldom inlines it
//    (merged into a new base profile of work, with no attributes).
#include <cstdio>
#include <cstdlib>

static long acc;
inline void bump(long v) { acc += v * 3 + 1; }
inline void viaA(long v) { bump(v); }
inline void viaB(long v) { bump(v); }
__attribute__((noinline)) long a(long x) { return x * 7 % 13; }
__attribute__((noinline)) long b(long x) { return x * 5 % 11; }
__attribute__((noinline)) void step(long k) {
  if (k & 1) { long t = a(k); viaA(t); }
  else { long t = b(k); viaB(t); }
}

inline long work(const long *v, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] & 1 ? v[i] * 3 : v[i] >> 1;
  return s;
}
__attribute__((noinline)) long run(const long *v, int n) { return work(v, n); }
__attribute__((noinline)) long seldom(const long *v) { return work(v, 8); }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  static long v[4096];
  for (int i = 0; i < 4096; i++) v[i] = i * 2654435761L % 1000;
  for (long k = 0; k < n; k++) {
    step(k);
    if (k % 64 == 0) acc += run(v, 4096);
    if (k % 128 == 0) acc += seldom(v + k % 4000);
  }
  printf("%ld\n", acc);
  return 0;
}
