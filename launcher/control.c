#include "config.h"

#include "launcher/control.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A FIFO of --control: its name, whether profil made it, its read end and
 * the write end profil keeps so that writers coming and going never leave
 * it at end of file (a poll that reports POLLHUP for ever). */
struct control_fifo {
    char *path;
    bool made;
    int fd;
    int keep_fd;
};

struct control_conn {
    int fd; /* -1: a free slot */
};

struct control {
    struct control_fifo in, ack;
    char buf[CONTROL_LINE_MAX];
    size_t len;
    bool skipping; /* the rest of a line too long to be a command */
    int listen_fd;
    char env[96]; /* PROFIL_CONTROL=@NAME, once the socket is made */
    struct control_conn conns[CONTROL_MAX_CONNS];
    struct clockdrv *d;
    struct session *s;
    int (*save)(void *arg, struct session *s, char **cause);
    void *save_arg;
};

enum control_cmd control_parse(const char *line, const char **arg)
{
    static const struct {
        const char *word;
        enum control_cmd cmd;
    } words[] = {
        {"enable", CONTROL_ENABLE},     {"disable", CONTROL_DISABLE}, {"clear", CONTROL_CLEAR},
        {"snapshot", CONTROL_SNAPSHOT}, {"ping", CONTROL_PING},
    };
    *arg = NULL;
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        n--;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strlen(words[i].word) == n && strncmp(line, words[i].word, n) == 0)
            return words[i].cmd;
    }
    if (n > 5 && strncmp(line, "mark", 4) == 0 && (line[4] == ' ' || line[4] == '\t')) {
        const char *text = line + 5;
        while (*text == ' ' || *text == '\t')
            text++;
        *arg = text; /* ends at its trailing blanks: the caller cuts at N */
        return CONTROL_MARK;
    }
    return CONTROL_BAD;
}

/* Why the FIFO PATH of user UID is refused (owned). */
static char *control_foreign(const char *path, uid_t uid)
{
    return xasprintf("--control: %s belongs to another user (uid %u): refusing a FIFO that "
                     "another user made (give a new name: profil makes it)",
                     path, (unsigned)uid);
}

/* Whether PATH may serve as a FIFO: one of this user's, or nothing yet.  A
 * FIFO another user made (in /tmp, say) would let that user command the
 * run and read its replies.  0, or -1 with *CAUSE. */
