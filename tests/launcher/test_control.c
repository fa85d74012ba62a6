/* The control channel's commands (launcher/control.c) and the marks they
 * put in a session, saved in its metadata and read back (prf/meta.c). */
#include "config.h"

#include "launcher/control.h"
#include "prf/meta.h"
#include "session/limits.h"
#include "session/session.h"
#include "tests/tap.h"
#include "util/xmalloc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void check_parse(const char *line, enum control_cmd want, const char *want_arg)
{
    const char *arg = NULL;
    enum control_cmd got = control_parse(line, &arg);
    is_u64(got, want, "parse '%s'", line);
    if (want_arg != NULL)
        is_str(arg, want_arg, "parse '%s': its text", line);
    else
        ok(arg == NULL, "parse '%s': no text", line);
}

static void test_parse(void)
{
    check_parse("enable", CONTROL_ENABLE, NULL);
    check_parse("disable", CONTROL_DISABLE, NULL);
    check_parse("  clear \r", CONTROL_CLEAR, NULL);
    check_parse("snapshot", CONTROL_SNAPSHOT, NULL);
    check_parse("ping", CONTROL_PING, NULL);
    check_parse("mark warm up", CONTROL_MARK, "warm up");
    check_parse("mark \t x", CONTROL_MARK, "x");
    check_parse("mark", CONTROL_BAD, NULL);
    check_parse("mark   ", CONTROL_BAD, NULL);
    check_parse("marker x", CONTROL_BAD, NULL);
    check_parse("enabled", CONTROL_BAD, NULL);
    check_parse("ENABLE", CONTROL_BAD, NULL);
    check_parse("", CONTROL_BAD, NULL);
}

static void test_marks(void)
{
    struct session *s = session_new_empty();
    ok(session_mark_add(s, 1.5, "warm\nup\x1b") == 0, "a mark goes in");
    is_str(s->marks[0].text, "warm up ", "its control bytes become blanks");
    char *long_text = xmalloc(LIMIT_MARK_TEXT + 100);
    memset(long_text, 'x', LIMIT_MARK_TEXT + 99);
    long_text[LIMIT_MARK_TEXT + 99] = '\0';
    long_text[LIMIT_MARK_TEXT - 1] = '\xc3'; /* a two-byte character across the cut */
    long_text[LIMIT_MARK_TEXT] = '\xa9';
    session_mark_add(s, 2, long_text);
    is_u64(strlen(s->marks[1].text), LIMIT_MARK_TEXT - 1,
           "a long text is cut before the character across the limit");
    free(long_text);
    session_mark_add(s, -1, "before");
    ok(s->marks[2].t_s == 0, "a time before the start is the start");

    /* Saved in the metadata and read back. */
    char *json = meta_to_json(s);
    struct session *r = session_new_empty();
    char *cause = NULL;
    ok(meta_from_json(r, json, &cause) == 0, "the metadata with marks reads back");
    is_u64(r->nmarks, 3, "with its three marks");
    ok(r->nmarks == 3 && r->marks[0].t_s == 1.5 && strcmp(r->marks[0].text, "warm up ") == 0,
       "the first at its time, with its text");
    free(json);
    session_free(r);

    static const char *const bad[] = {
        "{\"marks\": 3}",
        "{\"marks\": [{\"t_s\": \"1\", \"text\": \"a\"}]}",
        "{\"marks\": [{\"t_s\": -1, \"text\": \"a\"}]}",
        "{\"marks\": [{\"t_s\": 1}]}",
        "{\"marks\": [{\"t_s\": 1e999, \"text\": \"a\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = session_new_empty();
        cause = NULL;
        ok(meta_from_json(r, bad[i], &cause) < 0 && cause != NULL && r->nmarks == 0,
           "refused: %s (%s)", bad[i], cause ? cause : "accepted");
        free(cause);
        session_free(r);
    }
    /* One mark over the limit: refused whole, in one line. */
    size_t size = 16 + (size_t)(LIMIT_MARKS + 1) * 24;
    char *many = xmalloc(size), *p = many;
    p += sprintf(p, "{\"marks\":[");
    for (unsigned i = 0; i <= LIMIT_MARKS; i++)
        p += sprintf(p, "%s{\"t_s\":1,\"text\":\"\"}", i ? "," : "");
    sprintf(p, "]}");
    r = session_new_empty();
    cause = NULL;
    ok(meta_from_json(r, many, &cause) < 0 && cause != NULL && strstr(cause, "limit") != NULL,
       "refused: %u marks (%s)", LIMIT_MARKS + 1, cause ? cause : "accepted");
    free(cause);
    free(many);
    session_free(r);

    for (unsigned i = 3; i < LIMIT_MARKS; i++)
        session_mark_add(s, 3, "m");
    ok(session_mark_add(s, 4, "one too many") < 0 && s->nmarks == LIMIT_MARKS,
       "a session keeps at most %u marks", LIMIT_MARKS);
    session_free(s);
}

