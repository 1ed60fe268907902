/* A small shared library for tests/programs/prog_dlopen.c: one global array that only code of this
 * library reads, so its samples must be named by the library's debug information. */
#define DL_TABLE_N ((4u << 20) / sizeof(double))

double dl_table[DL_TABLE_N];

/* Fill the table (first touch) and return nothing. */
void dl_fill(void)
{
	for (unsigned long i = 0; i < DL_TABLE_N; i++)
		dl_table[i] = (double)(i % 13);
}

/* Read the table reps times in a strided order; returns the sum. */
double dl_sum(int reps)
{
	double s = 0;

	for (int r = 0; r < reps; r++)
		for (unsigned long i = 0; i < DL_TABLE_N; i++)
			s += dl_table[(i * 4099) % DL_TABLE_N];
	return s;
}
