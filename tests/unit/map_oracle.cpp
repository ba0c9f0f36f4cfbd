// map_oracle: the real std::unordered_map<uint64_t, V> of libstdc++, the map
// that llvm-profgen-19's SampleProfileMap is (keys: context hashes, hashed by
// std::hash<uint64_t>, the identity), driven by a script on standard input
// for tests/unit/test_llvm_map.c, which runs the same script on
// src/profile/llvm_map.c and compares.  One operation a line:
//   i KEY   insert (try_emplace, as SampleProfileMap::create does)
//   e KEY   erase by key
//   p       print "BUCKETS: KEY KEY ..." in iteration order
#include <cstdint>
#include <cstdio>
#include <unordered_map>

int main()
{
	std::unordered_map<uint64_t, unsigned> m;
	char op;
	unsigned long long key;
	while (std::scanf(" %c", &op) == 1) {
		if (op == 'p') {
			std::printf("%zu:", m.bucket_count());
			for (const auto &e : m)
				std::printf(" %llu", (unsigned long long)e.first);
			std::printf("\n");
			continue;
		}
		if ((op != 'i' && op != 'e') || std::scanf("%llu", &key) != 1) {
			std::fprintf(stderr, "map_oracle: bad script at '%c'\n", op);
			return 2;
		}
		if (op == 'i')
			m.try_emplace(key, 0u);
		else
			m.erase(key);
	}
	return std::fflush(stdout) == 0 ? 0 : 1;
}
