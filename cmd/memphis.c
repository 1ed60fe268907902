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
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "memphis.h" /* MEMPHIS_VERSION_* (VERSION, checked by the Makefile) */
#include "launch.h"
#include "names.h"   /* lib/backend/: the backend names the library accepts */

#ifndef MEMPHIS_LIBDIR
#define MEMPHIS_LIBDIR "/usr/local/lib"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memphis run [options] [--] PROGRAM [ARGS...]\n"
		"       memphis apply --advice ADVICE [options] [--] PROGRAM [ARGS...]\n"
		"       memphis tune [options] [--] PROGRAM [ARGS...]\n"
		"                             (memphis apply --help, memphis tune --help;\n"
		"                             docs/apply.md)\n"
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
		"A statically linked, 32-bit or set-user-ID PROGRAM cannot be preloaded: memphis\n"
		"says so and runs it unprofiled.\n"
		"Exit status: PROGRAM's; 127 when it or libmemphis.so is not found, or the library's\n"
		"path holds a space or ':' (LD_PRELOAD cannot carry it); 126 when it cannot be run.\n");
}

#define STR(x) #x
#define XSTR(x) STR(x)
/* The soname first: a distribution's runtime package ships only libmemphis.so.MAJOR; the
 * unversioned libmemphis.so link belongs to its development package. */
static const char *const lib_names[] = {
	"libmemphis.so." XSTR(MEMPHIS_VERSION_MAJOR), "libmemphis.so",
};

/* Writes DIR/NAME for the first of lib_names that is readable in dir to out; with resolve,
 * its real path (the build tree's link resolved). Returns 0 or -ENOENT. */
static int find_in(const char *dir, int resolve, char *out, size_t n)
{
	for (size_t i = 0; i < sizeof(lib_names) / sizeof(lib_names[0]); i++) {
		snprintf(out, n, "%s/%s", dir, lib_names[i]);
		if (access(out, R_OK) == 0) {
			char real[PATH_MAX];
			if (resolve && realpath(out, real))
				snprintf(out, n, "%s", real);
			return 0;
		}
	}
	return -ENOENT;
}

int memphis_self_dir(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (len <= 0)
		return -ENOENT;
	self[len] = 0;
	if (!(slash = strrchr(self, '/')) || (size_t)(slash - self) >= n)
		return -ENOENT;
	*slash = 0;
	memcpy(out, self, (size_t)(slash - self) + 1);
	return 0;
}

int memphis_tool(const char *name, char *out, size_t n)
{
	char dir[PATH_MAX];

	if (memphis_self_dir(dir, sizeof(dir)) == 0 &&
	    (size_t)snprintf(out, n, "%s/%s", dir, name) < n && access(out, X_OK) == 0)
		return 0;
	return memphis_find_program(name, out, n);
}

/* The library next to this launcher (build tree), in ../lib (installed), or LIBDIR. */
static int find_library(char *out, size_t n)
{
	char self[PATH_MAX], up[PATH_MAX + 8];

	if (memphis_self_dir(self, sizeof(self)) == 0) {
		snprintf(up, sizeof(up), "%s/../lib", self);
		if (find_in(self, 1, out, n) == 0 || find_in(up, 1, out, n) == 0)
			return 0;
	}
	return find_in(MEMPHIS_LIBDIR, 0, out, n);
}

/* The file execvp(prog) would run: prog itself when it holds a '/', else the first
 * executable of that name along PATH. Returns 0 or -ENOENT. */
int memphis_find_program(const char *prog, char *out, size_t n)
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

/* name as a message shows it: control characters as '?' (a program's name may hold a
 * newline, which would forge a line, or an escape sequence for the terminal) */
const char *memphis_shown(const char *name)
{
	static char buf[2][PATH_MAX];
	static int k;
	char *out = buf[k++ % 2];
	size_t i;

	for (i = 0; name[i] && i < PATH_MAX - 1; i++)
		out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	out[i] = 0;
	return out;
}

/* What an executable file is, for the preload. */
enum exe_kind {
	EXE_OTHER,   /* not ELF (a script), or unreadable: execvp says what is wrong */
	EXE_DYNAMIC, /* an ELF of this launcher's class and machine, with an interpreter */
	EXE_STATIC,  /* the same without one (no PT_INTERP): no dynamic loader, no preload */
	EXE_FOREIGN, /* an ELF of another class (32-bit) or machine: libmemphis cannot be
		      * loaded into it (the loader would print its own error and go on) */
};

static int read_ehdr(const char *file, Elf64_Ehdr *eh)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	int ok = fd >= 0 && pread(fd, eh, sizeof(*eh), 0) == (ssize_t)sizeof(*eh) &&
		 !memcmp(eh->e_ident, ELFMAG, SELFMAG);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The kind of file; *eh its ELF header (its first 64 bytes) when it is ELF. */
static enum exe_kind exe_kind(const char *file, Elf64_Ehdr *eh)
{
	Elf64_Ehdr self;
	int fd, interp = 0;

