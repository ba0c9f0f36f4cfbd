// A small C++ program for gen_cs_cxx.sh: templates instantiated for a few
// types, constructors and operators inlined into their callers, a class
// hierarchy with virtual calls, std::map and std::string: some dozens of
// functions, many of them profiled in several contexts.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

template <typename T> struct Box {
	T v;
	explicit Box(T x) : v(x) {}
	Box operator+(const Box &o) const { return Box(v + o.v); }
	bool operator<(const Box &o) const { return v < o.v; }
};

template <typename T> __attribute__((noinline)) T fold(const std::vector<Box<T>> &xs)
{
	Box<T> acc(T(0));
	for (const auto &x : xs)
		acc = acc + x;
	return acc.v;
}

template <typename T> __attribute__((noinline)) void bubble(std::vector<Box<T>> &xs)
{
	for (size_t i = 0; i < xs.size(); i++)
		for (size_t j = 1; j < xs.size() - i; j++)
			if (xs[j] < xs[j - 1])
				std::swap(xs[j], xs[j - 1]);
}

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};
struct Sq : Shape {
	double s;
	explicit Sq(double x) : s(x) {}
	double area() const override { return s * s; }
};
struct Tri : Shape {
	double b, h;
	Tri(double x, double y) : b(x), h(y) {}
	double area() const override { return b * h / 2; }
};

__attribute__((noinline)) double areas(const std::vector<Shape *> &v)
{
	double a = 0;
	for (const Shape *s : v)
		a += s->area();
	return a;
}

__attribute__((noinline)) unsigned words(std::map<std::string, unsigned> &m, unsigned seed)
{
	static const char *const w[] = {"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"};
	for (int i = 0; i < 50; i++) {
		seed = seed * 1103515245u + 12345u;
		m[std::string(w[(seed >> 16) % 7]) + std::to_string((seed >> 8) % 5)]++;
	}
	return (unsigned)m.size();
}

template <typename T> __attribute__((noinline)) T work(int n, unsigned seed)
{
	std::vector<Box<T>> xs;
	for (int i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		xs.emplace_back(T(seed % 1000));
	}
	bubble(xs);
	return fold(xs);
}

} // namespace

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	double sum = 0;
	std::map<std::string, unsigned> m;
	std::vector<Shape *> shapes;
	for (int i = 0; i < 40; i++)
		shapes.push_back(i % 3 ? static_cast<Shape *>(new Sq(i)) : new Tri(i, i + 1));
	for (int r = 0; r < rounds; r++) {
		sum += work<int>(40 + r % 7, (unsigned)r);
		sum += work<double>(30 + r % 5, (unsigned)r * 7);
		sum += work<long>(20 + r % 3, (unsigned)r * 13);
		sum += areas(shapes);
		sum += words(m, (unsigned)r);
	}
	for (Shape *s : shapes)
		delete s;
	printf("%.1f %zu\n", sum, m.size());
	return 0;
}
