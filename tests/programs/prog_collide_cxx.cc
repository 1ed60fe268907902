// tests/programs/prog_collide_cxx.cc - C++ variables that share a name (issue 38): static members
// S::arr and T::arr, namespace variables ns1::v and ns2::v, a template's static member
// H<1>::data and H<2>::data, all of one size. Region "collide" reads them at random, k
// times for every read of the k-th (S::arr 1, T::arr 2, ns1::v 3, ns2::v 4, H<1>::data 5,
// H<2>::data 6), in one dependent chain (as prog_ratio.c beside it). The report must name
// each with its scope (tests/report/t_compare_collide.sh).
//   prog_collide_cxx [SECONDS]   (default 1)
#include <memphis.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

enum : std::uint32_t { N = 1u << 20, M = 1u << 20 };

struct S {
	static double arr[N];
};
struct T {
	static double arr[N];
};
double S::arr[N];
double T::arr[N];

namespace ns1 {
double v[N];
}
namespace ns2 {
double v[N];
}

template <int K> struct H {
	static double data[N];
};
template <int K> double H<K>::data[N];
template struct H<1>;
template struct H<2>;

static std::uint64_t now_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (std::uint64_t)ts.tv_sec * 1000000000u + (std::uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
	double *const order[21] = { S::arr,	 T::arr,      T::arr,	   ns1::v,	ns1::v,
				    ns1::v,	 ns2::v,      ns2::v,	   ns2::v,	ns2::v,
				    H<1>::data, H<1>::data, H<1>::data, H<1>::data, H<1>::data,
				    H<2>::data, H<2>::data, H<2>::data, H<2>::data, H<2>::data,
				    H<2>::data };
	std::uint32_t *idx = static_cast<std::uint32_t *>(std::malloc(M * sizeof(*idx)));
	std::uint64_t x = 88172645463325252ull, t0, span = (std::uint64_t)(seconds * 1e9);
	double s = 0;

	if (!idx)
		return 1;
	for (double *p : order)
		for (std::uint32_t i = 0; i < N; i++)
			p[i] = -0.0;
	for (std::uint32_t i = 0; i < M; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		idx[i] = (std::uint32_t)(x % N);
	}
	t0 = now_ns();
	memphis_mark_named("collide");
	do {
		for (std::uint32_t i = 0; i + 21 <= M; i += 21)
			for (int k = 0; k < 21; k++)
				s += order[k][idx[i + k] + (std::uint32_t)s];
	} while (now_ns() - t0 < span);
	memphis_print();
	std::printf("sum %.0f\n", s);
	std::free(idx);
	return 0;
}
