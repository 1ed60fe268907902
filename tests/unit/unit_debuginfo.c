/* tests/unit/unit_debuginfo.c - post/binary/debuginfo.c against programs built here and now.
 *
 * Builds tests/fixtures/dbg_{vars,vars2,lib}.c with the system cc in several ways (-O2 and
 * -O0, DWARF 5 and -gdwarf-4, PIE and -no-pie, without -g), runs each program, which prints
 * the true offsets and sizes of its variables and functions (from dl_iterate_phdr), and
 * checks what mr_debuginfo_* finds in the binary against that; C++ variables' scopes in
 * tests/fixtures/dbg_scopes.cc built with c++ and clang++. Also the shared library,
 * libgomp.so.1 (no DWARF) when installed, and broken files (missing, not ELF, truncated,
 * corrupted) which must give an error naming the file and never crash.
 * TAP output; exit 1 on any failure, 77 when no C compiler is there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "binary/debuginfo.h"
#include "binary/debuginfo_impl.h" /* check_libc_units: d->lazy_growing */

#include "tap.h"

static char fixtures[4096], tmpdir[4096];

/* Run a shell command (in tmpdir); 0 on success. Its output goes to stderr. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	rc = system(cmd);
	if (rc)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Line number of the marker comment "@L:tag" in a fixture file, 0 if missing. */
static unsigned marker_line(const char *file, const char *tag)
{
	char path[8192], buf[1024], want[128];
	unsigned n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixtures, file);
	snprintf(want, sizeof(want), "@L:%s */", tag);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, want)) {
			found = n;
			break;
		}
	}
	fclose(f);
	return found;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* What a fixture run printed about one object. */
struct fact {
	char what[8]; /* var, tls, func, ra */
	char module[8];
	char name[64];
	uint64_t off, size;
};

struct facts {
	struct fact f[64];
	int n;
};

static int read_facts(const char *path, struct facts *fs)
{
	FILE *f = fopen(path, "r");
	char line[512];

	fs->n = 0;
	if (!f)
		return -1;
	while (fs->n < 64 && fgets(line, sizeof(line), f)) {
		struct fact *x = &fs->f[fs->n];
		unsigned long long off = 0, size = 0;
		int k = sscanf(line, "%7s %7s %63s %llx %llu", x->what, x->module, x->name, &off,
			       &size);

		if (k < 4)
			continue;
		x->off = off;
		x->size = k == 5 ? size : 0;
		fs->n++;
	}
	fclose(f);
	return 0;
}

static const struct fact *fact(const struct facts *fs, const char *what, const char *name)
{
	for (int i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].what, what) && !strcmp(fs->f[i].name, name))
			return &fs->f[i];
	return NULL;
}

/* The variable called name in d's list, and how many there are. */
static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const struct mr_var *var_named(struct mr_debuginfo *d, const char *name, int *count)
{
	const struct mr_var *vars, *r = NULL;
	size_t n = mr_debuginfo_vars(d, &vars);

	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vars[i].name, name)) {
			r = &vars[i];
			(*count)++;
		}
	return r;
}

struct expect {
	const char *module, *name; /* name: as the fixture prints it (and ELF names it) */
	unsigned kind;
	const char *file;
	const char *scope;          /* the scope DWARF gives it (issue 38), NULL none */
	const char *scoped;         /* its name with the scope ("dbg_vars.c:s_counter") */
};

static const struct expect expected[] = {
	{ "exe", "g_int", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "g_matrix", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "s_counter", MR_VAR_STATIC, "dbg_vars.c", "dbg_vars.c", "dbg_vars.c:s_counter" },
	{ "exe", "g_point", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "g_cvpoint", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "shared_name", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "g_ptr", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "g_union", MR_VAR_GLOBAL, "dbg_vars.c", NULL, NULL },
	{ "exe", "s_ptrs", MR_VAR_STATIC, "dbg_vars.c", "dbg_vars.c", "dbg_vars.c:s_ptrs" },
	{ "exe", "other_global", MR_VAR_GLOBAL, "dbg_vars2.c", NULL, NULL },
	{ "exe", "s_two", MR_VAR_STATIC, "dbg_vars2.c", "dbg_vars2.c", "dbg_vars2.c:s_two" },
	{ "exe", "other_calls::calls", MR_VAR_FUNC_STATIC, "dbg_vars2.c", "other_calls",
	  "other_calls::calls" },
	{ "exe", "counter::calls", MR_VAR_FUNC_STATIC, "dbg_vars.c", "counter", "counter::calls" },
	{ "exe", "t_buf", MR_VAR_TLS, "dbg_vars.c", NULL, NULL },
	{ "exe", "t_scalar", MR_VAR_TLS, "dbg_vars.c", NULL, NULL },
	{ "exe", "t_other", MR_VAR_TLS, "dbg_vars2.c", NULL, NULL },
	{ "lib", "lib_global", MR_VAR_GLOBAL, "dbg_lib.c", NULL, NULL },
	{ "lib", "lib_static", MR_VAR_STATIC, "dbg_lib.c", "dbg_lib.c", "dbg_lib.c:lib_static" },
	{ "lib", "lib_tls", MR_VAR_TLS, "dbg_lib.c", "dbg_lib.c", "dbg_lib.c:lib_tls" },
};

/* Every expected variable of `module`: found once by name (DWARF: with its scope) with
 * kind, size, address, scope, base name and declaring file right, and found again by
 * address from its middle and its last byte. */
