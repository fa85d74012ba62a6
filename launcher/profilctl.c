/*
 * libprofilctl: profil_on, profil_off and profil_mark (profil/control.h).
 * The program's side of profil's control channel (launcher/control.c):
 * PROFIL_CONTROL names a socket, read once, on the first call; each command
 * is one message, and the call waits for profil's answer, sent once the
 * command has taken effect.  After the command, a NUL and "tid=TID at=NS"
 * say which thread waits and since when (CLOCK_MONOTONIC), so that profil
 * does not count the wait as the program's I/O; a profil that does not
 * know them reads the command up to the NUL.  Without PROFIL_CONTROL every
 * call is a load, a compare and a return.  Built without profil's flags and libraries: a
 * program links it and nothing else of profil's.
 */
#include "profil/control.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* How long a call waits for profil's answer before it goes on without. */
#define PROFILCTL_WAIT_MS 5000

enum { PROFILCTL_UNKNOWN = 0, PROFILCTL_ABSENT, PROFILCTL_PRESENT };

static int profilctl_state; /* read without the lock: one load on the way out */
static int profilctl_fd = -1;
static pthread_mutex_t profilctl_lock = PTHREAD_MUTEX_INITIALIZER;
static int profilctl_atfork_done;

static void profilctl_prepare(void)
{
    pthread_mutex_lock(&profilctl_lock);
}

static void profilctl_parent(void)
{
    pthread_mutex_unlock(&profilctl_lock);
}

/* A child of fork has its own connection to make: the parent's answers are
 * the parent's. */
static void profilctl_child(void)
{
    if (profilctl_fd >= 0)
        close(profilctl_fd);
    profilctl_fd = -1;
    __atomic_store_n(&profilctl_state, PROFILCTL_UNKNOWN, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&profilctl_lock);
}

/* Connect to the socket PROFIL_CONTROL names ("@NAME": an abstract one). */
static int profilctl_connect(void)
{
    const char *name = getenv("PROFIL_CONTROL");
    if (name == NULL || *name == '\0')
        return -1;
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    size_t n = strlen(name);
    socklen_t len;
    if (name[0] == '@') {
        if (n > sizeof sun.sun_path)
            return -1;
        memcpy(sun.sun_path + 1, name + 1, n - 1);
        len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    } else {
        if (n >= sizeof sun.sun_path)
            return -1;
        memcpy(sun.sun_path, name, n);
        len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    }
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sun, len) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static long profilctl_ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Send MSG (LEN bytes) and wait for the answer: 0, or -1 when the channel
 * is gone or profil did not answer in time. */
static int profilctl_ask(const char *msg, size_t len)
{
    if (send(profilctl_fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len)
        return -1;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        long left = PROFILCTL_WAIT_MS - profilctl_ms_since(&t0);
        struct pollfd pfd = {profilctl_fd, POLLIN, 0};
        int r = poll(&pfd, 1, left > 0 ? (int)left : 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        char reply[256];
        ssize_t n = recv(profilctl_fd, reply, sizeof reply, 0);
        if (n < 0 && errno == EINTR)
            continue;
        return n > 0 ? 0 : -1;
    }
}

/* Say COMMAND (and TEXT, when not NULL) to profil, and wait until done. */
static void profilctl_say(const char *command, const char *text)
{
    int saved = errno; /* the program's errno is its own */
    pthread_mutex_lock(&profilctl_lock);
    if (profilctl_state == PROFILCTL_UNKNOWN) {
        if (!profilctl_atfork_done) {
            pthread_atfork(profilctl_prepare, profilctl_parent, profilctl_child);
            profilctl_atfork_done = 1;
        }
        profilctl_fd = profilctl_connect();
        __atomic_store_n(&profilctl_state, profilctl_fd >= 0 ? PROFILCTL_PRESENT : PROFILCTL_ABSENT,
                         __ATOMIC_RELAXED);
    }
    if (profilctl_fd >= 0) {
        char msg[384];
        size_t len =
            (size_t)snprintf(msg, 320, "%s%s%.256s", command, text ? " " : "", text ? text : "");
        if (len >= 320)
            len = 319;
        for (size_t i = 0; i < len; i++) {
            if (msg[i] == '\n' || msg[i] == '\r')
                msg[i] = ' '; /* one command, one line */
        }
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        len += 1 + (size_t)snprintf(msg + len + 1, sizeof msg - len - 1, "tid=%ld at=%llu",
                                    (long)syscall(SYS_gettid),
                                    (unsigned long long)at.tv_sec * 1000000000ull +
                                        (unsigned long long)at.tv_nsec);
        if (profilctl_ask(msg, len) < 0) {
            /* profil has gone, or is slow: a stale answer must not answer
             * the next call, so the next call connects anew. */
            close(profilctl_fd);
            profilctl_fd = -1;
            __atomic_store_n(&profilctl_state, PROFILCTL_UNKNOWN, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&profilctl_lock);
    errno = saved;
}

void profil_on(void)
{
    if (__builtin_expect(__atomic_load_n(&profilctl_state, __ATOMIC_RELAXED) == PROFILCTL_ABSENT,
                         1))
        return;
    profilctl_say("enable", NULL);
}

void profil_off(void)
{
    if (__builtin_expect(__atomic_load_n(&profilctl_state, __ATOMIC_RELAXED) == PROFILCTL_ABSENT,
                         1))
        return;
    profilctl_say("disable", NULL);
}

void profil_mark(const char *text)
{
    if (__builtin_expect(__atomic_load_n(&profilctl_state, __ATOMIC_RELAXED) == PROFILCTL_ABSENT,
                         1))
        return;
    profilctl_say("mark", text != NULL && *text != '\0' ? text : "-");
}
