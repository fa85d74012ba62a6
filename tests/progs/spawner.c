/* spawner.c - a parent that runs two other programs, one after the other,
 * and works a little itself: profil must count each child's own code as
 * its Program and keep each one's exit status.  Usage: spawner PROG1 PROG2
 * (each run without arguments). */
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

static volatile uint64_t sink;

/* The parent's own work. */
__attribute__((noinline)) static void parent_work(long iters)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: spawner PROG1 PROG2\n");
        return 2;
    }
    parent_work(100000000L);
    for (int i = 1; i <= 2; i++) {
        pid_t pid;
        char *args[] = {argv[i], NULL};
        int st;
        if (posix_spawn(&pid, argv[i], NULL, NULL, args, environ) != 0 ||
            waitpid(pid, &st, 0) != pid) {
            perror(argv[i]);
            return 1;
        }
        printf("spawner: %s exited %d\n", argv[i], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    return 0;
}
