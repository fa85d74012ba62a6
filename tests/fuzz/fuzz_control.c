/* libFuzzer target for the commands profil takes while a program runs
 * (launcher/control.c, docs/control.md): the input arrives on the control
 * FIFO, written in pieces between two of profil's reads, and each of its
 * lines is also sent as one message on the program's socket, as
 * libprofilctl sends a command.  Commands act on a session (clear, mark,
 * snapshot, which must save a file that reads back); what profil says of
 * each, on the status line or in its answer to the program, is one line. */
#include "config.h"

#include "launcher/control.h"
#include "session/session.h"
#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How much of the input the FIFO gets at a time, and the most lines sent
 * on the socket. */
#define FUZZ_CONTROL_PIECE 1000
#define FUZZ_CONTROL_LINES 64

static int fuzz_control_snapshots;

/* What a snapshot does: save the session, as the s key does. */
static int fuzz_control_save(void *arg, struct session *s, char **cause)
{
    (void)arg, (void)cause;
    fuzz_save_reads_back(s, "fuzz_control");
    fuzz_control_snapshots++;
    return 0;
}

/* Let profil read whatever its channels hold; returns how often it had
 * something to say. */
static int fuzz_control_ready(struct control *c)
{
    struct pollfd pfd[CONTROL_MAX_FDS];
    size_t n = control_fds(c, pfd, CONTROL_MAX_FDS);
    for (size_t i = 0; i < n; i++)
        pfd[i].revents = POLLIN; /* every channel is non-blocking: nothing there is EAGAIN */
    char msg[256] = "";
    int r = control_ready(c, pfd, n, msg, sizeof msg);
    fuzz_one_line("what profil says of a command", msg);
    return (r & CONTROL_SAY) != 0;
}

/* Connect to the program's channel as libprofilctl does: -1 when it cannot. */
static int fuzz_control_connect(const struct control *c)
{
    const char *name = control_env(c);
    if (name != NULL)
        name += strlen(CONTROL_ENV "=");
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    if (name == NULL || name[0] != '@' || strlen(name) > sizeof sun.sun_path)
        return -1;
    memcpy(sun.sun_path + 1, name + 1, strlen(name) - 1);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, len) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *spec, *fifo;
    if (spec == NULL) {
        fifo = fuzz_path("ctl");
        spec = fuzz_path("ctl,ack"); /* FIFO,ACK: the ACK FIFO beside it */
    }
    char *cause = NULL;
    struct control *c = control_open(spec, &cause);
    if (c == NULL) {
        fprintf(stderr, "fuzz_control: %s\n", cause);
        abort(); /* the target cannot work, whatever the input */
    }
    struct session *s = fuzz_session();
    fuzz_control_snapshots = 0;
    control_bind(c, NULL, s, fuzz_control_save, NULL); /* no clock: the program has ended */
    int said = 0;

    /* The FIFO, in pieces: a line may straddle two reads. */
    int w = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (w < 0)
        abort();
    for (size_t at = 0; at < size; at += FUZZ_CONTROL_PIECE) {
        size_t n = size - at < FUZZ_CONTROL_PIECE ? size - at : FUZZ_CONTROL_PIECE;
        if (write(w, data + at, n) != (ssize_t)n)
            abort();
        said += fuzz_control_ready(c);
    }
    close(w);

    /* The program's socket: each line one message, each answered. */
    int k = fuzz_control_connect(c);
    if (k < 0)
        abort();
    said += fuzz_control_ready(c); /* the connection is accepted */
    const uint8_t *p = data, *end = data + size;
    for (int lines = 0; p < end && lines < FUZZ_CONTROL_LINES; lines++) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl != NULL ? nl : end) - p);
        if (send(k, p, n, MSG_NOSIGNAL) != (ssize_t)n)
            break; /* a message longer than the socket takes */
        said += fuzz_control_ready(c);
        char reply[512];
        ssize_t r = recv(k, reply, sizeof reply - 1, MSG_DONTWAIT);
        if (r > 0) {
            reply[r] = '\0';
            fuzz_one_line("profil's answer to the program", reply);
            if (strncmp(reply, "ok", 2) != 0 && strncmp(reply, "error: ", 7) != 0) {
                fprintf(stderr, "fuzz_control: an answer neither ok nor error: %s\n", reply);
                abort();
            }
        }
        p = nl != NULL ? nl + 1 : end;
    }
    close(k);
    fuzz_set_verdict("marks: %zu, snapshots: %d, said: %d", s->nmarks, fuzz_control_snapshots,
                     said);
    control_free(c);
    session_free(s);
    return 0;
}