static void test_fifo(void)
{
    char dir[] = "/tmp/profil-test-control.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        ok(0, "mkdtemp");
        return;
    }
    char *reg = xasprintf("%s/regular", dir), *fifo = xasprintf("%s/ctl", dir);
    char *spec = xasprintf("%s,%s/ack", fifo, dir);
    close(open(reg, O_CREAT | O_WRONLY, 0600));
    char *cause = NULL;
    ok(control_check(reg, &cause) < 0 && cause && strstr(cause, "not a FIFO (a regular file)"),
       "a regular file is refused: %s", cause ? cause : "accepted");
    free(cause);
    cause = NULL;
    ok(control_check(spec, &cause) == 0, "a name not there yet is fine");

    struct control *c = control_open(spec, &cause);
    ok(c != NULL, "the FIFOs open (%s)", cause ? cause : "");
    struct stat st;
    ok(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode) && (st.st_mode & 0777) == 0600,
       "profil made the FIFO, mode 0600");
    ok(control_env(c) != NULL && strncmp(control_env(c), CONTROL_ENV "=@", 16) == 0,
       "the program's channel is named for its environment: %s",
       control_env(c) ? control_env(c) : "(none)");
    ok(getenv(CONTROL_ENV) == NULL, "profil's own environment is left alone");
    struct session *s = session_new_empty();
    control_bind(c, NULL, s, NULL, NULL);
    int w = open(fifo, O_WRONLY | O_NONBLOCK),
        a = open(strchr(spec, ',') + 1, O_RDONLY | O_NONBLOCK);
    const char cmds[] = "mark one\nbogus\nmark two\nmark thr";
    ok(write(w, cmds, sizeof cmds - 1) == (ssize_t)sizeof cmds - 1, "commands written");
    close(w); /* a writer that goes: no end of file for profil */
    struct pollfd pfd[CONTROL_MAX_FDS];
    size_t n = control_fds(c, pfd, CONTROL_MAX_FDS);
    ok(poll(pfd, n, 1000) > 0, "the FIFO is ready");
    char msg[256] = "";
    int r = control_ready(c, pfd, n, msg, sizeof msg);
    ok(r & CONTROL_SAY, "an unknown command is said");
    is_u64(s->nmarks, 2, "the whole lines were obeyed, the bad one ignored");
    ok(s->nmarks == 2 && strcmp(s->marks[1].text, "two") == 0, "in order");
    char acks[64] = "";
    ok(read(a, acks, sizeof acks - 1) == 12 && strcmp(acks, "ack\nack\nack\n") == 0,
       "one ack per command, the bad one included");
    w = open(fifo, O_WRONLY | O_NONBLOCK);
    ok(write(w, "ee\n", 3) == 3, "the rest of the line written");
    close(w);
    n = control_fds(c, pfd, CONTROL_MAX_FDS);
    ok(poll(pfd, n, 1000) > 0, "ready again");
    control_ready(c, pfd, n, msg, sizeof msg);
    ok(s->nmarks == 3 && strcmp(s->marks[2].text, "three") == 0, "a line in two writes is one");
    n = control_fds(c, pfd, CONTROL_MAX_FDS);
    ok(poll(pfd, n, 0) == 0, "no end of file once every writer has gone"); /* POLLHUP is a state */
    close(a);
    control_free(c);
    ok(access(fifo, F_OK) < 0, "the FIFO profil made is gone");
    ok(control_env(NULL) == NULL, "no control, no channel");
    session_free(s);
    unlink(reg);
    rmdir(dir);
    free(reg);
    free(fifo);
    free(spec);
}

int main(void)
{
    plan(58);
    test_parse();
    test_marks();
    test_fifo();
    return tap_done();
}