static void check_vars(const char *cfg, const char *module, struct mr_debuginfo *d,
		       const struct facts *fs, int dwarf)
{
	uint64_t tls_end = 0, memsz, align;

	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct expect *e = &expected[i];
		const struct fact *f;
		const struct mr_var *v, *mid, *last;
		int tls = e->kind == MR_VAR_TLS, count;
		unsigned kind = dwarf ? e->kind : MR_VAR_SYMBOL;

		if (strcmp(e->module, module))
			continue;
		f = fact(fs, tls ? "tls" : "var", e->name);
		if (!ok(f != NULL, "%s: the fixture printed %s", cfg, e->name))
			continue;
		if (!dwarf && strstr(e->name, "::"))
			continue; /* ELF names function statics "calls.0" */
		v = var_named(d, dwarf && e->scoped ? e->scoped : e->name, &count);
		if (!ok(v && count == 1, "%s: %s found once by name (%d)", cfg,
			dwarf && e->scoped ? e->scoped : e->name, count))
			continue;
		if (dwarf) {
			const char *base = strstr(e->name, "::") ? strstr(e->name, "::") + 2 : e->name;

			ok(same_str(v->scope, e->scope) && same_str(v->base, base),
			   "%s: %s has scope %s and base name %s (%s, %s)", cfg, v->name,
			   e->scope ? e->scope : "NULL", base, v->scope ? v->scope : "NULL",
			   v->base ? v->base : "NULL");
		}
		if (!ok(v->kind == kind && v->size == f->size && v->addr == f->off &&
				v->tls == (unsigned)tls,
			"%s: %s kind %u size %llu addr 0x%llx tls %u (want %u %llu 0x%llx %d)", cfg,
			e->name, v->kind, (unsigned long long)v->size,
			(unsigned long long)v->addr, v->tls, kind,
			(unsigned long long)f->size, (unsigned long long)f->off, tls))
			continue;
		if (dwarf)
			ok(ends_with(v->file, e->file) && v->line > 0,
			   "%s: %s declared in %s (%s:%u)", cfg, e->name, e->file,
			   v->file ? v->file : "NULL", v->line);
		mid = tls ? mr_debuginfo_tls_var_at(d, f->off + f->size / 2)
			  : mr_debuginfo_var_at(d, f->off + f->size / 2);
		last = tls ? mr_debuginfo_tls_var_at(d, f->off + f->size - 1)
			   : mr_debuginfo_var_at(d, f->off + f->size - 1);
		ok(mid == v && last == v,
		   "%s: %s found by address (middle: %s, last byte: %s)", cfg, e->name,
		   mid ? mid->name : "NULL", last ? last->name : "NULL");
		if (tls && f->off + f->size > tls_end)
			tls_end = f->off + f->size;
	}
	mr_debuginfo_tls(d, &memsz, &align);
	if (tls_end)
		ok(memsz >= tls_end && align && !(align & (align - 1)),
		   "%s: %s PT_TLS memsz %llu >= %llu, align %llu", cfg, module,
		   (unsigned long long)memsz, (unsigned long long)tls_end,
		   (unsigned long long)align);
}

/* Source position of code: function name, caller, file and line (line in [lo, hi]). */
static void check_line(const char *cfg, struct mr_debuginfo *d, uint64_t addr,
		       const char *func, const char *caller, const char *file, unsigned lo,
		       unsigned hi)
{
	struct mr_line l;
	int rc = mr_debuginfo_line(d, addr, &l);

	ok(rc == 0 && l.function && !strcmp(l.function, func) &&
		   (caller ? l.caller && !strcmp(l.caller, caller) : !l.caller) &&
		   ends_with(l.file, file) && l.line >= lo && l.line <= hi && lo > 0,
	   "%s: 0x%llx is %s%s%s at %s:%u (want %s%s%s %s:%u-%u, rc %d)", cfg,
	   (unsigned long long)addr, l.function ? l.function : "NULL", l.caller ? " in " : "",
	   l.caller ? l.caller : "", l.file ? l.file : "NULL", l.line, func, caller ? " in " : "",
	   caller ? caller : "", file, lo, hi, rc);
}

/* Open path; on failure report it and return NULL. */
static struct mr_debuginfo *open_ok(const char *cfg, const char *path, double *ms)
{
	struct mr_debuginfo *d = NULL;
	char err[512] = "";
	double t0 = now_ms();
	int rc = mr_debuginfo_open(path, &d, err, sizeof(err));

	if (ms)
		*ms = now_ms() - t0;
	if (!ok(rc == 0 && d, "%s: open %s (%s)", cfg, path, rc ? err : "ok"))
		return NULL;
	return d;
}

