/* A header with inline helpers: their frames name this file. */
static inline unsigned mix(unsigned h, unsigned v)
{
	h ^= v;
	h *= 0x9e3779b1u;
	return h ^ (h >> 15);
}

static inline int clamp(int x, int lo, int hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}
