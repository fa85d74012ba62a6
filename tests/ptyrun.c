/*
 * ptyrun.c - run a command on a fresh pseudo-terminal for end-to-end tests.
 *
 * usage: ptyrun [-t TIMEOUT_S] [-i INPUT] [-w TEXT] [-k SECONDS:KEY ...] -- command args...
 *
 * The command becomes a session leader with the pty as its controlling
 * terminal (80x24, TERM=xterm).  Everything it writes to the pty, including
 * the line discipline's echo of our input, is copied raw to stdout.  INPUT
 * (with C escapes) is typed once the command has printed something or after
 * 200 ms, or with -w once TEXT has appeared (a terminal program that is not
 * reading yet gets it in canonical mode, where a ^D becomes a NUL byte by
 * the time it reads raw).  -k types a key (^C, ^D, ^\, EOF, ...) or sends a
 * signal (INT, SIGTERM, 15, ...) to the pty's foreground process group at a
 * given time, counted from the start, or with -w from the moment TEXT first
 * appears in the output (a slow start then cannot make a key come too early;
 * a TEXT that never appears sends no keys).
 * Exits with the command's status (128+N if killed by signal N), or 124
 * after killing the process group when TIMEOUT_S (default 60) passes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define INPUT_DELAY_S    0.2
#define LINGER_S         1.0
#define POLL_FALLBACK_MS 20

struct key_event {
    double at;
    int byte; /* byte to type, or -1 */
    int sig;  /* signal to send when byte is -1 */
    int done;
};

struct buf {
    char *data;
    size_t len;
    size_t off;
};

/* Print usage to stderr so wrong invocations are easy to diagnose. */
static void usage(void)
{
    fprintf(stderr, "usage: ptyrun [-t TIMEOUT_S] [-i INPUT] [-w TEXT] [-k SECONDS:KEY ...] "
                    "-- command [args...]\n"
                    "  KEY is ^X (control byte), EOF (^D), or a signal name/number\n");
}

/* Monotonic seconds, so wall-clock changes cannot disturb deadlines. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Value of one hex digit, or -1, for decoding \xHH escapes. */
static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode C escapes into a new buffer; NUL bytes are allowed, hence *len. */
static char *unescape(const char *s, size_t *len)
{
    char *out = malloc(strlen(s) + 1);
    size_t n = 0;
    int v, d, i;

    if (out == NULL)
        return NULL;
    while (*s != '\0') {
        if (*s != '\\' || s[1] == '\0') {
            out[n++] = *s++;
            continue;
        }
        s++;
        /* The one-letter escapes: \n \t \r \a \b \f \v, and \e for ESC. */
        static const char letters[] = "ntrabfve", bytes[] = "\n\t\r\a\b\f\v\033";
        const char *l = strchr(letters, *s);
        if (l != NULL) { /* *s is not NUL: a backslash at the end is kept above */
            out[n++] = bytes[l - letters];
            s++;
            continue;
        }
        switch (*s) {
        case 'x':
            s++;
            v = 0;
            for (i = 0; i < 2 && (d = hexval((unsigned char)*s)) >= 0; i++, s++)
                v = v * 16 + d;
            if (i == 0)
                out[n++] = 'x'; /* "\x" without digits: keep the x */
            else
                out[n++] = (char)v;
            break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
            v = 0;
            for (i = 0; i < 3 && *s >= '0' && *s <= '7'; i++, s++)
                v = v * 8 + (*s - '0');
            out[n++] = (char)v;
            break;
        default:
            out[n++] = *s++; /* covers \\ and unknown escapes */
            break;
        }
    }
    out[n] = '\0';
    *len = n;
    return out;
}

/* Map "INT", "SIGINT" or "2" to a signal number, or return 0. */
static int parse_signal(const char *s)
{
    const char *abbrev;
    char *end;
    long v;
    int sig;

    if (*s >= '0' && *s <= '9') {
        v = strtol(s, &end, 10);
        return (*end == '\0' && v > 0 && v < NSIG) ? (int)v : 0;
    }
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (sig = 1; sig < NSIG; sig++) {
        abbrev = sigabbrev_np(sig);
        if (abbrev != NULL && strcasecmp(s, abbrev) == 0)
            return sig;
    }
    return 0;
}

/* Parse "SECONDS:KEY" into an event; returns 0 on success. */
static int parse_key(const char *arg, struct key_event *ev)
{
    const char *key;
    char *end;

    ev->at = strtod(arg, &end);
    if (end == arg || *end != ':' || !(ev->at >= 0))
        return -1;
    key = end + 1;
    ev->byte = -1;
    ev->sig = 0;
    ev->done = 0;
    if (key[0] == '^' && key[1] != '\0' && key[2] == '\0') {
        ev->byte = key[1] == '?' ? 0x7f : (key[1] & 0x1f);
        return 0;
    }
    if (strcasecmp(key, "EOF") == 0) {
        ev->byte = 0x04;
        return 0;
    }
    ev->sig = parse_signal(key);
    return ev->sig > 0 ? 0 : -1;
}