/* Build and run one configuration of the fixture, check variables, lines, ELF facts. */
static void check_config(const char *cfg, const char *compiler, const char *cflags, int pie,
			 int lines)
{
	char exe[4200], out[4200];
	struct facts fs;
	struct mr_debuginfo *d;
	const struct fact *f;
	const struct mr_var *v;
	uint64_t vaddr0, offset0, bias;
	double ms;
	int count;

	snprintf(exe, sizeof(exe), "%s/vars-%s", tmpdir, cfg);
	snprintf(out, sizeof(out), "%s/vars-%s.out", tmpdir, cfg);
	if (!ok(!sh("cd '%s' && %s -g %s -I'%s' -o '%s' '%s/dbg_vars.c' '%s/dbg_vars2.c' -L. "
		    "-ldbglib -Wl,-rpath,'$ORIGIN' && '%s' > '%s'",
		    tmpdir, compiler, cflags, fixtures, exe, fixtures, fixtures, exe, out),
		"%s: build and run the fixture (%s -g %s)", cfg, compiler, cflags))
		return;
	if (!ok(!read_facts(out, &fs) && fs.n >= 20, "%s: fixture printed %d facts", cfg, fs.n))
		return;
	d = open_ok(cfg, exe, &ms);
	if (!d)
		return;
	printf("# %s: opening %s took %.2f ms\n", cfg, exe, ms);
	ok(mr_debuginfo_is_pic(d) == pie, "%s: is_pic %d", cfg, mr_debuginfo_is_pic(d));
	mr_debuginfo_load_base(d, &vaddr0, &offset0);
	ok(vaddr0 == (pie ? 0 : 0x400000) && offset0 == 0,
	   "%s: load base vaddr 0x%llx offset 0x%llx", cfg, (unsigned long long)vaddr0,
	   (unsigned long long)offset0);
	ok(!mr_debuginfo_bias(d, 0x555555554000ull, 0, 4096, &bias) &&
		   bias == 0x555555554000ull - vaddr0 &&
		   mr_debuginfo_bias(d, 0x555555556000ull, 0x2000, 4096, &bias) == -EINVAL,
	   "%s: bias from the offset-0 mapping, other mappings refused", cfg);
	ok(strlen(mr_debuginfo_build_id(d)) == 40 &&
		   !sh("readelf -n '%s' | grep -q 'Build ID: %s'", exe, mr_debuginfo_build_id(d)),
	   "%s: build-id %s matches readelf", cfg, mr_debuginfo_build_id(d));

	check_vars(cfg, "exe", d, &fs, 1);
	if ((f = fact(&fs, "tpoff", "tp")))
		ok(mr_debuginfo_tls_tpoff(d) == f->off,
		   "%s: TLS block starts %llu bytes below the thread pointer (loader: %llu)", cfg,
		   (unsigned long long)mr_debuginfo_tls_tpoff(d), (unsigned long long)f->off);
	else
		ok(0, "%s: the fixture printed its thread pointer offset", cfg);
	v = var_named(d, "shared_name", &count);
	ok(v && count == 1 && v->kind == MR_VAR_GLOBAL,
	   "%s: the parameter named like the global is not a variable (%d)", cfg, count);
	v = var_named(d, "g_matrix", &count);
	ok(v && v->line == marker_line("dbg_vars.c", "g_matrix"),
	   "%s: g_matrix declared at line %u", cfg, v ? v->line : 0);
	v = var_named(d, "other_global", &count);
	ok(v && v->line == marker_line("dbg_vars2.c", "other_global"),
	   "%s: other_global declared at line %u", cfg, v ? v->line : 0);
	f = fact(&fs, "var", "g_int");
	v = f ? mr_debuginfo_var_at(d, f->off + 4096 * 16) : NULL;
	ok(!v, "%s: no variable 64 KiB past g_int (%s)", cfg, v ? v->name : "none");

	if (!lines) {
		/* gcc -flto line tables name the file "<artificial>" (binutils agrees) */
		mr_debuginfo_close(d);
		return;
	}
	if ((f = fact(&fs, "func", "use_param"))) {
		unsigned l = marker_line("dbg_vars.c", "use_param");
		check_line(cfg, d, f->off, "use_param", NULL, "dbg_vars.c", l, l + 1);
	}
	if ((f = fact(&fs, "func", "main")))
		check_line(cfg, d, f->off, "main", NULL, "dbg_vars.c", 1, 1000);
	if ((f = fact(&fs, "ra", "inl"))) {
		unsigned l = marker_line("dbg_vars.c", "inl_call");
		check_line(cfg, d, f->off - 1, "helper_inl", "main", "dbg_vars.c", l, l);
	}
	if ((f = fact(&fs, "ra", "direct"))) {
		unsigned l = marker_line("dbg_vars.c", "direct_call");
		check_line(cfg, d, f->off - 1, "main", NULL, "dbg_vars.c", l, l);
	}
	mr_debuginfo_close(d);
	if (strcmp(cfg, "O2"))
		return;

	/* the shared library, as loaded by this run */
	snprintf(exe, sizeof(exe), "%s/libdbglib.so", tmpdir);
	d = open_ok(cfg, exe, NULL);
	if (!d)
		return;
	ok(mr_debuginfo_is_pic(d) == 1, "lib: is_pic");
	check_vars("lib", "lib", d, &fs, 1);
	if ((f = fact(&fs, "func", "lib_touch"))) {
		unsigned l = marker_line("dbg_lib.c", "lib_touch");
		check_line("lib", d, f->off, "lib_touch", NULL, "dbg_lib.c", l, l + 1);
	}
	mr_debuginfo_close(d);
}

/* The same program without -g: lines fail with -ENOENT but name the function, variables
 * come from the ELF symbol table as MR_VAR_SYMBOL. */
