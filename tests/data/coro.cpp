// A C++20 coroutine: clang splits counter() into counter (the ramp),
// counter.resume and counter.destroy, all named _Z7counteri in DWARF
// (tests/integration/inputs_outlined.sh).
#include <coroutine>
#include <cstdio>
#include <cstdlib>
struct gen {
  struct promise_type {
    int value;
    gen get_return_object() { return gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
    std::suspend_always initial_suspend() { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(int v) { value = v; return {}; }
    void return_void() {}
    void unhandled_exception() { std::abort(); }
  };
  std::coroutine_handle<promise_type> h;
};
__attribute__((noinline)) gen counter(int n) {
  for (int i = 0; i < n; i++) {
    int x = i * 7 % 13;
    co_yield x;
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  long s = 0;
  gen g = counter(n);
  while (!g.h.done()) { g.h.resume(); s += g.h.promise().value; }
  g.h.destroy();
  printf("%ld\n", s);
}
