// tests/programs/prog_members_cxx.cc - a C++ class for `memphis-report --by member` (issue 43;
// tests/report/t_members.sh): a namespace's static array of class Cell and the same through
// new[] into a typed global pointer, first touched by the master outside the profiled
// region; thread 0 reads rho of every cell, thread 1 flux. Prints a checksum.
#include <memphis.h>

#include <cstdio>
#include <cstdlib>

#include <omp.h>

namespace mesh {
class Cell {
public:
	double rho, flux, energy, pad;
	double density() const { return rho; }
};
static Cell cells[1 << 16];
} // namespace mesh

mesh::Cell *heap_cells;

static double sweep(const mesh::Cell *c, int t)
{
	double s = 0;

	if (t == 0) /* a loop each: a select in one may load both members */
		for (long i = 0; i < (1 << 16); i++)
			s += c[i].density();
	else
		for (long i = 0; i < (1 << 16); i++)
			s += c[i].flux;
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	double sum = 0;

	heap_cells = new mesh::Cell[1 << 16];
	for (long i = 0; i < (1 << 16); i++)
		mesh::cells[i] = heap_cells[i] = mesh::Cell{ 1, 2, 3, 4 };
	memphis_mark_named("work");
#pragma omp parallel reduction(+ : sum)
	{
		int t = omp_get_thread_num();

		for (int r = 0; r < rounds && t < 2; r++)
			sum += sweep(mesh::cells, t) + sweep(heap_cells, t);
	}
	memphis_print();
	std::printf("prog_members_cxx: sum %.6e\n", sum);
	delete[] heap_cells;
	return 0;
}
