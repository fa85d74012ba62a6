/* forker.c - the parent works while a forked child execs a shell loop. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_ITERS 400000000L

static volatile uint64_t sink;

/* Burn CPU in the parent while the child runs a different program. */
__attribute__((noinline)) static void parent_work(long iters)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

/* Fork and exec the shell child, work, then reap the child. */
int main(int argc, char **argv)
{
    long iters = DEFAULT_ITERS;
    int status;
    pid_t pid;

    if (argc > 1)
        iters = strtol(argv[1], NULL, 10);
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c",
              "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
              (char *)NULL);
        perror("execl /bin/sh");
        _exit(127);
    }
    printf("forker: child %ld running /bin/sh loop\n", (long)pid);
    fflush(stdout);
    parent_work(iters);
    if (waitpid(pid, &status, 0) < 0) {
        perror("waitpid");
        return 1;
    }
    printf("forker: child exited with status %d\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
