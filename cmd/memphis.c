/* memphis - run an unmodified program under libmemphis, sampling the whole run as one
 * region:  memphis run [options] -- ./app args...
 * It only sets MEMPHIS_* and LD_PRELOAD and execs the program, so the program's exit
 * status, output and signals are its own. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memphis.h" /* MEMPHIS_VERSION_* (VERSION, checked by the Makefile) */
#include "names.h"   /* lib/backend/: the backend names the library accepts */

#ifndef MEMPHIS_LIBDIR
#define MEMPHIS_LIBDIR "/usr/local/lib"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memphis run [options] [--] PROGRAM [ARGS...]\n"
		"Run PROGRAM with libmemphis preloaded; the whole run is one region.\n"
		"  -b, --backend NAME    " MEMPHIS__BACKEND_CHOICES ", default auto (MEMPHIS_BACKEND)\n"
		"  -p, --period TIME     sampling period, 100us to 10s     (MEMPHIS_PERIOD)\n"
		"  -o, --output DIR      run directory                     (MEMPHIS_OUTPUT)\n"
		"  -r, --region NAME     name of the whole-run region, default \"run\"\n"
		"      --no-first-touch  do not record page faults         (MEMPHIS_FIRST_TOUCH=0)\n"
		"  -d, --depth N         allocation call-site frames, 1-8  (MEMPHIS_CALLSITE_DEPTH)\n"
		"  -v, --verbose         library messages on stderr        (MEMPHIS_VERBOSE=2)\n"
		"      --children        also profile the processes PROGRAM starts, each in its\n"
		"                        own run directory (DIR.PID with -o DIR); by default\n"
		"                        only PROGRAM itself is profiled   (MEMPHIS_CHILDREN=1)\n"
		"  -h, --help            this text\n"
		"      --version         memphis's version\n"
		"Then: memphis-report memphis-PROGRAM-PID/\n"
		"Under a launcher (mpirun -np 4 memphis run -- ./app, srun ...) PROGRAM is a rank:\n"
		"each writes memphis-PROGRAM-job-JOBID/rank-R/ (-o DIR: DIR/rank-R/).\n"
		"A statically linked PROGRAM cannot be preloaded: memphis says so and runs it.\n"
		"Exit status: PROGRAM's; 127 when it or libmemphis.so is not found, or the library's\n"
		"path holds a space or ':' (LD_PRELOAD cannot carry it); 126 when it cannot be run.\n");
}

/* The library next to this launcher (build tree), in ../lib (installed), or LIBDIR. */
static int find_library(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *rel[] = { "/libmemphis.so", "/../lib/libmemphis.so" };

	if (len > 0) {
		self[len] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				snprintf(out, n, "%s%s", self, rel[i]);
				if (access(out, R_OK) == 0) {
					char real[PATH_MAX];
					if (realpath(out, real))
						snprintf(out, n, "%s", real);
					return 0;
				}
			}
		}
	}
	snprintf(out, n, "%s/libmemphis.so", MEMPHIS_LIBDIR);
	return access(out, R_OK) == 0 ? 0 : -ENOENT;
}

/* The file execvp(prog) would run: prog itself when it holds a '/', else the first
 * executable of that name along PATH. Returns 0 or -ENOENT. */
static int find_program(const char *prog, char *out, size_t n)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(out, n, "%s", prog);
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		snprintf(out, n, "%.*s%s%s", (int)len, p, len ? "/" : "", prog);
		if (access(out, X_OK) == 0)
			return 0;
		if (!e)
			return -ENOENT;
		p = e;
	}
}

/* Is file an ELF executable without a program interpreter (PT_INTERP): statically linked,
 * so that the dynamic loader, and with it LD_PRELOAD, never runs? Scripts, 32-bit and
 * unreadable files answer no (execvp reports what is wrong with them). */
static int statically_linked(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int interp = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		close(fd);
		return 0;
	}
	for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph)) {
			close(fd);
			return 0;
		}
		interp = ph.p_type == PT_INTERP;
	}
	close(fd);
	return !interp;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, 0, 'b' }, { "period", required_argument, 0, 'p' },
		{ "output", required_argument, 0, 'o' },  { "region", required_argument, 0, 'r' },
		{ "no-first-touch", no_argument, 0, 'F' }, { "depth", required_argument, 0, 'd' },
		{ "verbose", no_argument, 0, 'v' },       { "help", no_argument, 0, 'h' },
		{ "children", no_argument, 0, 'C' },
		{ 0, 0, 0, 0 },
	};
	char lib[PATH_MAX + 64], preload[2 * PATH_MAX + 128];
	const char *region = "run";
	int c;

	if (argc < 2 || strcmp(argv[1], "run")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 0;
		}
		if (argc >= 2 && !strcmp(argv[1], "--version")) {
			printf("memphis %d.%d.%d\n", MEMPHIS_VERSION_MAJOR, MEMPHIS_VERSION_MINOR,
			       MEMPHIS_VERSION_PATCH);
			return 0;
		}
		usage(stderr);
		return 1;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "+b:p:o:r:d:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'b': setenv("MEMPHIS_BACKEND", optarg, 1); break;
		case 'p': setenv("MEMPHIS_PERIOD", optarg, 1); break;
		case 'o': setenv("MEMPHIS_OUTPUT", optarg, 1); break;
		case 'r': region = optarg; break;
		case 'F': setenv("MEMPHIS_FIRST_TOUCH", "0", 1); break;
		case 'd': setenv("MEMPHIS_CALLSITE_DEPTH", optarg, 1); break;
		case 'v': setenv("MEMPHIS_VERBOSE", "2", 1); break;
		case 'C': setenv("MEMPHIS_CHILDREN", "1", 1); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	if (find_library(lib, sizeof(lib)) < 0) {
		fprintf(stderr, "memphis: cannot find libmemphis.so (looked next to this program, "
				"in ../lib and in %s)\n", MEMPHIS_LIBDIR);
		return 127;
	}
	/* LD_PRELOAD separates its entries by spaces and colons and has no quoting */
	if (strpbrk(lib, " :")) {
		fprintf(stderr, "memphis: cannot preload %s: LD_PRELOAD cannot carry a path with a "
				"space or ':'; install memphis under a path without them\n", lib);
		return 127;
	}
	char file[PATH_MAX];
	if (find_program(argv[optind], file, sizeof(file)) == 0 && statically_linked(file))
		fprintf(stderr, "memphis: %s is statically linked: LD_PRELOAD cannot load libmemphis "
				"into it, so it runs unprofiled unless it was linked with libmemphis.a "
				"itself\n", file);
	const char *old = getenv("LD_PRELOAD");
	if (old && *old)
		snprintf(preload, sizeof(preload), "%s:%s", lib, old);
	else
		snprintf(preload, sizeof(preload), "%s", lib);
	setenv("LD_PRELOAD", preload, 1);
	setenv("MEMPHIS_REGION", region, 1);
	/* exec keeps this pid: the library profiles the process with it, and the processes
	 * it starts only with --children */
	char self[24];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	setenv("MEMPHIS_LAUNCHED", self, 1);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "memphis: cannot run %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
