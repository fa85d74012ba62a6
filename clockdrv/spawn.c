#include "config.h"

#include "clockdrv/spawn.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child was doing when it failed, sent up the error pipe. */
enum spawn_stage { STAGE_STDIN = 1, STAGE_STDOUT, STAGE_STDERR, STAGE_TTY, STAGE_EXEC };

struct spawn_error {
    int stage;
    int err;
};

/* In the child: report STAGE's errno to the parent and die. */
static void __attribute__((noreturn)) spawn_child_fail(int fd, int stage)
{
    struct spawn_error e = {stage, errno};
    ssize_t r = write(fd, &e, sizeof e);
    (void)r;
    _exit(127);
}

static void spawn_child_redirect(int fd, const char *path, int flags, int target, int stage)
{
    int f = open(path, flags | O_CLOEXEC, 0666);
    if (f < 0 || dup2(f, target) < 0)
        spawn_child_fail(fd, stage);
    close(f);
}

/* The child's side: become what the program expects, wait, exec.  PARENT
 * is profil's pid, taken before the fork. */
static void __attribute__((noreturn))
spawn_child(int go_fd, int err_fd, const struct launch *l, pid_t parent)
{
    /* A program that profil started does not outlive it, whatever the
     * driver: the kernel kills it when profil dies, even by SIGKILL or a
     * crash, as PTRACE_O_EXITKILL does under ptrace.  The death signal
     * survives exec (not the exec of a setuid or setgid program, nor one
     * with file capabilities).  profil may have died before prctl: then
     * the parent is another process already, and nothing is run. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
        _exit(127);
    static const int reset[] = {SIGINT,  SIGQUIT, SIGPIPE,  SIGTSTP, SIGTTIN,
                                SIGTTOU, SIGCHLD, SIGWINCH, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        signal(reset[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (l->tty_fd >= 0) {
        if (setsid() < 0 || ioctl(l->tty_fd, TIOCSCTTY, 0) < 0)
            spawn_child_fail(err_fd, STAGE_TTY);
        for (int t = 0; t < 3; t++) {
            if (dup2(l->tty_fd, t) < 0)
                spawn_child_fail(err_fd, STAGE_TTY);
        }
        if (l->tty_fd > 2)
            close(l->tty_fd);
    } else if (l->own_session && setsid() < 0) {
        spawn_child_fail(err_fd, STAGE_TTY);
    }
    /* Wait before anything can fail: a child that died now would vanish
     * under the driver attaching to it, and hide the real error. */
    char c;
    ssize_t r;
    while ((r = read(go_fd, &c, 1)) < 0 && errno == EINTR)
        ;
    if (r != 1)
        _exit(127); /* profil went away: run nothing */
    close(go_fd);
    if (l->stdin_path != NULL)
        spawn_child_redirect(err_fd, l->stdin_path, O_RDONLY, 0, STAGE_STDIN);
    if (l->stdout_path != NULL)
        spawn_child_redirect(err_fd, l->stdout_path,
                             O_WRONLY | O_CREAT | (l->stdout_append ? O_APPEND : O_TRUNC), 1,
                             STAGE_STDOUT);
    if (l->stderr_path != NULL)
        spawn_child_redirect(err_fd, l->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 2, STAGE_STDERR);
    execve(l->path, l->argv, l->envp != NULL ? l->envp : environ);
    spawn_child_fail(err_fd, STAGE_EXEC);
}

int spawn_prepare(struct spawn *sp, const struct launch *l, char **cause)
{
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) < 0) {
        *cause = xasprintf("cannot create a pipe: %s", strerror(errno));
        return -errno;
    }
    if (pipe2(err, O_CLOEXEC) < 0) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        *cause = xasprintf("cannot create a pipe: %s", strerror(e));
        return -e;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        close(err[0]);
        close(err[1]);
        *cause = xasprintf("cannot start the program: %s", strerror(e));
        return -e;
    }
    if (pid == 0) {
        close(go[1]);
        close(err[0]);
        spawn_child(go[0], err[1], l, parent);
    }
    close(go[0]);
    close(err[1]);
    sp->pid = pid;
    sp->go_fd = go[1];
    sp->err_fd = err[0];
    return 0;
}

int spawn_go(struct spawn *sp, const struct launch *l, char **cause)
{
    char c = 'g';
    ssize_t r;
    while ((r = write(sp->go_fd, &c, 1)) < 0 && errno == EINTR)
        ;
    close(sp->go_fd);
    sp->go_fd = -1;
    struct spawn_error e;
    while ((r = read(sp->err_fd, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(sp->err_fd);
    sp->err_fd = -1;
    if (r == 0)
        return 0; /* the pipe closed on exec */
    if (r != (ssize_t)sizeof e)
        e = (struct spawn_error){STAGE_EXEC, EIO};
    static const char *what[] = {"",
                                 "cannot redirect standard input from",
                                 "cannot redirect standard output to",
                                 "cannot redirect standard error to",
                                 "cannot give the program its terminal",
                                 "cannot execute"};
    const char *target = e.stage == STAGE_STDIN    ? l->stdin_path
                         : e.stage == STAGE_STDOUT ? l->stdout_path
                         : e.stage == STAGE_STDERR ? l->stderr_path
                         : e.stage == STAGE_EXEC   ? l->path
                                                   : "pty";
    int stage = e.stage >= STAGE_STDIN && e.stage <= STAGE_EXEC ? e.stage : STAGE_EXEC;
    *cause = xasprintf("%s %s: %s", what[stage], target ? target : "?", strerror(e.err));
    waitpid(sp->pid, NULL, 0);
    sp->pid = -1;
    return -(e.err ? e.err : EIO);
}

void spawn_abort(struct spawn *sp)
{
    if (sp->go_fd >= 0)
        close(sp->go_fd);
    if (sp->err_fd >= 0)
        close(sp->err_fd);
    sp->go_fd = sp->err_fd = -1;
    if (sp->pid > 0) {
        kill(sp->pid, SIGKILL);
        waitpid(sp->pid, NULL, 0);
        sp->pid = -1;
    }
}