static int control_check_one(const char *path, char **cause)
{
    struct stat st;
    if (*path == '\0') {
        *cause = xstrdup("--control: the FIFO's name is empty");
        return -1;
    }
    if (lstat(path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        *cause = xasprintf("--control: %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISFIFO(st.st_mode)) {
        *cause = xasprintf("--control: %s is not a FIFO (%s): give a FIFO's name, or one that "
                           "does not exist yet (profil makes it)",
                           path,
                           S_ISREG(st.st_mode)   ? "a regular file"
                           : S_ISDIR(st.st_mode) ? "a directory"
                           : S_ISLNK(st.st_mode) ? "a symbolic link"
                                                 : "not a FIFO");
        return -1;
    }
    if (st.st_uid != geteuid()) {
        *cause = control_foreign(path, st.st_uid);
        return -1;
    }
    return 0;
}

/* SPEC split at its comma: *IN and *ACK (NULL when none), owned. */
static void control_split(const char *spec, char **in, char **ack)
{
    const char *comma = strchr(spec, ',');
    *in = comma ? xstrndup(spec, (size_t)(comma - spec)) : xstrdup(spec);
    *ack = comma ? xstrdup(comma + 1) : NULL;
}

int control_check(const char *spec, char **cause)
{
    char *in, *ack;
    control_split(spec, &in, &ack);
    int r = control_check_one(in, cause);
    if (r == 0 && ack != NULL)
        r = control_check_one(ack, cause);
    free(in);
    free(ack);
    return r;
}

/* Open F's FIFO at PATH, made when missing: non-blocking, with a write end
 * kept.  0, or -1 with *CAUSE. */
static int control_fifo_open(struct control_fifo *f, char *path, char **cause)
{
    f->path = path;
    f->fd = f->keep_fd = -1;
    if (control_check_one(path, cause) < 0)
        return -1;
    /* 0600 whatever the umask: only this user may command the run. */
    mode_t mask = umask(077);
    int made = mkfifo(path, 0600);
    int err = errno;
    umask(mask);
    if (made == 0)
        f->made = true;
    else if (err != EEXIST) {
        *cause = xasprintf("--control: cannot make the FIFO %s: %s", path, strerror(err));
        return -1;
    }
    /* O_NOFOLLOW: the name was checked to be a FIFO; a link put there since is not. */
    f->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (f->fd >= 0)
        f->keep_fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (f->fd < 0 || f->keep_fd < 0 || fstat(f->fd, &st) < 0 || !S_ISFIFO(st.st_mode)) {
        *cause = xasprintf("--control: cannot open the FIFO %s: %s", path,
                           f->fd >= 0 && f->keep_fd >= 0 ? "not a FIFO" : strerror(errno));
        return -1;
    }
    if (st.st_uid != geteuid()) { /* put there since it was checked */
        *cause = control_foreign(path, st.st_uid);
        return -1;
    }
    return 0;
}

static void control_fifo_close(struct control_fifo *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->keep_fd >= 0)
        close(f->keep_fd);
    if (f->made)
        unlink(f->path);
    free(f->path);
    *f = (struct control_fifo){.fd = -1, .keep_fd = -1};
}

/* The program's channel: a listening SOCK_SEQPACKET socket with an abstract
 * name (nothing in the file system to leave behind), which only processes
 * of this user may use (control_accept checks), named in PROFIL_CONTROL. */
static int control_listen(struct control *c, char **cause)
{
    uint64_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd = (uint64_t)getpid() * 2654435761u ^ (uint64_t)(uintptr_t)c;
    char name[64];
    snprintf(name, sizeof name, "profil-%ld-%016llx", (long)getpid(), (unsigned long long)rnd);
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    memcpy(sun.sun_path + 1, name, strlen(name)); /* sun_path[0] = 0: abstract */
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    c->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->listen_fd < 0 || bind(c->listen_fd, (struct sockaddr *)&sun, len) < 0 ||
        listen(c->listen_fd, 16) < 0) {
        *cause = xasprintf("cannot make the program's control socket: %s", strerror(errno));
        return -1;
    }
    snprintf(c->env, sizeof c->env, "%s=@%s", CONTROL_ENV, name);
    return 0;
}

const char *control_env(const struct control *c)
{
    return c != NULL && c->env[0] != '\0' ? c->env : NULL;
}

struct control *control_open(const char *spec, char **cause)
{
    struct control *c = xcalloc(1, sizeof *c);
    c->in = c->ack = (struct control_fifo){.fd = -1, .keep_fd = -1};
    c->listen_fd = -1;
    for (size_t i = 0; i < CONTROL_MAX_CONNS; i++)
        c->conns[i].fd = -1;
    if (spec != NULL) {
        char *in, *ack;
        control_split(spec, &in, &ack);
        if (control_fifo_open(&c->in, in, cause) < 0 ||
            (ack != NULL && control_fifo_open(&c->ack, ack, cause) < 0)) {
            if (c->ack.path == NULL)
                free(ack);
            control_free(c);
            return NULL;
        }
    }
    if (control_listen(c, cause) < 0) {
        control_free(c);
        return NULL;
    }
    return c;
}

void control_bind(struct control *c, struct clockdrv *d, struct session *s,
                  int (*save)(void *arg, struct session *s, char **cause), void *save_arg)
{
    c->d = d;
    c->s = s;
    c->save = save;
    c->save_arg = save_arg;
}

size_t control_fds(struct control *c, struct pollfd *pfd, size_t max)
{
    size_t n = 0;
    if (c->in.fd >= 0 && n < max)
        pfd[n++] = (struct pollfd){c->in.fd, POLLIN, 0};
    if (c->listen_fd >= 0 && n < max)
        pfd[n++] = (struct pollfd){c->listen_fd, POLLIN, 0};
    for (size_t i = 0; i < CONTROL_MAX_CONNS && n < max; i++) {
        if (c->conns[i].fd >= 0)
            pfd[n++] = (struct pollfd){c->conns[i].fd, POLLIN, 0};
    }
    return n;
}

/* Obey CMD (ARG: a mark's text, LEN bytes), said by WHO; MSG gets what was
 * done; returns the CONTROL_* bits, and *FAILED for an error to reply. */
