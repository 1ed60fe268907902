/* Writes through stdio (issue 16 item 3): N characters (default 30,000,000) with putc to a
 * fully buffered stream on /dev/null, in one region. The stream's FILE and its buffer are
 * the C runtime's own data (allocated by fopen and by _IO_file_doallocate at the first
 * write), not the program's. Prints the count of failed writes (0). */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000, bad = 0;
	FILE *f = fopen("/dev/null", "w");

	if (!f)
		return 1;
	memphis_mark_named("stdio");
	for (long i = 0; i < n; i++)
		bad += putc('a' + (int)(i % 26), f) == EOF;
	memphis_print();
	if (fclose(f))
		return 1;
	printf("stdio: %ld characters, %ld failed\n", n, bad);
	return 0;
}
