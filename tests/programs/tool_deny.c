/* tool_deny SYSCALL[,SYSCALL...] PROGRAM ARGS... - run PROGRAM with a seccomp filter that
 * makes the named system calls fail with EPERM, as container runtimes' default profiles
 * do (perf_event_open and unshare without CAP_PERFMON / CAP_SYS_ADMIN) or a sandbox may
 * (process_vm_readv). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned nr;
} known[] = {
	{ "perf_event_open", SYS_perf_event_open },
	{ "unshare", SYS_unshare },
	{ "process_vm_readv", SYS_process_vm_readv },
};

#define KNOWN (sizeof(known) / sizeof(known[0]))

int main(int argc, char **argv)
{
	struct sock_filter filter[4 + 2 * KNOWN + 1] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	};
	unsigned short n = 4;
	char list[256], *save = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: tool_deny SYSCALL[,SYSCALL...] PROGRAM [ARGS...]\n");
		return 2;
	}
	snprintf(list, sizeof(list), "%s", argv[1]);
	for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		size_t k = 0;

		while (k < KNOWN && strcmp(known[k].name, s))
			k++;
		if (k == KNOWN || n + 2u >= sizeof(filter) / sizeof(filter[0])) {
			fprintf(stderr, "tool_deny: %s: not one of the system calls it knows\n", s);
			return 2;
		}
		filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, known[k].nr, 0, 1);
		filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							   SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	}
	filter[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { n, filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("tool_deny: seccomp");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror("tool_deny: exec");
	return 127;
}