static int control_do(struct control *c, enum control_cmd cmd, const char *arg, size_t len,
                      const char *who, char *msg, size_t size, bool *failed)
{
    *failed = false;
    bool live = c->d != NULL && !c->d->ended;
    switch (cmd) {
    case CONTROL_PING: return 0;
    case CONTROL_ENABLE:
    case CONTROL_DISABLE:
        if (!live) {
            snprintf(msg, size, "%s: the program has ended: no clock to %s", who,
                     cmd == CONTROL_ENABLE ? "start" : "pause");
            *failed = true;
            return CONTROL_REDRAW;
        }
        clockdrv_pause(c->d, cmd == CONTROL_DISABLE);
        snprintf(msg, size, "%s: %s", who,
                 cmd == CONTROL_DISABLE ? "clock paused: the program runs unsampled"
                                        : "clock running");
        return CONTROL_REDRAW;
    case CONTROL_CLEAR:
        if (c->s != NULL)
            session_clear(c->s);
        snprintf(msg, size, "%s: counters cleared", who);
        return CONTROL_REDRAW;
    case CONTROL_SNAPSHOT: {
        char *cause = NULL;
        if (c->save == NULL || c->s == NULL) {
            snprintf(msg, size, "%s: snapshot: nowhere to save", who);
            *failed = true;
        } else if (c->save(c->save_arg, c->s, &cause) < 0) {
            snprintf(msg, size, "%s: snapshot: %s", who, cause ? cause : "cannot save");
            *failed = true;
        } else {
            snprintf(msg, size, "%s: snapshot saved (%llu samples)", who,
                     (unsigned long long)session_run_counters(c->s).total);
        }
        free(cause);
        return CONTROL_REDRAW | CONTROL_SAY;
    }
    case CONTROL_MARK: {
        if (c->s == NULL)
            return 0;
        char *text = xstrndup(arg, len);
        double t = (double)(clockdrv_now_ns() - c->s->start_ns) / 1e9;
        if (c->s->duration_s > 0 && t > c->s->duration_s)
            t = c->s->duration_s; /* the program has ended: its file's reader wants it within */
        if (session_mark_add(c->s, t, text) < 0) {
            snprintf(msg, size, "%s: too many marks: '%s' not kept", who, text);
            *failed = true;
        } else {
            snprintf(msg, size, "%s: mark '%s' at %.3f s", who, c->s->marks[c->s->nmarks - 1].text,
                     t);
        }
        free(text);
        return CONTROL_REDRAW;
    }
    case CONTROL_BAD: break;
    }
    *failed = true;
    return CONTROL_REDRAW | CONTROL_SAY;
}

/* One command line from WHO: obeyed, or an unknown one said in MSG. */
static int control_line(struct control *c, const char *line, const char *who, char *msg,
                        size_t size, bool *failed)
{
    const char *arg;
    enum control_cmd cmd = control_parse(line, &arg);
    if (cmd == CONTROL_BAD) {
        char shown[64];
        snprintf(shown, sizeof shown, "%s", line);
        for (char *p = shown; *p != '\0'; p++)
            *p = (unsigned char)*p < 32 || *p == 127 ? '?' : *p;
        snprintf(msg, size,
                 "%s: unknown command '%s' (enable, disable, clear, snapshot, mark TEXT)", who,
                 shown);
        *failed = true;
        return CONTROL_REDRAW | CONTROL_SAY;
    }
    size_t len = 0;
    if (arg != NULL) {
        len = strlen(arg);
        while (len > 0 && (arg[len - 1] == ' ' || arg[len - 1] == '\t' || arg[len - 1] == '\r'))
            len--;
    }
    return control_do(c, cmd, arg, len, who, msg, size, failed);
}

/* Tell whoever waits on the ACK FIFO that a command was done, as perf does. */
static void control_ack(struct control *c)
{
    if (c->ack.keep_fd >= 0) {
        ssize_t w = write(c->ack.keep_fd, "ack\n", 4);
        (void)w; /* nobody reads it, and it is full: they will not miss one */
    }
}