static void check_nodebug(void)
{
	char exe[4200], out[4200];
	struct facts fs;
	struct mr_debuginfo *d;
	const struct fact *f;
	struct mr_line l;
	int rc;

	snprintf(exe, sizeof(exe), "%s/vars-nodebug", tmpdir);
	snprintf(out, sizeof(out), "%s/vars-nodebug.out", tmpdir);
	if (!ok(!sh("cd '%s' && cc -O2 -I'%s' -o '%s' '%s/dbg_vars.c' '%s/dbg_vars2.c' -L. "
		    "-ldbglib -Wl,-rpath,'$ORIGIN' && '%s' > '%s'",
		    tmpdir, fixtures, exe, fixtures, fixtures, exe, out) &&
		    !read_facts(out, &fs),
		"nodebug: build and run the fixture without -g"))
		return;
	d = open_ok("nodebug", exe, NULL);
	if (!d)
		return;
	if ((f = fact(&fs, "func", "use_param"))) {
		rc = mr_debuginfo_line(d, f->off + 1, &l);
		ok(rc == -ENOENT && l.function && !strcmp(l.function, "use_param") && !l.file,
		   "nodebug: line() is -ENOENT (%d) but names use_param (%s)", rc,
		   l.function ? l.function : "NULL");
	}
	if ((f = fact(&fs, "func", "alias_impl"))) {
		mr_debuginfo_line(d, f->off, &l);
		ok(l.function && !strcmp(l.function, "alias_impl"),
		   "nodebug: of a global, a weak and a local symbol at one address the global names "
		   "it (%s)", l.function ? l.function : "NULL");
	}
	check_vars("nodebug", "exe", d, &fs, 0);
	mr_debuginfo_close(d);
}

/* A real library without DWARF: libgomp.so.1 (skipped when absent). */
static void check_libgomp(void)
{
	const char *path = "/usr/lib/x86_64-linux-gnu/libgomp.so.1";
	struct mr_debuginfo *d;
	struct mr_line l;
	unsigned long long addr = 0;
	double ms;
	FILE *p;

	if (access(path, R_OK)) {
		ok(1, "libgomp # SKIP %s not installed", path);
		return;
	}
	d = open_ok("libgomp", path, &ms);
	if (!d)
		return;
	printf("# libgomp: opening took %.2f ms\n", ms);
	ok(mr_debuginfo_is_pic(d) && strlen(mr_debuginfo_build_id(d)) == 40,
	   "libgomp: PIC, build-id %s", mr_debuginfo_build_id(d));
	p = popen("nm -D --defined-only /usr/lib/x86_64-linux-gnu/libgomp.so.1 | "
		  "awk '$3 == \"omp_get_num_threads\" { print $1 }'", "r");
	if (p) {
		if (fscanf(p, "%llx", &addr) != 1)
			addr = 0;
		pclose(p);
	}
	if (addr) {
		int rc = mr_debuginfo_line(d, addr + 2, &l);

		ok(rc == -ENOENT && l.function && !strcmp(l.function, "omp_get_num_threads"),
		   "libgomp: 0x%llx is in %s (rc %d)", addr + 2, l.function ? l.function : "NULL",
		   rc);
	}
	mr_debuginfo_close(d);
}

/* glibc with libc6-dbg installed: DWARF found by build-id under /usr/lib/debug, malloc's
 * main_arena and the tcache TLS pointer named (skipped without the debug file). */
static void check_libc_debug(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	struct mr_debuginfo *d;
	const struct mr_var *arena, *tcache;
	char want[300];
	int n1, n2;
	double ms;

	d = open_ok("libc", path, &ms);
	if (!d)
		return;
	snprintf(want, sizeof(want), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 mr_debuginfo_build_id(d), mr_debuginfo_build_id(d) + 2);
	if (access(want, R_OK)) {
		ok(1, "libc # SKIP no debug file %s (libc6-dbg)", want);
		mr_debuginfo_close(d);
		return;
	}
	printf("# libc: opening with %s took %.2f ms\n", want, ms);
	arena = var_named(d, "malloc.c:main_arena", &n1); /* statics of malloc.c */
	tcache = var_named(d, "malloc.c:tcache", &n2);
	ok(mr_debuginfo_debug_file(d) && !strcmp(mr_debuginfo_debug_file(d), want) && arena &&
		   arena->kind == MR_VAR_STATIC && arena->size > 1000 &&
		   mr_debuginfo_var_at(d, arena->addr + 100) == arena && tcache &&
		   tcache->kind == MR_VAR_TLS && mr_debuginfo_tls_var_at(d, tcache->addr) == tcache,
	   "libc: DWARF from %s names main_arena (%llu bytes) and TLS tcache",
	   mr_debuginfo_debug_file(d) ? mr_debuginfo_debug_file(d) : "NULL",
	   arena ? (unsigned long long)arena->size : 0);
	mr_debuginfo_close(d);
}

/* The lines of d (its units read one at a time) and of w (read whole) at vaddr agree. */
static int same_line(struct mr_debuginfo *d, struct mr_debuginfo *w, uint64_t vaddr)
{
	struct mr_line a, b;
	int ra = mr_debuginfo_line(d, vaddr, &a), rb = mr_debuginfo_line(w, vaddr, &b);

	if (ra != rb || a.line != b.line || !same_str(a.function, b.function) ||
	    !same_str(a.file, b.file) || !same_str(a.caller, b.caller)) {
		printf("# 0x%llx: %d %s %s:%u (caller %s) vs %d %s %s:%u (caller %s)\n",
		       (unsigned long long)vaddr, ra, a.function ? a.function : "-",
		       a.file ? a.file : "-", a.line, a.caller ? a.caller : "-", rb,
		       b.function ? b.function : "-", b.file ? b.file : "-", b.line,
		       b.caller ? b.caller : "-");
		return 0;
	}
	return 1;
}

