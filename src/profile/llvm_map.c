/*
 * The order in which LLVM 19 walks a SampleProfileMap, for the one section
 * of an extbinary profile written in that order: the function metadata
 * (SampleProfileWriterExtBinaryBase::writeFuncMetadata iterates the map).
 *
 * A SampleProfileMap is a std::unordered_map keyed by a 64-bit hash of the
 * context (std::hash of an integer: the value itself), and llvm-profgen is
 * built against libstdc++, whose hashtable keeps all nodes on one singly
 * linked list:
 *  - a key goes at the front of its bucket's run when the bucket has
 *    nodes, else at the front of the whole list (and the bucket of the old
 *    first node then starts after it);
 *  - the bucket count grows before an insertion would put more nodes than
 *    buckets: 1, then 13, then the next bucket count of libstdc++'s prime
 *    rehash policy for twice the count (grow_seq, measured from
 *    libstdc++'s _M_next_bkt); a rehash walks the old list and puts each
 *    node at the front of the new list when its bucket is empty, else at
 *    the front of its bucket's run;
 *  - an erase unlinks the node and keeps every other node where it is.
 * tests/unit/test_llvm_map.c checks all of it against libstdc++'s own
 * std::unordered_map.
 * Keys of contexts are LLVM's hash_combine_range over the frames' hash
 * codes (llvm/ADT/Hashing.h of LLVM 19: CityHash-like, seed
 * 0xff51afd7ed558ccd).
 */
#include "profile/profile_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- LLVM 19's hash_combine_range over 64-bit values --------------------- */

static const uint64_t K0 = 0xc3a5c85c97cb3127ULL, K1 = 0xb492b66fbe98f273ULL,
		      K2 = 0x9ae16a3b2f90404fULL, K3 = 0xc949d7c7509e6557ULL;
static const uint64_t SEED = 0xff51afd7ed558ccdULL;

static uint64_t rotr(uint64_t v, unsigned s)
{
	return s ? (v >> s) | (v << (64 - s)) : v;
}

