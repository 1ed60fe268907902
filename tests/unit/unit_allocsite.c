/* tests/unit/unit_allocsite.c - the Fortran source-line classifier of post/binary/allocsite.c
 * (mr_allocsite_fortran): which malloc call sites are ALLOCATE statements (and of which
 * objects) and which are compiler temporaries. Table-driven, each case keeping its source
 * line; every source text is written to a file with the case's suffix and read back.
 * (mr_allocsite_store, the descriptor follower, is checked end to end by t_fortran.sh and
 * t_golden_f.sh on gfortran's real code at -O0 and -O2.) TAP output; exit 1 on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "binary/allocsite.h"
#include "base/infile.h"

#include "tap.h"

struct fcase {
	int line;           /* of this case in this file */
	const char *suffix; /* of the source file */
	const char *text;   /* the source lines (the file has them from line 2; the case asks
			     * about the last one) */
	int kind;           /* enum mr_fsite */
	const char *name;   /* objects, NULL for none */
};

static const struct fcase cases[] = {
	{ __LINE__, ".f90", "  allocate(u(n))", MR_FSITE_ALLOCATE, "u" },
	{ __LINE__, ".f90", "  ALLOCATE (U(N), V(N,2))", MR_FSITE_ALLOCATE, "u, v" },
	{ __LINE__, ".F90", "  allocate(a(n), stat=ierr)", MR_FSITE_ALLOCATE, "a" },
	{ __LINE__, ".f90", "  allocate(a(n), b(m), errmsg=msg, stat=ierr) ! two", MR_FSITE_ALLOCATE,
	  "a, b" },
	{ __LINE__, ".f90", "  allocate(grid%h(nx, ny))", MR_FSITE_ALLOCATE, "grid%h" },
	{ __LINE__, ".f90", "  allocate(real(8) :: w(n))", MR_FSITE_ALLOCATE, "w" },
	{ __LINE__, ".f90", "  allocate(b, source=a)", MR_FSITE_ALLOCATE, "b" },
	{ __LINE__, ".f90", "  if (.not. allocated(x)) allocate(x(10))", MR_FSITE_ALLOCATE, "x" },
	{ __LINE__, ".f", "      ALLOCATE(WORK(LWORK))", MR_FSITE_ALLOCATE, "work" },
	/* free-form continuation: the call site may be on any line of the statement */
	{ __LINE__, ".f90", "  allocate(u(n), &\n           v(n))", MR_FSITE_ALLOCATE, "u, v" },
	{ __LINE__, ".f90", "  x = 1\n  allocate(u(n), & ! comment\n   & v(n), stat=i)", MR_FSITE_ALLOCATE,
	  "u, v" },
	{ __LINE__, ".f90", "  call f(a, &\n         b(idx))", MR_FSITE_TEMPORARY, NULL },
	{ __LINE__, ".f90", "  a = a(perm)", MR_FSITE_TEMPORARY, NULL },
	{ __LINE__, ".f90", "  deallocate(a)", MR_FSITE_TEMPORARY, NULL },
	{ __LINE__, ".f90", "  ok = allocated(a)", MR_FSITE_TEMPORARY, NULL },
	{ __LINE__, ".f90", "  reallocate_count = 1 ! allocate(", MR_FSITE_TEMPORARY, NULL },
	{ __LINE__, ".c", "  p = malloc(n); /* allocate(p) */", MR_FSITE_NONE, NULL },
	{ __LINE__, ".f90.orig", "  allocate(u(n))", MR_FSITE_NONE, NULL },
};

int main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct mr_in_owner me = { .known = true, .uid = geteuid(), .gid = getegid() };
	static const char *const kinds[] = { "none", "allocate", "temporary" };
	char path[4200];
	size_t n = sizeof(cases) / sizeof(cases[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", n + 3);
	for (size_t i = 0; i < n; i++) {
		const struct fcase *c = &cases[i];
		const char *name = NULL;
		char got[512];
		FILE *f;
		int k;

		snprintf(path, sizeof(path), "%s/unit_allocsite.%d.%zu%s", tmp, (int)getpid(), i,
			 c->suffix);
		f = fopen(path, "w");
		if (!f || fprintf(f, "! line 1\n%s\n  end\n", c->text) < 0 || fclose(f)) {
			tap(0, c->line, "%s%s: cannot write the source file", c->text, "");
			continue;
		}
		/* ask for the case's last line: the statement may start lines before it */
		unsigned last = 2;
		for (const char *q = c->text; *q; q++)
			last += *q == '\n';
		k = mr_allocsite_fortran(&me, path, last, &name);
		snprintf(got, sizeof(got), "%s%s%s", kinds[k], name ? " " : "", name ? name : "");
		tap(k == c->kind && (name == c->name || (name && c->name && !strcmp(name, c->name))),
		    c->line, "'%s' is %s", c->text, got);
		unlink(path);
	}
	{
		const char *name = "x";

		tap(mr_allocsite_fortran(&me, "/nonexistent/a.f90", 2, &name) == MR_FSITE_NONE && !name,
		    __LINE__, "%s%s", "an unreadable source: none", "");
		snprintf(path, sizeof(path), "%s/unit_allocsite.%d.short.f90", tmp, (int)getpid());
		FILE *f = fopen(path, "w");
		if (f) {
			fputs("  allocate(a(1))\n", f);
			fclose(f);
		}
		tap(mr_allocsite_fortran(&me, path, 5, &name) == MR_FSITE_NONE, __LINE__, "%s%s",
		    "a line past the end of the file: none", "");
		unlink(path);
		/* lines longer than any buffer still count as one line each */
		f = fopen(path, "w");
		if (f) {
			fputs("  x = 1 ! ", f);
			for (int k = 0; k < 5000; k++)
				fputc('y', f);
			fputs("\n  allocate(z(3))\n", f);
			fclose(f);
		}
		tap(mr_allocsite_fortran(&me, path, 2, &name) == MR_FSITE_ALLOCATE && name &&
			    !strcmp(name, "z"), __LINE__, "%s%s",
		    "after a 5000-character line, line 2 is allocate z", "");
		unlink(path);
		/* a run of another user (issue 38): the source is read only when that user could
		 * read it, whoever runs the report */
		struct mr_in_owner other = { .known = true, .uid = geteuid() == 65534 ? 65533 : 65534,
					     .gid = 65534, .ngroups = 1, .groups = { 65534 } };
		f = fopen(path, "w");
		if (f) {
			fputs("  allocate(w(3))\n", f);
			fclose(f);
		}
		chmod(path, 0600);
		tap(mr_allocsite_fortran(&other, path, 1, &name) == MR_FSITE_NONE, __LINE__, "%s%s",
		    "a source mode 0600 of mine, for a run of another user: not read", "");
		tap(mr_allocsite_fortran(&me, path, 1, &name) == MR_FSITE_ALLOCATE, __LINE__, "%s%s",
		    "the same source for a run of mine: read", "");
		chmod(path, 0644);
		tap(mr_allocsite_fortran(&other, path, 1, &name) == MR_FSITE_ALLOCATE, __LINE__, "%s%s",
		    "mode 0644, for a run of another user: read", "");
		unlink(path);
		mkfifo(path, 0644);
		tap(mr_allocsite_fortran(&me, path, 1, &name) == MR_FSITE_NONE, __LINE__, "%s%s",
		    "a FIFO as the source: not waited on", "");
		unlink(path);
	}
	return n_fail ? 1 : 0;
}