/* libc's DWARF from its debug file is read a unit at a time where only lines are asked:
 * the answers are the whole pass's, at code addresses with a line (their units found by
 * .debug_aranges, read alone: d->lazy_growing stays 1), then at any address (one outside
 * every arange reads the rest whole, the units read before skipped), and after. */
static void check_libc_units(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	struct mr_debuginfo *d = NULL, *w = NULL;
	const struct mr_var *vars;
	uint64_t lo = 0, hi = 0;
	char err[512] = "";
	unsigned asked = 0, bad = 0, alone;

	if (mr_debuginfo_open(path, &w, err, sizeof(err)) || !mr_debuginfo_debug_file(w)) {
		ok(1, "libc units # SKIP no libc debug file");
		mr_debuginfo_close(w);
		return;
	}
	mr_debuginfo_vars(w, &vars); /* w: everything read */
	ok(mr_debuginfo_open(path, &d, err, sizeof(err)) == 0, "libc units: open (%s)", err);
	for (uint64_t a = 0; a < (1u << 24) && !lo; a += 4096)
		if (mr_debuginfo_segment(d, a) & MR_SEG_X)
			mr_debuginfo_segment_range(d, a, &lo, &hi);
	for (uint64_t a = lo; a < hi && asked < 20; a += 4093) {
		struct mr_line l;

		if (mr_debuginfo_line(w, a, &l) || !l.line)
			continue;
		bad += !same_line(d, w, a);
		asked++;
	}
	alone = atomic_load(&d->lazy_growing) == 1;
	ok(asked == 20 && !bad && alone,
	   "libc units: %u of %u code lines agree with the whole pass (units read alone: %u)",
	   asked - bad, asked, alone);
	bad = asked = 0;
	for (uint64_t a = lo; a < hi; a += 4093, asked++)
		bad += !same_line(d, w, a);
	ok(asked > 100 && !bad && atomic_load(&d->lazy_growing) == 0,
	   "libc units: %u of %u addresses agree, the rest read whole", asked - bad, asked);
	ok(mr_debuginfo_vars(d, &vars) > 1000, "libc units: then the variables");
	bad = asked = 0;
	for (uint64_t a = lo + 1001; a < hi; a += 4093, asked++)
		bad += !same_line(d, w, a);
	ok(!bad, "libc units: after that %u of %u more addresses agree", asked - bad, asked);
	mr_debuginfo_close(d);
	mr_debuginfo_close(w);
}

/* Open a broken file in a child process: must fail with -errno and name the file. A
 * crash or a success is a failure. corrupt: it may also open (rc 0), just not crash. */
static void check_broken(const char *what, const char *path, int corrupt)
{
	pid_t pid;
	int st = 0, fds[2];
	char msg[600] = "";
	ssize_t n;

	if (pipe(fds))
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct mr_debuginfo *d = NULL;
		char err[512] = "";
		int rc = mr_debuginfo_open(path, &d, err, sizeof(err));

		if (rc == 0) {
			struct mr_line l;
			const struct mr_var *v;

			for (uint64_t a = 0; a < 0x10000; a += 7) {
				struct mr_local *loc;
				int64_t off;
				size_t nloc;
				int reg;

				mr_debuginfo_line(d, a, &l);
				mr_debuginfo_var_at(d, a);
				mr_debuginfo_tls_var_at(d, a & 0xff);
				/* the frames' DWARF is read here, in this process */
				mr_debuginfo_cfa(d, a, &reg, &off);
				if (!mr_debuginfo_locals(d, a, &loc, &nloc))
					free(loc);
			}
			mr_debuginfo_vars(d, &v);
			mr_debuginfo_close(d);
		}
		n = snprintf(msg, sizeof(msg), "%d %s", rc, err);
		if (write(fds[1], msg, (size_t)n) < 0)
			_exit(3);
		_exit(rc == 0 ? (corrupt ? 0 : 2) : (strstr(err, path) ? 0 : 4));
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s (%s)", what,
	   WIFSIGNALED(st)		 ? "crashed"
	   : WEXITSTATUS(st) == 2	 ? "opened"
	   : !strncmp(msg, "0 ", 2) ? "opened and looked up, no crash"
					 : "error names the file",
	   msg);
}

static int copy_file(const char *from, const char *to, long len)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	long done = 0;

	if (!in || !out) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return -1;
	}
	while ((len < 0 || done < len) && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (len >= 0 && done + (long)n > len)
			n = (size_t)(len - done);
		fwrite(buf, 1, n, out);
		done += (long)n;
	}
	fclose(in);
	return fclose(out);
}

/* Write copies of exe to bad with 8 random bytes overwritten in one random .debug_*
 * section, 40 times, and open each (in a child). */
