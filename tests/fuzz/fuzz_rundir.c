/* libFuzzer entry for the run-directory reader (post/run/rundir.c), the reader of bytes that
 * come from outside: the input is split into meta.mph and cpu000.mph of a fresh run
 * directory ($TMPDIR/memphis-fuzz-PID; first two bytes: where to split), which is opened
 * and every sample streamed, with the STACKS entries of samples and first touches looked up.
 * Built by `make fuzz` (clang -fsanitize=fuzzer,address,undefined), run by t_fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/rundir.h"

static char dir[4096];

/* The fuzzer exits through exit(): leave no directory behind. */
static void cleanup(void)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/meta.mph", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cpu000.mph", dir);
	unlink(path);
	rmdir(dir);
}

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_run *run = NULL;
	struct mr_sample_iter *it;
	const struct memphis_rec_sample *s;
	const uint8_t *b;
	char err[512];
	size_t split, n;
	uint64_t sum = 0;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/memphis-fuzz-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
		mkdir(dir, 0700);
		atexit(cleanup);
	}
	if (size < 2)
		return 0;
	split = ((size_t)data[0] << 8 | data[1]) % (size - 1);
	put("meta.mph", data + 2, split);
	put("cpu000.mph", data + 2 + split, size - 2 - split);
	if (mr_run_open(dir, &run, err, sizeof(err)) == 0) {
		if (mr_samples_begin(run, &it) == 0) {
			while ((n = mr_samples_next(it, &s)) > 0)
				for (size_t i = 0; i < n; i++) {
					const struct memphis_rec_stack *e = mr_samples_stack(it, &s[i], &b);
					sum += s[i].addr ^ s[i].ip;
					if (e && e->stack_len)
						sum += b[0] + b[e->stack_len - 1];
				}
			mr_samples_end(it);
		}
		for (size_t i = 0; i < run->ntouches; i++) {
			const struct memphis_rec_stack *e = mr_run_touch_stack(run, &run->touches[i], &b);
			if (e && e->stack_len)
				sum += b[0] + b[e->stack_len - 1];
		}
		mr_run_close(run);
	}
	return (int)(sum & 0);
}
