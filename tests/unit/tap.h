/* tests/unit/tap.h - the TAP printer of the C unit tests (unit_*.c here), one per test binary:
 *   ok(cond, "what", ...)        "ok N - what" or "not ok N - what" plus the file and line
 *                                of the call; returns cond (0 or 1)
 *   tap(ok, line, "what", ...)   the same for a table-driven case, naming the case's line
 *   tap_skip("why", "what", ...) "ok N - what # SKIP why"
 *   return tap_done();           at the end of main(): prints the plan "1..N", returns
 *                                1 when a case failed, else 0
 * Lines are flushed at once, so they keep their order with the output of child processes. */
#ifndef MEMPHIS_TESTS_TAP_H
#define MEMPHIS_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int n_test, n_fail;

static int tap_at(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), unused));
static int tap_at(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		n_fail++;
		printf("# failed: case at %s:%d\n", file, line);
	}
	fflush(stdout);
	return ok;
}

static void tap_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), unused));
static void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

static int tap_done(void) __attribute__((unused));
static int tap_done(void)
{
	printf("1..%d\n", n_test);
	fflush(stdout);
	return n_fail != 0;
}

#define tap(ok, line, ...) tap_at(!!(ok), __FILE__, (line), __VA_ARGS__)
#define ok(cond, ...) tap_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#endif /* MEMPHIS_TESTS_TAP_H */