static void corrupt_dwarf(const char *exe, const char *bad, long size)
{
	struct { uint64_t off, size; } secs[64];
	int nsecs = 0, fd;
	unsigned char *img;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t shstrndx;
	Elf *elf;
	Elf_Scn *scn = NULL;
	FILE *in;

	elf_version(EV_CURRENT);
	fd = open(exe, O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn)) && nsecs < 64) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && !strncmp(name, ".debug_", 7) && sh.sh_size &&
			    sh.sh_offset + sh.sh_size <= (uint64_t)size) {
				secs[nsecs].off = sh.sh_offset;
				secs[nsecs].size = sh.sh_size;
				nsecs++;
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	img = malloc((size_t)size);
	in = fopen(exe, "rb");
	if (!ok(nsecs > 3 && img && in && fread(img, 1, (size_t)size, in) == (size_t)size,
		"corrupted: %d .debug_* sections to corrupt", nsecs)) {
		if (in)
			fclose(in);
		free(img);
		return;
	}
	fclose(in);
	for (int round = 1; round <= 40; round++) {
		unsigned char *copy = malloc((size_t)size);
		char what[64];
		FILE *out;
		int k;

		if (!copy)
			break;
		memcpy(copy, img, (size_t)size);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k = (int)(x % (uint64_t)nsecs);
		for (int i = 0; i < 8; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			copy[secs[k].off + x % secs[k].size] = (unsigned char)(x >> 56);
		}
		out = fopen(bad, "wb");
		if (out) {
			fwrite(copy, 1, (size_t)size, out);
			fclose(out);
		}
		free(copy);
		snprintf(what, sizeof(what), "corrupted DWARF, round %d", round);
		check_broken(what, bad, 1);
	}
	free(img);
}

/* Missing, not ELF, truncated at many lengths, bytes overwritten in DWARF sections. */
static void check_errors(void)
{
	char exe[4200], bad[4200], path[4200];
	struct mr_debuginfo *d = NULL;
	char err[512] = "";
	struct stat sb;
	int rc;
	static const long cuts[] = { 0, 3, 40, 64, 200, 4096, 10000 };

	snprintf(path, sizeof(path), "%s/no-such-file", tmpdir);
	rc = mr_debuginfo_open(path, &d, err, sizeof(err));
	ok(rc == -ENOENT && !d && strstr(err, path), "missing file: -ENOENT, %s", err);
	snprintf(path, sizeof(path), "%s/dbg_vars.c", fixtures);
	check_broken("not ELF", path, 0);

	snprintf(exe, sizeof(exe), "%s/vars-O2", tmpdir);
	snprintf(bad, sizeof(bad), "%s/vars-broken", tmpdir);
	if (stat(exe, &sb) || sb.st_size < 20000) {
		ok(0, "truncated: no fixture binary to truncate");
		return;
	}
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		char what[64];

		copy_file(exe, bad, cuts[i]);
		snprintf(what, sizeof(what), "truncated to %ld bytes", cuts[i]);
		check_broken(what, bad, 0);
	}
	for (long back = 4096; back >= 1; back /= 8) {
		char what[64];

		copy_file(exe, bad, (long)sb.st_size - back);
		snprintf(what, sizeof(what), "truncated by %ld bytes", back);
		check_broken(what, bad, 0);
	}
	/* overwrite bytes inside .debug_* sections (any result but a crash is fine) */
	corrupt_dwarf(exe, bad, sb.st_size);
}

/* Fortran (gfortran -fopenmp): module variables (mymod::var; an allocatable one is its
 * descriptor, sized by the ELF symbol), COMMON members (blk/a, one entry although two
 * subprograms declare the block), a SAVEd local, threadprivate COMMON and module
 * variables, checked against the symbol table (nm). Skipped without gfortran. */
static void check_fortran(void)
{
	static const struct {
		const char *name, *sym;
		unsigned kind;
		uint64_t delta, size;
	} want[] = {
		{ "mymod::modarr", "__mymod_MOD_modarr", MR_VAR_GLOBAL, 0, 100 * 4 * 8 },
		{ "mymod::modscalar", "__mymod_MOD_modscalar", MR_VAR_GLOBAL, 0, 4 },
		/* gfortran's rank-1 descriptor: 64 bytes */
		{ "mymod::alloc", "__mymod_MOD_alloc", MR_VAR_GLOBAL, 0, 64 },
		{ "mymod::tpmod", "__mymod_MOD_tpmod", MR_VAR_TLS, 0, 6 * 8 },
		{ "blk/a", "blk_", MR_VAR_GLOBAL, 0, 50 * 8 },
		{ "blk/b", "blk_", MR_VAR_GLOBAL, 50 * 8, 30 * 8 },
		{ "work::counter", "counter.", MR_VAR_FUNC_STATIC, 0, 7 * 4 },
		{ "tpc/tp", "tpc_", MR_VAR_TLS, 0, 10 * 8 },
	};
	char exe[4200], line[512];
	struct mr_debuginfo *d;
	FILE *p;

	if (system("gfortran --version >/dev/null 2>&1")) {
		ok(1, "fortran # SKIP gfortran not installed");
		return;
	}
	snprintf(exe, sizeof(exe), "%s/fortran", tmpdir);
	if (!ok(!sh("gfortran -g -O2 -fopenmp -o '%s' '%s/dbg_fortran.f90' && '%s'", exe, fixtures,
		    exe),
		"fortran: build and run the fixture"))
		return;
	d = open_ok("fortran", exe, NULL);
	if (!d)
		return;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char cmd[4400];
		unsigned long long addr = 0, a;
		char name[256];
		const struct mr_var *v, *hit;
		int count;

		snprintf(cmd, sizeof(cmd), "nm '%s'", exe);
		p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p))
			if (sscanf(line, "%llx %*s %255s", &a, name) == 2 &&
			    !strncmp(name, want[i].sym, strlen(want[i].sym)))
				addr = a;
		if (p)
			pclose(p);
		v = var_named(d, want[i].name, &count);
		hit = !v ? NULL
		    : want[i].kind == MR_VAR_TLS ? mr_debuginfo_tls_var_at(d, v->addr + v->size - 1)
						   : mr_debuginfo_var_at(d, v->addr + v->size - 1);
		ok(v && count == 1 && v->kind == want[i].kind && v->size == want[i].size &&
			   v->addr == addr + want[i].delta && hit == v &&
			   v->descriptor == !strcmp(want[i].name, "mymod::alloc"),
		   "fortran: %s kind %u size %llu at 0x%llx%s (want %u %llu 0x%llx from %s)",
		   want[i].name, v ? v->kind : 99, v ? (unsigned long long)v->size : 0,
		   v ? (unsigned long long)v->addr : 0, v && v->descriptor ? " descriptor" : "",
		   want[i].kind,
		   (unsigned long long)want[i].size, addr + want[i].delta, want[i].sym);
	}
	{
		const struct mr_var *v = var_named(d, "mymod::modarr", &(int){ 0 });
		uint64_t vaddr0, offset0;

		mr_debuginfo_load_base(d, &vaddr0, &offset0);
		ok(v && mr_debuginfo_segment(d, v->addr) == (MR_SEG_R | MR_SEG_W) &&
			   (mr_debuginfo_segment(d, vaddr0) & (MR_SEG_W | MR_SEG_R)) == MR_SEG_R &&
			   mr_debuginfo_segment(d, UINT64_MAX - 1) == 0,
		   "fortran: segment flags: module array rw, first segment read-only, none past the end");
	}
	mr_debuginfo_close(d);
}

