/* cmd/launch.h - what the launcher's subcommands share (cmd/memphis.c): finding the
 * program and the tools, and the exec of the program with libmemphis preloaded. */
#ifndef MEMPHIS_LAUNCH_H
#define MEMPHIS_LAUNCH_H

#include <stddef.h>

/* The file execvp(prog) would run: prog itself when it holds a '/', else the first
 * executable of that name along PATH. Returns 0 or -ENOENT. */
int memphis_find_program(const char *prog, char *out, size_t n);
/* The directory of this launcher's executable into out. 0 or -ENOENT. */
int memphis_self_dir(char *out, size_t n);
/* The program name beside this launcher (the build tree, an installed bin/: memphis-report
 * and memphis), else on PATH, into out. 0 or -ENOENT. */
int memphis_tool(const char *name, char *out, size_t n);
/* name as a message shows it: control characters as '?'. One of two static buffers. */
const char *memphis_shown(const char *name);
/* Exec argv[0] with libmemphis preloaded (MEMPHIS_REGION = region unless NULL); returns
 * only on failure, with the exit status (127 not found, 126 cannot be run) and a line
 * printed. */
int memphis_launch(char **argv, const char *region);
/* `memphis apply ...` (argv[0] is "apply"): cmd/apply.c. Returns the exit status when the
 * program was not run. */
int memphis_apply(int argc, char **argv);
/* `memphis tune ...` (argv[0] is "tune"): cmd/tune.c. Returns its exit status when it
 * could not hand over to memphis-report tune. */
int memphis_tune(int argc, char **argv);

#endif /* MEMPHIS_LAUNCH_H */
