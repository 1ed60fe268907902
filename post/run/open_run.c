/* post/run/open_run.c - a run directory opened for a command: the error and the
 * owner's note printed (rundir.h, "For the commands"). */
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "rundir.h"

void mr_print_problems(const struct mr_run *run, FILE *f, const char *prefix)
{
	for (size_t i = 0; i < run->nwarnings; i++)
		fprintf(f, "%swarning: %s\n", prefix, mr_esc(run->warnings[i]));
	for (size_t i = 0; i < run->ndamage; i++)
		fprintf(f, "%sdamaged input: %s\n", prefix, mr_esc(run->damage[i]));
}

void mr_note_owner(const char *dir)
{
	struct stat st;
	struct passwd *pw;
	char shown[256];
	size_t i;

	if (stat(dir, &st) < 0 || st.st_uid == geteuid())
		return;
	for (i = 0; dir[i] && i < sizeof(shown) - 1; i++)
		shown[i] = (unsigned char)dir[i] < 0x20 || dir[i] == 0x7f ? '?' : dir[i];
	shown[i] = 0;
	pw = getpwuid(st.st_uid);
	fprintf(stderr, "memphis-report: note: %s%s belongs to user %s (uid %u), not to you: "
		"what it holds was written by that user's processes\n", shown, dir[i] ? "..." : "",
		pw ? pw->pw_name : "?", (unsigned)st.st_uid);
}

struct mr_run *mr_open_run(const char *dir)
{
	struct mr_run *run = NULL;
	char err[1024];

	if (mr_run_open(dir, &run, err, sizeof(err)) < 0) {
		mr_error(MR_EXIT_DATA, "%s", err);
		return NULL;
	}
	if (!mr_err_capture) /* a rank of a merged job: the job notes its directories once */
		mr_note_owner(dir);
	return run;
}
