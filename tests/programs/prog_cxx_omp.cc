// C++ as HPC proxy applications write it (issue 41 item 5): an OpenMP loop in a static
// member-less function whose locals live in GCC's outlined function
// (_ZL12ComputeForceR4MeshPdd._omp_fn.0), arrays from a small template wrapper, a class
// keeping its fields in std::vector members. The report must name them as written:
// ComputeForce::fx, never a mangled name or a clone suffix. Prints a checksum.
#include <memphis.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T> T *Allocate(size_t n)
{
	return static_cast<T *>(malloc(n * sizeof(T)));
}

struct Mesh {
	std::vector<double> m_x, m_y, m_z;
	explicit Mesh(size_t n)
	{
		m_x.resize(n);
		m_y.resize(n);
		m_z.resize(n);
	}
};

static void ComputeForce(Mesh &m, double *f, double dt)
{
	size_t n = m.m_x.size();
#pragma omp parallel for
	for (size_t i = 1; i < n - 1; i++) {
		volatile double fx[64]; // on the outlined function's stack: sampled there
		for (int k = 0; k < 64; k++)
			fx[k] = m.m_x[i + (k & 1)] * dt + m.m_y[i] - m.m_z[i - 1];
		f[i] = fx[0] + fx[1] + fx[62] + fx[63];
	}
}

int main()
{
	size_t n = 1 << 20;
	Mesh m(n);
	double *grad = Allocate<double>(n);
	double *force = Allocate<double>(n);

	for (size_t i = 0; i < n; i++) {
		grad[i] = force[i] = 0;
		m.m_x[i] = (double)i;
		m.m_y[i] = 1;
		m.m_z[i] = 2;
	}
	memphis_mark_named("force");
	for (int it = 0; it < 20; it++) {
		ComputeForce(m, force, 0.1);
		for (size_t i = 0; i < n; i++)
			grad[i] += force[i];
	}
	memphis_print();
	printf("%.0f\n", grad[n / 2]);
	free(grad);
	free(force);
	return 0;
}
