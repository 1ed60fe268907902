/* tests/golden/bigtls.c - a program with more static TLS (a 20 MiB __thread array, like
 * golden.c's t_tls) than the default 8 MiB stack limit, run by tests/report/t_golden.sh under
 * `ulimit -s 8192`. Without memphis it needs no thread. glibc raises the default thread
 * stack size to just above the static TLS it carves out of every thread stack, so a
 * thread created with default attributes gets only a few KiB of stack of its own; the
 * library's own threads must still not crash the program. Prints "bigtls ok" at the end. */
#include <memphis.h>
#include <stdio.h>

#define N (5u << 19)

__thread double t_big[N];

int main(void)
{
	double s = 0;

	for (unsigned i = 0; i < N; i++)
		t_big[i] = 1;
	memphis_mark_named("bigtls");
	for (int r = 0; r < 10; r++)
		for (unsigned i = 0; i < N; i += 8)
			s += t_big[i];
	memphis_print();
	printf("bigtls %s\n", s == 10.0 * N / 8 ? "ok" : "wrong sum");
	return 0;
}