/* Append bytes to the pending-input queue in order. */
static int buf_append(struct buf *b, const char *data, size_t len)
{
    char *p;

    if (b->off == b->len)
        b->off = b->len = 0;
    p = realloc(b->data, b->len + len + 1);
    if (p == NULL)
        return -1;
    memcpy(p + b->len, data, len);
    b->data = p;
    b->len += len;
    return 0;
}

/* Write all of buf to fd, retrying short writes; stdout errors are fatal-ish. */
static int write_all(int fd, const char *data, size_t len)
{
    ssize_t w;

    while (len > 0) {
        w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Turn a wait status into a shell-style exit code. */
static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* Milliseconds until deadline, clamped for poll(); used to merge timers. */
static int ms_until(double deadline, double now, int cur)
{
    double ms = (deadline - now) * 1000.0 + 1.0;
    int v;

    if (ms < 0)
        ms = 0;
    v = ms > 1e9 ? 1000000000 : (int)ms;
    return (cur < 0 || v < cur) ? v : cur;
}

/* Deliver a signal to the pty's foreground group, falling back to the child's. */
static void send_signal(int master, pid_t child, int sig)
{
    pid_t fg = tcgetpgrp(master);

    if (fg <= 0 || kill(-fg, sig) != 0)
        kill(-child, sig);
}

/* Parse options, run the command on a pty, and relay its output and status. */
int main(int argc, char **argv)
{
    struct winsize ws = {.ws_row = 24, .ws_col = 80};
    struct key_event *keys = NULL;
    struct buf pending = {NULL, 0, 0};
    char *input = NULL, *wait_text = NULL, *seen = NULL;
    size_t input_len = 0, nkeys = 0, i, wait_len = 0, nseen = 0;
    int input_sent = 0, got_output = 0, pty_open = 1, reaped = 0;
    int status = 0, ret = 1, timeout_hit = 0;
    double timeout = 60.0, start, now, reaped_at = 0, last_output = 0;
    double origin = -1; /* when the keys' times count from; -1 before -w's TEXT */
    int master = -1, pidfd = -1, opt, flags;
    pid_t child;
    char rbuf[4096];
    char *end;

    while ((opt = getopt(argc, argv, "+t:i:k:w:h")) != -1) {
        switch (opt) {
        case 't':
            timeout = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(timeout > 0)) {
                fprintf(stderr, "ptyrun: bad timeout '%s'\n", optarg);
                goto out;
            }
            break;
        case 'i':
            free(input);
            input = unescape(optarg, &input_len);
            if (input == NULL) {
                perror("ptyrun: malloc");
                goto out;
            }
            break;
        case 'w':
            wait_text = optarg;
            wait_len = strlen(optarg);
            seen = malloc(2 * wait_len + sizeof rbuf);
            if (seen == NULL || wait_len == 0) {
                fprintf(stderr, "ptyrun: bad -w '%s'\n", optarg);
                goto out;
            }
            break;
        case 'k': {
            struct key_event *k = realloc(keys, (nkeys + 1) * sizeof *keys);

            if (k == NULL) {
                perror("ptyrun: realloc");
                goto out;
            }
            keys = k;
            if (parse_key(optarg, &keys[nkeys]) != 0) {
                fprintf(stderr, "ptyrun: bad -k '%s'\n", optarg);
                usage();
                goto out;
            }
            nkeys++;
            break;
        }
        case 'h':
            usage();
            ret = 0;
            goto out;
        default:
            usage();
            ret = 2;
            goto out;
        }
    }
    if (optind >= argc) {
        usage();
        ret = 2;
        goto out;
    }

    fflush(NULL);
    start = now_s();
    if (wait_text == NULL)
        origin = start;
    child = forkpty(&master, NULL, NULL, &ws);
    if (child < 0) {
        perror("ptyrun: forkpty");
        goto out;
    }
    if (child == 0) {
        setenv("TERM", "xterm", 1);
        execvp(argv[optind], &argv[optind]);
        fprintf(stderr, "ptyrun: cannot run %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }

    flags = fcntl(master, F_GETFL);
    fcntl(master, F_SETFL, flags | O_NONBLOCK);
    pidfd = pidfd_open(child, 0);

    for (;;) {
        struct pollfd pfd[2];
        int nfds = 0, tmo = -1, master_idx = -1, pid_idx = -1;

        now = now_s();
        if (!reaped && now - start >= timeout) {
            timeout_hit = 1;
            break;
        }

        /* Queue the -i input once the child has spoken or 200 ms passed,
         * or with -w once its text appeared. */
        if (!input_sent &&
            (wait_text != NULL ? origin >= 0 : got_output || now - start >= INPUT_DELAY_S)) {
            input_sent = 1;
            if (input_len > 0 && buf_append(&pending, input, input_len) != 0) {
                perror("ptyrun: realloc");
                break;
            }
        }
        for (i = 0; i < nkeys; i++) {
            char c;

            if (keys[i].done || origin < 0 || now - origin < keys[i].at)
                continue;
            keys[i].done = 1;
            if (keys[i].byte >= 0) {
                c = (char)keys[i].byte;
                if (buf_append(&pending, &c, 1) != 0)
                    perror("ptyrun: realloc");
            } else if (!reaped) {
                send_signal(master, child, keys[i].sig);
            }
        }

        if (!reaped) {
            int w = waitpid(child, &status, WNOHANG);

            if (w == child) {
                reaped = 1;
                reaped_at = now;
            } else if (w < 0 && errno != EINTR) {
                perror("ptyrun: waitpid");
                break;
            }
        }
        if (reaped && !pty_open)
            break;
        /* A grandchild may hold the pty open: stop once it goes quiet. */
        if (reaped && now - (last_output > reaped_at ? last_output : reaped_at) >= LINGER_S)
            break;

        if (pty_open) {
            pfd[nfds].fd = master;
            pfd[nfds].events = POLLIN;
            if (pending.off < pending.len)
                pfd[nfds].events |= POLLOUT;
            master_idx = nfds++;
        }
        if (!reaped && pidfd >= 0) {
            pfd[nfds].fd = pidfd;
            pfd[nfds].events = POLLIN;
            pid_idx = nfds++;
        }
        if (!reaped) {
            tmo = ms_until(start + timeout, now, tmo);
            if (pidfd < 0)
                tmo = ms_until(now + POLL_FALLBACK_MS / 1000.0, now, tmo);
        } else {
            tmo =
                ms_until((last_output > reaped_at ? last_output : reaped_at) + LINGER_S, now, tmo);
        }
        if (!input_sent && wait_text == NULL)
            tmo = ms_until(start + INPUT_DELAY_S, now, tmo);
        for (i = 0; i < nkeys; i++) {
            if (!keys[i].done && origin >= 0)
                tmo = ms_until(origin + keys[i].at, now, tmo);
        }

        if (poll(pfd, (nfds_t)nfds, tmo) < 0) {
            if (errno == EINTR)
                continue;
            perror("ptyrun: poll");
            break;
        }
        (void)pid_idx; /* pidfd readiness is picked up by waitpid above */

        if (master_idx >= 0 && (pfd[master_idx].revents & POLLOUT)) {
            ssize_t w = write(master, pending.data + pending.off, pending.len - pending.off);

            if (w > 0)
                pending.off += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                pending.off = pending.len; /* pty gone: drop the input */
        }
        if (master_idx >= 0 && (pfd[master_idx].revents & (POLLIN | POLLHUP | POLLERR))) {
            /* Drain everything available, until EAGAIN or EIO. */
            for (;;) {
                ssize_t r = read(master, rbuf, sizeof rbuf);

                if (r > 0) {
                    got_output = 1;
                    last_output = now_s();
                    if (write_all(STDOUT_FILENO, rbuf, (size_t)r) != 0) {
                        /* Nobody reads our stdout: keep draining anyway. */
                    }
                    if (origin < 0) {
                        /* The text may straddle two reads: keep its length
                         * less one of what came before. */
                        memcpy(seen + nseen, rbuf, (size_t)r);
                        nseen += (size_t)r;
                        if (memmem(seen, nseen, wait_text, wait_len) != NULL) {
                            origin = last_output;
                        } else if (nseen >= wait_len) {
                            memmove(seen, seen + nseen - (wait_len - 1), wait_len - 1);
                            nseen = wait_len - 1;
                        }
                    }
                    continue;
                }
                if (r < 0 && errno == EINTR)
                    continue;
                if (r == 0 || (r < 0 && errno != EAGAIN)) {
                    pty_open = 0; /* EIO: every slave fd is closed */
                    pending.off = pending.len;
                }
                break;
            }
        }
    }

    if (timeout_hit) {
        pid_t fg = tcgetpgrp(master);

        if (fg > 0 && fg != child)
            kill(-fg, SIGKILL);
        kill(-child, SIGKILL);
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        fprintf(stderr, "ptyrun: timeout\n");
        ret = 124;
    } else if (reaped) {
        ret = exit_code(status);
    } else {
        /* Loop left on an internal error: do not leave the child behind. */
        kill(-child, SIGKILL);
        waitpid(child, &status, 0);
        ret = 1;
    }

out:
    if (pidfd >= 0)
        close(pidfd);
    if (master >= 0)
        close(master);
    free(pending.data);
    free(input);
    free(seen);
    free(keys);
    return ret;
}