	if (!read_ehdr(file, eh))
		return EXE_OTHER;
	/* e_machine sits at the same offset in both classes */
	if (!read_ehdr("/proc/self/exe", &self) || eh->e_ident[EI_CLASS] != self.e_ident[EI_CLASS] ||
	    eh->e_ident[EI_DATA] != self.e_ident[EI_DATA] || eh->e_machine != self.e_machine)
		return EXE_FOREIGN;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
		return EXE_DYNAMIC;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return EXE_DYNAMIC;
	for (unsigned i = 0; i < eh->e_phnum && !interp; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			break;
		interp = ph.p_type == PT_INTERP;
	}
	close(fd);
	return interp ? EXE_DYNAMIC : EXE_STATIC;
}

/* Would the kernel run file with rights other than ours (set-user-ID or set-group-ID to
 * another user or group, or file capabilities), on a file system that honours them? The
 * dynamic loader then ignores LD_PRELOAD (secure execution, AT_SECURE), silently. Writes
 * what makes it so to why[n]. */
static int secure_exec(const char *file, char *why, size_t n)
{
	struct stat st;
	struct statvfs sv;

	if (stat(file, &st) < 0 || (statvfs(file, &sv) == 0 && (sv.f_flag & ST_NOSUID)))
		return 0;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid()) {
		snprintf(why, n, "set-user-ID (it runs as uid %u)", (unsigned)st.st_uid);
		return 1;
	}
	if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getgid()) {
		snprintf(why, n, "set-group-ID (it runs as gid %u)", (unsigned)st.st_gid);
		return 1;
	}
	if (getuid() != 0 && getxattr(file, "security.capability", NULL, 0) > 0) {
		snprintf(why, n, "given file capabilities");
		return 1;
	}
	return 0;
}

int memphis_launch(char **argv, const char *region)
{
	char lib[PATH_MAX + 64], preload[2 * PATH_MAX + 128];

	if (find_library(lib, sizeof(lib)) < 0) {
		fprintf(stderr, "memphis: cannot find libmemphis.so (looked next to this program, "
				"in ../lib and in %s)\n", MEMPHIS_LIBDIR);
		return 127;
	}
	/* LD_PRELOAD separates its entries by spaces and colons and has no quoting */
	if (strpbrk(lib, " :")) {
		fprintf(stderr, "memphis: cannot preload %s: LD_PRELOAD cannot carry a path with a "
				"space or ':'; install memphis under a path without them\n", memphis_shown(lib));
		return 127;
	}
	char file[PATH_MAX], why[64];
	Elf64_Ehdr eh;
	enum exe_kind kind = EXE_OTHER;
	int found = memphis_find_program(argv[0], file, sizeof(file)) == 0;

	if (found)
		kind = exe_kind(file, &eh);
	/* Not to be preloaded: said in one line, then run as without memphis (no LD_PRELOAD:
	 * the loader of another class would print its own error into the program's stderr) */
	if (kind == EXE_FOREIGN || (found && secure_exec(file, why, sizeof(why)))) {
		if (kind == EXE_FOREIGN)
			fprintf(stderr, "memphis: %s is %s ELF executable: libmemphis cannot be loaded "
					"into it, so it runs unprofiled\n", memphis_shown(file),
				eh.e_ident[EI_CLASS] == ELFCLASS32 ? "a 32-bit" : "another machine's");
		else
			fprintf(stderr, "memphis: %s is %s: the dynamic loader ignores LD_PRELOAD for "
					"it, so it runs unprofiled\n", memphis_shown(file), why);
		execv(file, argv);
		fprintf(stderr, "memphis: cannot run %s: %s\n", memphis_shown(file), strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	if (kind == EXE_STATIC)
		fprintf(stderr, "memphis: %s is statically linked: LD_PRELOAD cannot load libmemphis "
				"into it, so it runs unprofiled unless it was linked with libmemphis.a "
				"itself\n", memphis_shown(file));
	const char *old = getenv("LD_PRELOAD");
	if (old && *old)
		snprintf(preload, sizeof(preload), "%s:%s", lib, old);
	else
		snprintf(preload, sizeof(preload), "%s", lib);
	setenv("LD_PRELOAD", preload, 1);
	if (region)
		setenv("MEMPHIS_REGION", region, 1);
	/* exec keeps this pid: the library profiles the process with it, and the processes
	 * it starts only with --children */
	char self[24];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	setenv("MEMPHIS_LAUNCHED", self, 1);
	/* an ELF file runs or fails as itself: execvp would hand one the kernel refuses
	 * (ENOEXEC) to /bin/sh as a script */
	if (kind != EXE_OTHER)
		execv(file, argv);
	else
		execvp(argv[0], argv);
	fprintf(stderr, "memphis: cannot run %s: %s\n", memphis_shown(argv[0]), strerror(errno));
	return errno == ENOENT ? 127 : 126;
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
	const char *region = "run";
	int c;

	if (argc >= 2 && !strcmp(argv[1], "apply"))
		return memphis_apply(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "tune"))
		return memphis_tune(argc - 1, argv + 1);
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
	return memphis_launch(argv + optind, region);
}
