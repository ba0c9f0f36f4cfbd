/* A module-like object for the --kernel tests. */
static __attribute__((noinline)) int m_step(int *t, int i)
{
	return t[i & 63] & 1 ? t[i & 63] >> 1 : t[i & 63] * 3 + 1;
}

void m_work(int *t, int n)
{
	for (int i = 0; i < n; i++)
		t[i & 63] = m_step(t, i);
}
