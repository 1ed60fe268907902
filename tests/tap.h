/* tests/tap.h - TAP output for the unit tests: tap(ok, __LINE__ of the case, "what", ...)
 * prints "ok N - what" or "not ok N - what" and, on failure, the file and line of the
 * case. main() ends with: printf("1..%d\n", n_test); return n_fail != 0; */
#ifndef MEMPHIS_TESTS_TAP_H
#define MEMPHIS_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int n_test, n_fail;

static void tap_at(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void tap_at(int ok, const char *file, int line, const char *fmt, ...)
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
}

#define tap(ok, line, ...) tap_at((ok), __FILE__, (line), __VA_ARGS__)

#endif /* MEMPHIS_TESTS_TAP_H */
