// C++ as HPC proxy applications write it (issue 41 item 5): an OpenMP loop in a static
// member-less function whose locals live in GCC's outlined function
// (_ZL12ComputeForceR4MeshPdd._omp_fn.0), arrays from a small template wrapper called from
// five places, a class keeping its fields in six std::vector members resized in its
// constructor, a std::unique_ptr<double[]> member and a new[] member. The report must name
// them as written: ComputeForce::fx, main::grad (... via Allocate<double> ...), Mesh::m_x
// (malloc at LINE of m_x.resize), Mesh::m_p, Mesh::m_q; never a mangled name or a clone
// suffix. Prints a checksum.
#include <memphis.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

template <typename T> T *Allocate(size_t n)
{
	return static_cast<T *>(malloc(n * sizeof(T)));
}

struct Mesh {
	std::vector<double> m_x, m_y, m_z, m_vx, m_vy, m_vz;
	std::unique_ptr<double[]> m_p;
	double *m_q;
	explicit Mesh(size_t n)
	{
		m_x.resize(n);
		m_y.resize(n);
		m_z.resize(n);
		m_vx.resize(n);
		m_vy.resize(n);
		m_vz.resize(n);
		m_p.reset(new double[n]);
		m_q = new double[n];
	}
	~Mesh() { delete[] m_q; }
};

static volatile double sink;

static void ComputeForce(Mesh &m, double *f, double dt)
{
	size_t n = m.m_x.size();
#pragma omp parallel for
	for (size_t i = 1; i < n - 1; i++) {
		volatile double fx[64]; // on the outlined function's stack: sampled there
		for (int k = 0; k < 64; k++)
			fx[k] = m.m_x[i + (k & 1)] * dt + m.m_y[i] - m.m_z[i - 1];
		f[i] = fx[0] + fx[1] + fx[62] + fx[63] + m.m_vx[i] * m.m_vy[i] - m.m_vz[i] +
		       m.m_p[i] * m.m_q[i];
	}
	// then each member summed by a loop of its own: its samples follow the loop's time.
	// In the loop above the CPU's waits decide which load takes them: on an AMD Zen
	// m_y had 1 to 4 of some 1,500.
	const double *member[] = { m.m_x.data(),  m.m_y.data(),  m.m_z.data(), m.m_vx.data(),
				   m.m_vy.data(), m.m_vz.data(), m.m_p.get(),  m.m_q };
	for (const double *a : member) {
		double s = 0;
#pragma omp parallel for reduction(+ : s)
		for (size_t i = 0; i < n; i++)
			s += a[i];
		sink += s;
	}
}

int main()
{
	size_t n = 1 << 19;
	Mesh m(n);
	double *grad = Allocate<double>(n);
	double *force = Allocate<double>(n);
	double *mass = Allocate<double>(n);
	double *work = Allocate<double>(n);
	double *accel = Allocate<double>(n);

	for (size_t i = 0; i < n; i++) {
		grad[i] = force[i] = work[i] = accel[i] = 0;
		mass[i] = 1;
		m.m_x[i] = (double)i;
		m.m_y[i] = 1;
		m.m_z[i] = 2;
		m.m_vx[i] = m.m_vy[i] = m.m_vz[i] = 0.5;
		m.m_p[i] = m.m_q[i] = 0.25;
	}
	memphis_mark_named("force");
	for (int it = 0; it < 20; it++) {
		ComputeForce(m, force, 0.1);
		// each array read (a store alone takes few of the timer's samples on some CPUs,
		// AMD Zen's), no divide (its wait would take most of them), and four passes: each
		// array then has some 40 samples at 200 us
		for (int pass = 0; pass < 4; pass++) {
			for (size_t i = 0; i < n; i++) {
				accel[i] = 0.5 * accel[i] + force[i] * mass[i];
				work[i] += accel[i] * 0.1;
				grad[i] += work[i];
			}
		}
	}
	memphis_print();
	printf("%.0f\n", grad[n / 2]);
	free(grad);
	free(force);
	free(mass);
	free(work);
	free(accel);
	return 0;
}
