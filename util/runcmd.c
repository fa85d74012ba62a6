#include "config.h"

#include "util/runcmd.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

extern char **environ;

int spawn_reader(char *const argv[], bool search, pid_t *pid)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    int r = search ? posix_spawnp(pid, argv[0], &fa, NULL, argv, environ)
                   : posix_spawn(pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (r != 0) {
        close(pipefd[0]);
        return -1;
    }
    return pipefd[0];
}
