/* tests/programs/collide_b.c - the second file of prog_collide.c: its own static work. */
#include "collide.h"

static double work[COLLIDE_N];

double *collide_b_work(void)
{
	return work;
}
