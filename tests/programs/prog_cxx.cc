// tests/programs/prog_cxx.cc - C++ heap objects made by new, new[] and std::vector in named
// functions, read with a stride (each access a memory sample) inside region "chase".
// The report must name each by the program's function and line, not by operator new.
#include <memphis.h>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

enum { N = 1 << 19 };
struct block { long next[N]; };

// a random cycle through n slots, so that reads cannot be predicted or vectorized
static void cycle(long *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i] = i;
	for (long i = n - 1; i > 0; i--) {
		long j = std::rand() % i, t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

__attribute__((noinline)) static long *array_by_new(void)
{
	long *p = new long[N]; // line of the new[] site
	cycle(p, N);
	return p;
}

__attribute__((noinline)) static block *object_by_new(void)
{
	block *b = new block; // line of the new site
	cycle(b->next, N);
	return b;
}

__attribute__((noinline)) static std::vector<long> *vector_of_longs(void)
{
	std::vector<long> *v = new std::vector<long>(N); // line of the vector site
	cycle(v->data(), N);
	return v;
}

static long chase(const long *p, long steps)
{
	long sum = 0;
	for (long s = 0; s < steps; s++)
		sum += p[(s * 4099) & (N - 1)];
	return sum;
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? std::atol(argv[1]) : 40000000;
	long *a = array_by_new();
	block *b = object_by_new();
	std::vector<long> *v = vector_of_longs();
	long s = 0;

	memphis_mark_named("chase");
	s += chase(a, steps);
	s += chase(b->next, steps);
	s += chase(v->data(), steps);
	memphis_print();
	std::printf("%ld\n", s);
	delete[] a;
	delete b;
	delete v;
	return 0;
}
