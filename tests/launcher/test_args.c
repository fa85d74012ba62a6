/* Splitting the parameters the way a shell would. */
#include "config.h"

#include "launcher/args.h"
#include "tests/tap.h"

#include <stdlib.h>

/* Split LINE and compare the words with the NULL-terminated WANT. */
static void check(const char *line, const char *const *want, const char *what)
{
    struct args a;
    char *cause = NULL;
    if (!ok(args_split(line, &a, &cause) == 0, "%s: splits", what)) {
        free(cause);
        return;
    }
    size_t n = 0;
    while (want[n] != NULL)
        n++;
    is_u64(a.argc, n, "%s: word count", what);
    for (size_t i = 0; i < n; i++) /* a missing word fails as NULL */
        is_str(i < a.argc ? a.argv[i] : NULL, want[i], "%s: word %zu", what, i);
    ok(a.argv[a.argc] == NULL, "%s: argv ends with NULL", what);
    args_free(&a);
}

static void check_error(const char *line, const char *what)
{
    struct args a;
    char *cause = NULL;
    ok(args_split(line, &a, &cause) < 0 && cause != NULL, "%s: refused (%s)", what,
       cause ? cause : "no cause");
    free(cause);
}

int main(void)
{
    plan(53);
    check("", (const char *[]){NULL}, "empty");
    check("   \t ", (const char *[]){NULL}, "blanks");
    check("a b  c", (const char *[]){"a", "b", "c", NULL}, "plain words");
    check("'a b' \"c d\"", (const char *[]){"a b", "c d", NULL}, "quotes");
    check("x'y'\"z\"", (const char *[]){"xyz", NULL}, "adjacent quotes join");
    check("'' \"\"", (const char *[]){"", "", NULL}, "empty quoted words");
    check("a\\ b c\\\\d", (const char *[]){"a b", "c\\d", NULL}, "backslash escapes");
    check("\"say \\\"hi\\\"\" 'it\\s'", (const char *[]){"say \"hi\"", "it\\s", NULL},
          "escapes inside quotes");
    check("'<' \\> a2>b", (const char *[]){"<", ">", "a2", NULL}, "quoted operators are words");

    struct args a;
    char *cause = NULL;
    ok(args_split("one < in.txt two >> out.txt 2>err.txt", &a, &cause) == 0, "redirections");
    is_u64(a.argc, 2, "redirections leave two words");
    is_str(a.stdin_path, "in.txt", "stdin path");
    is_str(a.stdout_path, "out.txt", "stdout path");
    ok(a.stdout_append, ">> appends");
    is_str(a.stderr_path, "err.txt", "stderr path");
    args_free(&a);
    ok(args_split(">out", &a, &cause) == 0 && !a.stdout_append && a.stdout_path != NULL &&
           a.argc == 0,
       "> truncates, no space needed");
    args_free(&a);

    check_error("'open", "unterminated single quote");
    check_error("\"open", "unterminated double quote");
    check_error("a <", "redirection without a file");
    check_error("a > < b", "two redirections in a row");
    return tap_done();
}
