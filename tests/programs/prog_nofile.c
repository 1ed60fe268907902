/* A program that uses every descriptor its limit gives it: in a region, opens /dev/null
 * until open fails, and prints how many it got and why the last failed (ulimit -n 8: 5,
 * EMFILE, with stdin, stdout and stderr open). */
#include <errno.h>
#include <fcntl.h>
#include <memphis.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	int n = 0, err;

	memphis_mark_named("nofile");
	for (;;) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0) {
			err = errno;
			break;
		}
		n++;
	}
	memphis_print();
	printf("opened %d files, then: %s\n", n, strerror(err));
	return 0;
}
