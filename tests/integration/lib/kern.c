/* A kernel-like image for gen_kernel.sh: linked at the kernel's address (kern.lds). */
extern void (*mod_hook)(int *, int);
int table[64];
void (*mod_hook)(int *, int);

__attribute__((noinline)) int k_hash(int x)
{
	int h = 0;
	for (int i = 0; i < 8; i++) {
		if ((x >> i) & 1)
			h = h * 31 + i;
		else
			h ^= i << 3;
	}
	return h;
}

__attribute__((noinline)) void k_fill(int n)
{
	for (int i = 0; i < n; i++)
		table[i & 63] += k_hash(i);
}

__attribute__((noinline)) int k_sched(int prio)
{
	int best = 0;
	for (int i = 0; i < 64; i++)
		if (table[i] > best && (table[i] & prio))
			best = table[i];
	return best;
}

__attribute__((noinline)) long k_syscall(long nr, long arg)
{
	if (nr == 0)
		k_fill((int)arg);
	else if (nr == 1)
		return k_sched((int)arg);
	else
		mod_hook(table, (int)arg);
	return 0;
}