static uint64_t shmix(uint64_t v)
{
	return v ^ (v >> 47);
}

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t ld32(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t mix16(uint64_t lo, uint64_t hi)
{
	const uint64_t m = 0x9ddfea08eb382d69ULL;
	uint64_t a = (lo ^ hi) * m;
	a ^= a >> 47;
	uint64_t b = (hi ^ a) * m;
	b ^= b >> 47;
	return b * m;
}

/* A buffer of len bytes, len a multiple of 8 in [8, 64]. */
static uint64_t hash_short(const unsigned char *s, size_t len)
{
	uint64_t L = len;
	if (len == 8)
		return mix16(L + (ld32(s) << 3), SEED ^ ld32(s + len - 4));
	if (len <= 16) {
		uint64_t a = ld64(s), b = ld64(s + len - 8);
		return mix16(SEED ^ a, rotr(b + L, (unsigned)len)) ^ b;
	}
	if (len <= 32) {
		uint64_t a = ld64(s) * K1, b = ld64(s + 8), c = ld64(s + len - 8) * K2,
			 d = ld64(s + len - 16) * K0;
		return mix16(rotr(a - b, 43) + rotr(c ^ SEED, 30) + d, a + rotr(b ^ K3, 20) - c + L + SEED);
	}
	uint64_t z = ld64(s + 24), a = ld64(s) + (L + ld64(s + len - 16)) * K0;
	uint64_t b = rotr(a + z, 52), c = rotr(a, 37);
	a += ld64(s + 8);
	c += rotr(a, 7);
	a += ld64(s + 16);
	uint64_t vf = a + z, vs = b + rotr(a, 31) + c;
	a = ld64(s + 16) + ld64(s + len - 32);
	z = ld64(s + len - 8);
	b = rotr(a + z, 52);
	c = rotr(a, 37);
	a += ld64(s + len - 24);
	c += rotr(a, 7);
	a += ld64(s + len - 16);
	uint64_t wf = a + z, ws = b + rotr(a, 31) + c;
	uint64_t r = shmix((vf + ws) * K2 + (wf + vs) * K0);
	return shmix((SEED ^ (r * K0)) + vs) * K2;
}

struct hstate {
	uint64_t h[7];
};

static void mix32(const unsigned char *s, uint64_t *a, uint64_t *b)
{
	*a += ld64(s);
	uint64_t c = ld64(s + 24);
	*b = rotr(*b + *a + c, 21);
	uint64_t d = *a;
	*a += ld64(s + 8) + ld64(s + 16);
	*b += rotr(*a, 44) + d;
	*a += c;
}

static void hmix(struct hstate *st, const unsigned char *s)
{
	uint64_t *h = st->h;
	h[0] = rotr(h[0] + h[1] + h[3] + ld64(s + 8), 37) * K1;
	h[1] = rotr(h[1] + h[4] + ld64(s + 48), 42) * K1;
	h[0] ^= h[6];
	h[1] += h[3] + ld64(s + 40);
	h[2] = rotr(h[2] + h[5], 33) * K1;
	h[3] = h[4] * K1;
	h[4] = h[0] + h[5];
	mix32(s, &h[3], &h[4]);
	h[5] = h[2] + h[6];
	h[6] = h[1] + ld64(s + 16);
	mix32(s + 32, &h[5], &h[6]);
	uint64_t t = h[2];
	h[2] = h[0];
	h[0] = t;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t spgo_llvm_hash_u64s(const uint64_t *v, size_t n)
{
	unsigned char buf[64];
	size_t i = 0, k = 0;
	for (; i < n && k < 8; i++, k++)
		put64(buf + 8 * k, v[i]);
	if (i == n)
		return n ? hash_short(buf, 8 * k) : K2 ^ SEED;
	struct hstate st = {{0, SEED, mix16(SEED, K1), rotr(SEED ^ K1, 49), SEED * K1, shmix(SEED), 0}};
	st.h[6] = mix16(st.h[4], st.h[5]);
	hmix(&st, buf);
	uint64_t length = 64;
	while (i < n) {
		/* refill from the front without clearing; a partial fill is
		 * rotated to the end, as the last 64 bytes of a byte stream */
		for (k = 0; i < n && k < 8; i++, k++)
			put64(buf + 8 * k, v[i]);
		if (k < 8) {
			unsigned char t[64];
			memcpy(t, buf + 8 * k, 64 - 8 * k);
			memcpy(t + 64 - 8 * k, buf, 8 * k);
			memcpy(buf, t, 64);
		}
		hmix(&st, buf);
		length += 8 * k;
	}
	uint64_t *h = st.h;
	return mix16(mix16(h[3], h[5]) + shmix(h[1]) * K1 + h[2],
		     mix16(h[4], h[6]) + shmix(length) * K1 + h[0]);
}

/* ---- libstdc++'s unordered_map, its order only ---------------------------- */

/* Bucket counts one after the other as single insertions grow a map
 * (libstdc++'s _Prime_rehash_policy: _M_next_bkt(2 * count)). */
static const uint64_t grow_seq[] = {13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753,
				    42043, 85229, 172933, 351061, 712697, 1447153, 2938679,
				    5967347, 12117689, 24607243, 49969847, 101473717, 206062531,
				    418451333, 849749479, 1725587117, 3504151727ULL};

#define NIL UINT32_MAX

void spgo_map_init(struct spgo_map *m)
{
	memset(m, 0, sizeof *m);
	struct spgo_map_node head = {0, NIL, NIL}; /* node 0: the list head */
	VEC_PUSH(&m->nodes, head);
}

void spgo_map_free(struct spgo_map *m)
{
	VEC_FREE(&m->nodes);
	free(m->bkt);
	memset(m, 0, sizeof *m);
}

static size_t bucket(const struct spgo_map *m, uint32_t node)
{
	return (size_t)(m->nodes.v[node].key % m->nbkt);
}

/* The node before key's node, or NIL. */
static uint32_t find_prev(const struct spgo_map *m, uint64_t key)
{
	if (!m->nbkt)
		return NIL;
	size_t b = (size_t)(key % m->nbkt);
	uint32_t prev = m->bkt[b];
	if (prev == NIL)
		return NIL;
	for (uint32_t p = m->nodes.v[prev].next;;) {
		if (m->nodes.v[p].key == key)
			return prev;
		uint32_t q = m->nodes.v[p].next;
		if (q == NIL || bucket(m, q) != b)
			return NIL;
		prev = p;
		p = q;
	}
}

static void rehash(struct spgo_map *m, size_t nb)
{
	uint32_t *nbk = xmalloc(nb * sizeof *nbk);
	for (size_t i = 0; i < nb; i++)
		nbk[i] = NIL;
	struct spgo_map_node *v = m->nodes.v;
	uint32_t p = v[0].next;
	v[0].next = NIL;
	size_t first_b = 0;
	while (p != NIL) {
		uint32_t nx = v[p].next;
		size_t b = (size_t)(v[p].key % nb);
		if (nbk[b] == NIL) {
			v[p].next = v[0].next;
			v[0].next = p;
			nbk[b] = 0;
			if (v[p].next != NIL)
				nbk[first_b] = p;
			first_b = b;
		} else {
			v[p].next = v[nbk[b]].next;
			v[nbk[b]].next = p;
		}
		p = nx;
	}
	free(m->bkt);
	m->bkt = nbk;
	m->nbkt = nb;
}

int spgo_map_insert(struct spgo_map *m, uint64_t key, uint32_t tag)
{
	if (find_prev(m, key) != NIL)
		return 0;
	if (m->count + 1 > m->nbkt) { /* (a fresh map has 1 bucket and grows to 13) */
		size_t k = 0;
		while (k < sizeof grow_seq / sizeof *grow_seq && grow_seq[k] <= m->nbkt)
			k++;
		if (k == sizeof grow_seq / sizeof *grow_seq)
			return -1;
		rehash(m, (size_t)grow_seq[k]);
	}
	struct spgo_map_node nd = {key, NIL, tag};
	VEC_PUSH(&m->nodes, nd);
	uint32_t p = (uint32_t)(m->nodes.n - 1);
	struct spgo_map_node *v = m->nodes.v;
	size_t b = (size_t)(key % m->nbkt);
	if (m->bkt[b] != NIL) {
		v[p].next = v[m->bkt[b]].next;
		v[m->bkt[b]].next = p;
	} else {
		v[p].next = v[0].next;
		v[0].next = p;
		if (v[p].next != NIL)
			m->bkt[bucket(m, v[p].next)] = p;
		m->bkt[b] = 0;
	}
	m->count++;
	return 1;
}

int spgo_map_has(const struct spgo_map *m, uint64_t key)
{
	return find_prev(m, key) != NIL;
}

void spgo_map_erase(struct spgo_map *m, uint64_t key)
{
	uint32_t prev = find_prev(m, key);
	if (prev == NIL)
		return;
	struct spgo_map_node *v = m->nodes.v;
	uint32_t p = v[prev].next, nx = v[p].next;
	size_t b = (size_t)(key % m->nbkt);
	if (prev == m->bkt[b]) {
		size_t nb = nx != NIL ? bucket(m, nx) : 0;
		if (nx == NIL || nb != b) {
			if (nx != NIL)
				m->bkt[nb] = m->bkt[b];
			m->bkt[b] = NIL;
		}
	} else if (nx != NIL) {
		size_t nb = bucket(m, nx);
		if (nb != b)
			m->bkt[nb] = prev;
	}
	v[prev].next = nx;
	m->count--;
}

void spgo_map_restore(struct spgo_map *m, const uint64_t *keys, size_t n, size_t nbkt)
{
	free(m->bkt);
	m->bkt = xmalloc((nbkt ? nbkt : 1) * sizeof *m->bkt);
	for (size_t i = 0; i < nbkt; i++)
		m->bkt[i] = NIL;
	m->nbkt = nbkt;
	uint32_t prev = 0;
	for (size_t i = 0; i < n && nbkt; i++) {
		struct spgo_map_node nd = {keys[i], NIL, NIL};
		VEC_PUSH(&m->nodes, nd);
		uint32_t p = (uint32_t)(m->nodes.n - 1);
		m->nodes.v[prev].next = p;
		size_t b = (size_t)(keys[i] % nbkt);
		if (m->bkt[b] == NIL) /* (a bucket's nodes are consecutive) */
			m->bkt[b] = prev;
		prev = p;
		m->count++;
	}
}

uint32_t spgo_map_first(const struct spgo_map *m)
{
	return m->nodes.v[0].next;
}

uint32_t spgo_map_next(const struct spgo_map *m, uint32_t node)
{
	return m->nodes.v[node].next;
}
