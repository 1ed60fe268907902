/* post/compare/compare_load.c - one side of a comparison: a saved `--json` report, or a run
 * directory whose report is produced in memory with the same code and options as
 * `memphis-report --json` and then parsed like a saved one (compare_parse.c). One loading
 * path: whatever compare reads from a run directory, a saved report holds too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/infile.h"
#include "compare.h"
#include "job/job.h"

int cmp_load(struct cmp_side *s, const char *path, const char *exe, const struct cmp_opts *o,
	     char *err, size_t errlen, int *printed)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	int rc;

	*printed = 0;
	if (!(s->path = strdup(path)))
		return -ENOMEM;
	if (stat(path, &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		struct report_opts ro = { .dir = path, .exe = exe, .force = o->force, .json = 1,
					  .approx = o->approx, .by_line = o->by_line,
					  .mode = MR_AGG_REMOTE, .top = 0, .regions = o->regions,
					  .nregions = o->nregions };
		FILE *mem = open_memstream(&buf, &n);
		if (!mem)
			return -ENOMEM;
		rc = job_report_run(&ro, mem);
		if (fclose(mem) || !buf) {
			free(buf);
			return -ENOMEM;
		}
		if (n == 0) { /* the report printed its error */
			free(buf);
			*printed = 1;
			return rc == MR_EXIT_USAGE ? -EINVAL : -EIO;
		}
	} else {
		s->from_json = 1;
		if ((rc = mr_in_read(path, MR_IN_MAX_JSON, &buf, &n))) {
			snprintf(err, errlen, "%s: %s", path, mr_in_strerror(rc, MR_IN_MAX_JSON));
			return rc;
		}
	}
	rc = cmp_parse(s, buf, n, err, errlen);
	free(buf);
	return rc;
}

