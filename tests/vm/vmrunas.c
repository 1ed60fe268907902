/* vmrunas UID GID PROGRAM [ARGS...] - drop every privilege (no supplementary groups, real
 * and effective ids to UID/GID) and exec PROGRAM. Used inside the guest to run checks as an
 * unprivileged user; the initramfs has no /etc/passwd, so busybox su cannot do this. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: vmrunas UID GID PROGRAM [ARGS...]\n");
		return 2;
	}
	uid_t uid = (uid_t)strtoul(argv[1], NULL, 10);
	gid_t gid = (gid_t)strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
	    setresuid(uid, uid, uid) != 0) {
		perror("vmrunas");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("vmrunas: exec");
	return 127;
}