/* DWARF in a separate file: by .gnu_debuglink next to the object, by build-id under a
 * debug directory, and refused when the build-id does not match. */
static void check_debug_file(void)
{
	char exe[4200], dbg[4400], bid_path[4600], ddir[4300];
	struct mr_debuginfo *d;
	const struct mr_var *v;
	char err[512];
	struct mr_line l;
	int count, rc;
	char bid[130];

	snprintf(exe, sizeof(exe), "%s/vars-sep", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/vars-sep.debug", tmpdir);
	snprintf(ddir, sizeof(ddir), "%s/debug", tmpdir);
	if (!ok(!sh("cd '%s' && cp vars-O2 vars-sep && objcopy --only-keep-debug vars-sep "
		    "vars-sep.debug && objcopy --strip-debug --add-gnu-debuglink=vars-sep.debug "
		    "vars-sep", tmpdir),
		"debugfile: split the O2 fixture with objcopy"))
		return;

	rc = mr_debuginfo_open_dir(exe, NULL, &d, err, sizeof(err));
	if (ok(rc == 0, "debugfile: open without looking for debug files (%s)", err)) {
		v = var_named(d, "g_matrix", &count);
		ok(!mr_debuginfo_debug_file(d) && v && v->kind == MR_VAR_SYMBOL,
		   "debugfile: without it, g_matrix is only an ELF symbol");
		mr_debuginfo_close(d);
	}
	rc = mr_debuginfo_open_dir(exe, "/nonexistent", &d, err, sizeof(err));
	if (ok(rc == 0, "debugfile: open with .gnu_debuglink (%s)", err)) {
		v = var_named(d, "counter::calls", &count);
		ok(ends_with(mr_debuginfo_debug_file(d), "/vars-sep.debug") && v &&
			   v->kind == MR_VAR_FUNC_STATIC,
		   "debugfile: DWARF from %s: counter::calls found",
		   mr_debuginfo_debug_file(d) ? mr_debuginfo_debug_file(d) : "NULL");
		mr_debuginfo_close(d);
	}
	rc = mr_debuginfo_open_dir(exe, NULL, &d, err, sizeof(err));
	snprintf(bid, sizeof(bid), "%s", rc ? "" : mr_debuginfo_build_id(d));
	snprintf(bid_path, sizeof(bid_path), "%s/.build-id/%.2s/%s.debug", ddir, bid,
		 strlen(bid) > 2 ? bid + 2 : "");
	if (!rc)
		mr_debuginfo_close(d);
	if (!ok(strlen(bid) == 40 && !sh("mkdir -p \"$(dirname '%s')\" && mv '%s' '%s'", bid_path,
					 dbg, bid_path),
		"debugfile: move it to %s", bid_path))
		return;
	rc = mr_debuginfo_open_dir(exe, ddir, &d, err, sizeof(err));
	if (ok(rc == 0, "debugfile: open with build-id (%s)", err)) {
		v = var_named(d, "g_matrix", &count);
		rc = mr_debuginfo_line(d, v ? v->addr : 0, &l); /* data: no line */
		ok(mr_debuginfo_debug_file(d) && !strcmp(mr_debuginfo_debug_file(d), bid_path) &&
			   v && v->kind == MR_VAR_GLOBAL &&
			   v->size == 3 * 5 * 7 * sizeof(double) && rc == -ENOENT,
		   "debugfile: DWARF from the build-id path: g_matrix is a %llu-byte global",
		   v ? (unsigned long long)v->size : 0);
		mr_debuginfo_close(d);
	}
	/* a debug file with another build-id is not used */
	if (!sh("cp '%s/vars-O0' '%s'", tmpdir, bid_path)) {
		rc = mr_debuginfo_open_dir(exe, ddir, &d, err, sizeof(err));
		if (ok(rc == 0, "debugfile: open with a mismatching debug file (%s)", err)) {
			ok(!mr_debuginfo_debug_file(d),
			   "debugfile: the mismatching file is ignored");
			mr_debuginfo_close(d);
		}
	}
}

/* C++ scopes (issue 38, tests/fixtures/dbg_scopes.cc): every variable named with its
 * namespaces and classes (template arguments included), a file's internal ones with the
 * file, whichever compiler and DWARF version. */
static void check_scopes(const char *compiler, const char *cflags)
{
	static const struct {
		const char *name, *scope, *base;
		unsigned kind;
	} want[] = {
		{ "S::arr", "S", "arr", MR_VAR_GLOBAL },
		{ "T::arr", "T", "arr", MR_VAR_GLOBAL },
		{ "ns1::v", "ns1", "v", MR_VAR_GLOBAL },
		{ "ns2::v", "ns2", "v", MR_VAR_GLOBAL },
		{ "dbg_scopes.cc:ns2::w", "dbg_scopes.cc:ns2", "w", MR_VAR_STATIC },
		{ "dbg_scopes.cc:anon", "dbg_scopes.cc", "anon", MR_VAR_STATIC },
		{ "dbg_scopes.cc:AC::ax", "dbg_scopes.cc:AC", "ax", ~0u }, /* clang: external */
		{ "H<1>::data", "H<1>", "data", MR_VAR_GLOBAL },
		{ "H<2>::data", "H<2>", "data", MR_VAR_GLOBAL },
		{ "outer::inner::Q::z", "outer::inner::Q", "z", MR_VAR_GLOBAL },
		{ "Outer::Inner::deep", "Outer::Inner", "deep", MR_VAR_GLOBAL },
		{ "g", NULL, "g", MR_VAR_GLOBAL },
		{ "dbg_scopes.cc:fs", "dbg_scopes.cc", "fs", MR_VAR_STATIC },
		{ "dbg_scopes.cc:tl", "dbg_scopes.cc", "tl", MR_VAR_TLS },
		{ "f::loc", "f", "loc", MR_VAR_FUNC_STATIC },
	};
	char cfg[256], exe[4200];
	struct mr_debuginfo *d;
	int count;

	snprintf(cfg, sizeof(cfg), "%s %s", compiler, cflags);
	snprintf(exe, sizeof(exe), "%s/scopes", tmpdir);
	if (!ok(!sh("cd '%s' && %s -g %s -o '%s' '%s/dbg_scopes.cc'", tmpdir, compiler, cflags,
		    exe, fixtures), "%s: build the C++ scopes fixture", cfg))
		return;
	d = open_ok(cfg, exe, NULL);
	if (!d)
		return;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct mr_var *v = var_named(d, want[i].name, &count);

		ok(v && count == 1 && same_str(v->scope, want[i].scope) &&
			   same_str(v->base, want[i].base) &&
			   (want[i].kind == ~0u || v->kind == want[i].kind),
		   "%s: %s once (%d), scope %s, base %s (%s, %s)", cfg, want[i].name, count,
		   want[i].scope ? want[i].scope : "NULL", want[i].base,
		   v && v->scope ? v->scope : "NULL", v && v->base ? v->base : "NULL");
	}
	mr_debuginfo_close(d);
}

