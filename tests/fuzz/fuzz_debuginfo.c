/* tests/fuzz/fuzz_debuginfo.c - libFuzzer entry for the ELF and DWARF reader (post/binary/debuginfo.h):
 * the input is the whole object file (the report opens whatever executable and libraries
 * a run names). It is written to a memfd and opened by its /proc/self/fd path with
 * mr_debuginfo_open_dir(path, NULL, ...) (no separate debug files: the DWARF read is the
 * input's own), then every lookup is asked about the variables found and about addresses
 * taken from the input.
 *
 * The report reads DWARF in a forked child (libdwarf itself can crash on corrupted DWARF;
 * a crash there becomes an error message). A fuzzer must see the DWARF walk in its own
 * process, so fork() is replaced below by one that fails: the reader then takes its
 * documented fallback and reads in-process, the same read_dwarf() the child runs. Crashes
 * inside libdwarf itself (not instrumented) therefore show up here too; the report is
 * protected from those by the child. Built by `make fuzz`, run by t_fuzz.sh. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binary/debuginfo.h"

/* Makes mr_debuginfo_open read DWARF in this process (see above). */
pid_t fork(void)
{
	errno = EAGAIN;
	return -1;
}

/* ---- keeping libdwarf's own crashes out of the findings ----
 * libdwarf 20210528 (Debian 12) double-frees in dwarf_load_rnglists and reads wild in
 * loclist parsing on corrupted DWARF: found within seconds, not memphis's bugs, and the
 * reason the report reads DWARF in a child. So each input first runs in a forked child;
 * when ASan reports there with libdwarf (or libelf) as the first frame outside the
 * sanitizer runtime's interceptors, the input is dropped (the report turns such a crash
 * into an error message). Any other crash in the child is repeated here in-process, where
 * libFuzzer records it. A fork costs ~10 ms under ASan, so only inputs that name the
 * DWARF 5 sections where those crashes live (.debug_rnglists, .debug_loclists) go through
 * the child first; t_fuzz.sh seeds with DWARF 4 objects, which have neither. */
void __asan_set_error_report_callback(void (*cb)(const char *));

#define THIRD_PARTY_CRASH 86

static void on_report(const char *report)
{
	/* frames read "    #N 0xADDR in FUNC (MODULE+0xOFF)" or "... in FUNC FILE.c:LINE:COL";
	 * the runtime's own frames (interceptors) have neither a .so nor a source line */
	for (const char *l = strstr(report, "    #"); l; l = strstr(l + 1, "    #")) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (strstr(line, "/libdwarf.so") || strstr(line, "/libelf.so") ||
		    strstr(line, "/libelf-"))
			_exit(THIRD_PARTY_CRASH);
		if (strstr(line, ".so") || strstr(line, ".c:") || strstr(line, ".h:"))
			return; /* the first frame of other code: a finding */
	}
}

/* 1 when the input holds ".debug_rnglists" or ".debug_loclists" (after ".debug_").
 * A plain loop without coverage: memmem() would hand the strings to libFuzzer's
 * comparison hooks, which then put them into most inputs (and every input through a fork). */
__attribute__((no_sanitize("coverage"))) static int names_dwarf5_lists(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i++)
		if ((p[i] == 'r' && p[i + 1] == 'n' && p[i + 2] == 'g') ||
		    (p[i] == 'l' && p[i + 1] == 'o' && p[i + 2] == 'c'))
			if (p[i + 3] == 'l' && p[i + 4] == 'i' && p[i + 5] == 's' && p[i + 6] == 't' &&
			    p[i + 7] == 's')
				return 1;
	return 0;
}

/* How long the child may read: a child forked while libFuzzer's RSS thread held the
 * sanitizer allocator's lock blocks forever (debuginfo_child.c says why), and waiting for
 * it hung t_fuzz past its 600 s. Such a child dies, and the input is read in-process. */
#define CHILD_SECONDS 10

/* 1 when reading the input crashes inside libdwarf or libelf (in a child), else 0. */
static int third_party_crash(const char *file)
{
	struct mr_debuginfo *d = NULL;
	char err[512];
	pid_t pid = (pid_t)syscall(SYS_fork);
	int st = 0;

	if (pid < 0)
		abort();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDERR_FILENO); /* ASan's report of a libdwarf crash is noise here */
		signal(SIGALRM, SIG_DFL); /* not libFuzzer's timeout handler */
		alarm(CHILD_SECONDS);
		__asan_set_error_report_callback(on_report);
		if (mr_debuginfo_open_dir(file, NULL, &d, err, sizeof(err)) == 0)
			mr_debuginfo_close(d);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == THIRD_PARTY_CRASH;
}

static int mfd = -1;
static char path[64];

static uint64_t word(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n < 8 ? n : 8);
	return v;
}

static void ask(struct mr_debuginfo *d, uint64_t a)
{
	struct mr_line l;
	unsigned char code[32];
	struct mr_local *loc;
	int64_t off;
	size_t nloc;
	int reg;

	(void)mr_debuginfo_line(d, a, &l);
	(void)mr_debuginfo_var_at(d, a);
	(void)mr_debuginfo_tls_var_at(d, a);
	(void)mr_debuginfo_segment(d, a);
	(void)mr_debuginfo_code(d, a, code, sizeof(code));
	(void)mr_debuginfo_cfa(d, a, &reg, &off); /* frames: read lazily, in this process */
	if (!mr_debuginfo_locals(d, a, &loc, &nloc))
		free(loc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_debuginfo *d = NULL;
	const struct mr_var *vars;
	uint64_t v0, o0, bias, memsz, align;
	char err[512];
	size_t n;

	if (mfd < 0) {
		mfd = memfd_create("fuzz_debuginfo", MFD_CLOEXEC);
		if (mfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	}
	if (ftruncate(mfd, 0) || pwrite(mfd, data, size, 0) != (ssize_t)size)
		abort();
	if (names_dwarf5_lists(data, size) && third_party_crash(path))
		return -1; /* not added to the corpus */
	if (mr_debuginfo_open_dir(path, NULL, &d, err, sizeof(err)) != 0) {
		if (d || !err[0])
			abort(); /* a failure has a message and no object */
		return 0;
	}
	(void)mr_debuginfo_build_id(d);
	(void)mr_debuginfo_is_pic(d);
	(void)mr_debuginfo_debug_file(d);
	mr_debuginfo_load_base(d, &v0, &o0);
	(void)mr_debuginfo_bias(d, 0x555555554000, 0, 4096, &bias);
	mr_debuginfo_tls(d, &memsz, &align);
	(void)mr_debuginfo_tls_tpoff(d);
	n = mr_debuginfo_vars(d, &vars);
	for (size_t i = 0; i < n && i < 64; i++) {
		const struct mr_var *v = &vars[i];

		if (!v->name)
			abort();
		ask(d, v->addr);
		ask(d, v->addr + (v->size ? v->size - 1 : 0));
	}
	ask(d, v0);
	for (size_t off = 0; off + 8 <= size && off < 64 * 8; off += size / 8 + 8)
		ask(d, word(data + off, size - off));
	mr_debuginfo_close(d);
	return 0;
}
