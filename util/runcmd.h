/* Run a command for what it prints, where neither side owns it: the
 * launcher asks the dynamic loader for a program's libraries, the Source
 * view asks objdump for a disassembly. */
#ifndef PROFIL_RUNCMD_H
#define PROFIL_RUNCMD_H

#include <stdbool.h>
#include <sys/types.h>

/* Start ARGV[0] (looked up in PATH when SEARCH) with its standard output
 * on a pipe and its input and errors on /dev/null.  Returns the pipe's
 * reading end (close-on-exec) with *PID set, or -1 when it cannot start.
 * The caller closes the pipe and reaps *PID. */
int spawn_reader(char *const argv[], bool search, pid_t *pid);

#endif