int main(void)
{
	const char *src = getenv("MEMPHIS_SRC");
	const char *tmp = getenv("TMPDIR");
	char tmpl[4096];

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmpl, sizeof(tmpl), "%s/tests/fixtures", src ? src : ".");
	if (!realpath(tmpl, fixtures)) { /* absolute: the build commands run elsewhere */
		fprintf(stderr, "fixtures not found at %s (set MEMPHIS_SRC)\n", tmpl);
		return 77;
	}
	if (system("cc --version >/dev/null 2>&1")) {
		fprintf(stderr, "no C compiler (cc) to build the fixtures\n");
		return 77;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/memphis-debuginfo.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);

	if (ok(!sh("cd '%s' && cc -g -O2 -shared -fPIC -I'%s' -o libdbglib.so '%s/dbg_lib.c'",
		   tmpdir, fixtures, fixtures),
	       "build the shared library fixture")) {
		check_config("O2", "cc", "-O2", 1, 1);
		check_config("O0", "cc", "-O0", 1, 1);
		check_config("O2-dwarf4", "cc", "-O2 -gdwarf-4", 1, 1);
		check_config("O0-dwarf4-nopie", "cc", "-O0 -gdwarf-4 -no-pie", 0, 1);
		check_config("O2-nopie", "cc", "-O2 -no-pie", 0, 1);
		/* clang's DWARF 5 puts addresses in .debug_addr (DW_OP_addrx) */
		if (system("clang --version >/dev/null 2>&1"))
			ok(1, "clang # SKIP clang not installed");
		else
			check_config("clang-O2", "clang", "-O2", 1, 1);
		/* LTO: the definitions refer to declarations in the early-debug CU */
		check_config("O2-lto", "cc", "-O2 -flto", 1, 0);
		check_nodebug();
		check_debug_file();
		check_errors();
	}
	if (system("c++ --version >/dev/null 2>&1")) {
		ok(1, "C++ scopes # SKIP no C++ compiler (c++)");
	} else {
		check_scopes("c++", "-O0");
		check_scopes("c++", "-O2 -gdwarf-4");
		check_scopes("c++", "-O2 -flto");
	}
	if (!system("clang++ --version >/dev/null 2>&1")) {
		check_scopes("clang++", "-O2");
		check_scopes("clang++", "-O0 -gdwarf-4");
	}
	check_fortran();
	check_libgomp();
	check_libc_debug();
	check_libc_units();

	sh("rm -rf '%s'", tmpdir);
	return tap_done();
}