/* Read the FIFO: every whole line a command. */
static int control_read_fifo(struct control *c, char *msg, size_t size)
{
    int r = 0;
    for (;;) {
        ssize_t n = read(c->in.fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n <= 0)
            return r; /* EAGAIN; EOF cannot happen while profil holds a write end */
        c->len += (size_t)n;
        char *start = c->buf, *nl;
        while ((nl = memchr(start, '\n', c->len - (size_t)(start - c->buf))) != NULL) {
            *nl = '\0';
            bool failed;
            if (c->skipping)
                c->skipping = false;
            else if (*start != '\0') {
                r |= control_line(c, start, "control", msg, size, &failed);
                control_ack(c);
            }
            start = nl + 1;
        }
        c->len -= (size_t)(start - c->buf);
        memmove(c->buf, start, c->len);
        if (c->len == sizeof c->buf) {
            if (!c->skipping) {
                snprintf(msg, size, "control: a line of more than %d bytes: ignored",
                         CONTROL_LINE_MAX);
                r |= CONTROL_REDRAW | CONTROL_SAY;
            }
            c->skipping = true;
            c->len = 0;
        }
    }
}

/* A message from the program's library: one command, answered "ok" or
 * "error: ..." once it has taken effect.  After a NUL, "tid=TID at=NS":
 * the thread that waits for the answer, and since when. */
static int control_read_conn(struct control *c, struct control_conn *k, char *msg, size_t size)
{
    char buf[CONTROL_LINE_MAX + 1];
    int r = 0;
    for (;;) {
        ssize_t n = recv(k->fd, buf, sizeof buf - 1, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return r;
        if (n <= 0) {
            close(k->fd);
            k->fd = -1;
            return r;
        }
        buf[n] = '\0';
        char *nl = memchr(buf, '\n', (size_t)n);
        if (nl != NULL)
            *nl = '\0';
        size_t cmd_len = strlen(buf);
        int tid = 0;
        unsigned long long at = 0;
        if (cmd_len < (size_t)n && sscanf(buf + cmd_len + 1, "tid=%d at=%llu", &tid, &at) != 2)
            tid = 0;
        bool failed;
        r |= control_line(c, buf, "the program", msg, size, &failed);
        if (tid > 0 && c->d != NULL)
            clockdrv_hush(c->d, tid, at);
        char reply[200];
        int len =
            snprintf(reply, sizeof reply, "%s%s", failed ? "error: " : "ok", failed ? msg : "");
        if (len >= (int)sizeof reply)
            len = (int)sizeof reply - 1;
        send(k->fd, reply, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

/* A process of the program connects: kept when it is this user's, and its
 * first command read at once (it came with the connection, and the program
 * waits for it: not after the driver's next drain). */
static int control_accept(struct control *c, char *msg, size_t size)
{
    int r = 0;
    for (;;) {
        int fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return r;
        struct ucred cred;
        socklen_t len = sizeof cred;
        size_t i = 0;
        while (i < CONTROL_MAX_CONNS && c->conns[i].fd >= 0)
            i++;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != getuid() ||
            i == CONTROL_MAX_CONNS) {
            close(fd); /* its library takes that as "not under profil" */
            continue;
        }
        c->conns[i].fd = fd;
        r |= control_read_conn(c, &c->conns[i], msg, size);
    }
}

int control_ready(struct control *c, const struct pollfd *pfd, size_t n, char *msg, size_t size)
{
    int r = 0;
    for (size_t i = 0; i < n; i++) {
        if (pfd[i].revents == 0)
            continue;
        if (pfd[i].fd == c->in.fd) {
            r |= control_read_fifo(c, msg, size);
        } else if (pfd[i].fd == c->listen_fd) {
            r |= control_accept(c, msg, size);
        } else {
            for (size_t k = 0; k < CONTROL_MAX_CONNS; k++) {
                if (c->conns[k].fd == pfd[i].fd)
                    r |= control_read_conn(c, &c->conns[k], msg, size);
            }
        }
    }
    return r;
}

void control_free(struct control *c)
{
    if (c == NULL)
        return;
    control_fifo_close(&c->in);
    control_fifo_close(&c->ack);
    if (c->listen_fd >= 0)
        close(c->listen_fd);
    for (size_t i = 0; i < CONTROL_MAX_CONNS; i++) {
        if (c->conns[i].fd >= 0)
            close(c->conns[i].fd);
    }
    free(c);
}
