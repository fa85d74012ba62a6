/* profil: PROFIL's prompts, then the program under the clock, then NAME.PRF. */
#include "config.h"

#include "analysis/calltree.h"
#include "analysis/merge.h"
#include "elf/debuginfo.h"
#include "launcher/control.h"
#include "launcher/launcher.h"
#include "launcher/prompt.h"
#include "prf/classic.h"
#include "prf/prf.h"
#include "prf/replay.h"
#include "report/annotate.h"
#include "report/report.h"
#include "session/threads.h"
#include "session/view.h"
#include "tui/tui.h"
#include "util/quote.h"
#include "util/save.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <strings.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

/* The function NAME names in S: by its name as shown or as the file names
 * it, the one with the most samples when several do; -1 after one line. */
static int64_t main_find_func(struct session *s, const char *name, const char *file)
{
    size_t n;
    size_t *order = session_ranking(s, &n);
    int64_t f = -1;
    for (size_t k = 0; k < n && f < 0; k++) {
        const struct func *fn = &s->funcs[order[k]];
        if (strcmp(fn->name, name) == 0 || (fn->raw != NULL && strcmp(fn->raw, name) == 0))
            f = (int64_t)order[k];
    }
    if (f < 0)
        fprintf(stderr, "profil: %s: no function %s has samples (the hottest: %s)\n", quote(file),
                quote(name), n > 0 ? quote(s->funcs[order[0]].name) : "none");
    free(order);
    return f;
}

/* --tid, --pid, --comm: the views of S count those threads only; -1 when none matches. */
static int main_filter(struct session *s, const struct options *o)
{
    if (!o->has_tid && !o->has_pid && !o->comm)
        return 0;
    char *cause = NULL;
    struct session_filter *f = session_filter_make(s, o->has_tid ? &o->tid : NULL,
                                                   o->has_pid ? &o->pid : NULL, o->comm, &cause);
    if (f == NULL) {
        fprintf(stderr, "profil: %s: %s\n", quote(o->target), cause);
        free(cause);
        return -1;
    }
    session_filter_set(s, f);
    return 0;
}

/* A bound of --from or --to: seconds, or mark:TEXT (the first mark of that
 * text); -1 after one line when it is neither. */
static int main_bound(const struct session *s, const char *opt, const char *arg, double *t)
{
    if (strncmp(arg, "mark:", 5) == 0) {
        for (size_t i = 0; i < s->nmarks; i++) {
            if (strcmp(s->marks[i].text, arg + 5) == 0) {
                *t = s->marks[i].t_s;
                return 0;
            }
        }
        fprintf(stderr, "profil: --%s: the session has no mark '%s'%s\n", opt, quote(arg + 5),
                s->nmarks ? "" : " (it has no marks)");
        return -1;
    }
    char *end;
    errno = 0;
    *t = strtod(arg, &end);
    if (end == arg || *end != '\0' || errno != 0 || !(*t >= 0) || *t > 1e9) {
        fprintf(stderr, "profil: --%s: '%s' is neither seconds from the start nor mark:TEXT\n", opt,
                quote(arg));
        return -1;
    }
    return 0;
}

/* --from, --to: the views of S count that stretch of the run only. */
static int main_window(struct session *s, const struct options *o)
{
    if (o->from_arg == NULL && o->to_arg == NULL)
        return 0;
    double from = 0, to = (double)s->nframes * SESSION_FRAME_NS / 1e9;
    if ((o->from_arg && main_bound(s, "from", o->from_arg, &from) < 0) ||
        (o->to_arg && main_bound(s, "to", o->to_arg, &to) < 0))
        return -1;
    size_t f0 = (size_t)floor(from * 1e9 / SESSION_FRAME_NS + 1e-9);
    size_t f1 = (size_t)ceil(to * 1e9 / SESSION_FRAME_NS - 1e-9);
    if (s->classic || s->nframes == 0) {
        fprintf(stderr, "profil: %s: the session has no timeline to take a window of\n",
                quote(o->target));
        return -1;
    }
    if (f0 >= s->nframes) {
        fprintf(stderr, "profil: --from %.1f s: the session is %.1f s long\n", from,
                (double)s->nframes * SESSION_FRAME_NS / 1e9);
        return -1;
    }
    if (f1 <= f0) {
        fprintf(stderr, "profil: --from %.1f s is not before --to %.1f s\n", from, to);
        return -1;
    }
    session_window_set(s, f0, f1 < s->nframes ? f1 : s->nframes);
    return 0;
}

static int main_report(const struct options *o)
{
    struct session *s = launcher_read(o->target, o);
    if (s == NULL)
        return 1;
    if (main_filter(s, o) < 0 || main_window(s, o) < 0) {
        session_free(s);
        return 1;
    }
    report_json_by_thread(o->by_thread);
    if (o->annotate != NULL) {
        int64_t f = main_find_func(s, o->annotate, o->target);
        if (f >= 0) {
            struct annotation *a = annotate_function(s, f, o->disasm);
            annotate_print(s, a, stdout);
            annotation_free(a);
        }
        session_free(s);
        return f < 0 ? 1 : fflush(stdout) == 0 ? 0 : 1;
    }
    if (o->hist) {
        if (o->json) {
            char *text = report_hist_json(s, o->hist == 2);
            printf("%s\n", text);
            free(text);
        } else {
            report_hist(s, stdout, o->hist == 2);
        }
    } else if (o->json) {
        char *text = report_json_full(s, o->tree, o->inverted, o->percent_limit, o->lines);
        printf("%s\n", text);
        free(text);
    } else if (o->tree) {
        report_tree(s, stdout, o->inverted, o->percent_limit);
    } else {
        report_text(s, o->target, stdout, 0);
        if (o->lines)
            report_lines(s, stdout, REPORT_LINES_SHOWN);
    }
    session_free(s);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* --merge A B ... -o ALL: the runs added up into one session. */
static int main_merge(struct options *o)
{
    size_t n = (size_t)o->nmerge;
    char *cause = NULL;
    if (save_check(o->output, 0, &cause) < 0) { /* before reading any run */
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        return 1;
    }
    struct session **runs = xcalloc(n, sizeof *runs);
    struct session *out = NULL;
    int r = 1;
    for (size_t i = 0; i < n; i++) {
        if (launcher_same_file(o->output, o->merge_files[i])) {
            fprintf(stderr, "profil: %s: -o names one of the runs merged: it would be lost\n",
                    o->output);
            goto done;
        }
        if ((runs[i] = launcher_read(o->merge_files[i], o)) == NULL)
            goto done;
    }
    if ((out = launcher_read(o->merge_files[0], o)) == NULL)
        goto done;
    if (merge_sessions(out, runs, o->merge_files, n, o->force, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
        goto done;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    prf_write_buffer(out, &data, &len);
    /* Never write what the reader would refuse: read the merge back first. */
    struct session *back = prf_read_buffer(data, len, &cause);
    if (back == NULL) {
        fprintf(stderr, "profil: the merged session would not read back (%s): nothing written\n",
                quote(cause));
        free(cause);
    } else if (save_atomic(o->output, data, len, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", cause);
        free(cause);
    } else {
        struct counters c = session_run_counters(out);
        fprintf(stderr, "profil: %zu runs, %" PRIu64 " samples in %.1f s, merged into %s\n", n,
                c.total, out->duration_s, o->output);
        r = 0;
    }
    session_free(back);
    free(data);
done:
    session_free(out);
    for (size_t i = 0; i < n; i++)
        session_free(runs[i]);
    free(runs);
    return r;
}

/* Whether PATH is a saved session rather than a program: the .PRF magic, or
 * a 1983 PROFIL file (no magic: its size gives it away). */
static bool main_is_session(const char *path)
{
    /* Only a regular file can be one; a FIFO would block the open. */
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    uint8_t head[PRF_MAGIC_LEN];
    bool yes = read(fd, head, sizeof head) == (ssize_t)sizeof head &&
               memcmp(head, PRF_MAGIC, PRF_MAGIC_LEN) == 0;
    size_t n = strlen(path);
    if (!yes && n > 4 && strcasecmp(path + n - 4, ".PRF") == 0) {
        if (st.st_size < (1 << 20)) {
            uint8_t *data = xmalloc((size_t)st.st_size + 1);
            ssize_t r = pread(fd, data, (size_t)st.st_size, 0);
            yes = r > 0 && classic_detect(data, (size_t)r);
            free(data);
        }
    }
    close(fd);
    return yes;
}

/* The session file NAME stands for: NAME itself, or NAME.PRF when NAME is
 * not there, or is not a session, and NAME.PRF is ("profil --report sieve"
 * finds sieve.PRF).  NULL after one line when neither is there; the caller
 * frees. */
static char *main_session_path(const char *name)
{
    size_t n = strlen(name);
    bool has_ext = n > 4 && strcasecmp(name + n - 4, ".PRF") == 0;
    char *alt = has_ext ? NULL : xasprintf("%s.PRF", name);
    struct stat st;
    bool exists = stat(name, &st) == 0, alt_exists = alt != NULL && stat(alt, &st) == 0;
    if (alt_exists && (!exists || (!main_is_session(name) && main_is_session(alt))))
        return alt;
    free(alt);
    if (!exists && !has_ext) {
        fprintf(stderr, "profil: %s: no such file, nor %s.PRF\n", name, name);
        return NULL;
    }
    return xstrdup(name);
}

static int main_replay(const struct options *o)
{
    char *cause = NULL;
    struct session *file = launcher_read(o->target, o);
    struct session *copy = file ? launcher_read(o->target, o) : NULL;
    if (copy == NULL || main_filter(copy, o) < 0 || main_window(copy, o) < 0) {
        session_free(file);
        session_free(copy);
        return 1;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        main_filter(file, o);
        main_window(file, o);
        fprintf(stderr, "profil: no terminal to replay on: here is the report instead\n");
        session_free(copy);
        report_text(file, o->target, stdout, 0);
        session_free(file);
        return 0;
    }
    bool window = copy->view.window;
    size_t win_from = copy->view.win_from, win_to = copy->view.win_to;
    struct replay *r = replay_new(file, copy);
    if (copy->view.filter !=
        NULL) /* a replay's samples have no thread: the whole run's, filtered */
        session_filter_set(copy, copy->view.filter);
    if (window) { /* the window's frames, as far as the replay has come */
        copy->view.window = true;
        copy->view.win_from = win_from;
        copy->view.win_to = win_to;
    }
    char *title = xasprintf("%s  (%s)", o->target, file->program ? file->program : "?");
    struct tui_config tc = {.delay_ms = o->delay ? o->delay * 100 : 100,
                            .title = title,
                            .baseline = o->baseline_session,
                            .baseline_name = o->baseline};
    int status = 0;
    if (tui_run_replay(r, &tc, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        status = 1;
    }
    free(title);
    replay_free(r);
    return status;
}

/* The parameters: from --args or the command line, else asked for. */
static int main_params(const struct options *o, bool ask, struct args *a)
{
    char *cause = NULL;
    if (o->args != NULL) {
        if (args_split(o->args, a, &cause) < 0) {
            fprintf(stderr, "profil: --args: %s\n", quote(cause));
            free(cause);
            return 2;
        }
        return 0;
    }
    if (o->have_args) {
        memset(a, 0, sizeof *a);
        a->argv = xcalloc((size_t)o->nrest + 1, sizeof *a->argv);
        for (int i = 0; i < o->nrest; i++)
            a->argv[a->argc++] = xstrdup(o->argv_rest[i]);
        return 0;
    }
    if (!ask) { /* none: standard input is the program's */
        memset(a, 0, sizeof *a);
        a->argv = xcalloc(1, sizeof *a->argv);
        return 0;
    }
    int wrong = 0;
    for (;;) {
        char *line;
        int r = prompt_line(PROMPT_PARAMS, true, &line);
        if (r < 0)
            return r == PROMPT_GAVE_UP ? 2 : -1;
        if (prompt_is_help(line)) {
            printf("%s\n", PROMPT_PARAMS_HELP);
            fflush(stdout);
            free(line);
            continue;
        }
        r = args_split(line, a, &cause);
        if (r == 0) {
            free(line);
            return 0;
        }
        bool give_up = false;
        if (isatty(STDIN_FILENO))
            fprintf(stderr, "profil: %s\n", quote(cause));
        else
            give_up = prompt_refused(cause, line, &wrong);
        free(line);
        free(cause);
        cause = NULL;
        if (give_up)
            return 2;
    }
}

/* --baseline's session lives as long as profil: freed on the way out. */
static struct session *main_baseline;

static void main_free_baseline(void)
{
    session_free(main_baseline);
    main_baseline = NULL;
}

#ifdef __SANITIZE_ADDRESS__
/* LeakSanitizer, in the sanitizer build: libdebuginfod leaks an 8 KB stdio
 * buffer now and then (its dprintf into its cache, glibc's vdprintf),
 * neither profil's leak nor one it can free.  The frame is seen only where
 * mallocs are unwound fully (fast_unwind_on_malloc=0, as
 * tests/e2e/debuginfod.sh runs profil); the suppressions are not listed. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libdebuginfod.so\n";
}
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}
#endif

/* --list [FILE]: the program's functions, or a session's. */
static int main_list(struct options *o)
{
    char *file = o->target != NULL ? main_session_path(o->target) : NULL;
    if (o->target != NULL && file == NULL)
        return 1;
    o->target = file;
    int r = launcher_list(o);
    free(file);
    return r;
}

/* RUN on the session file the user named (NAME, NAME.PRF). */
static int main_on_file(struct options *o, int (*run)(const struct options *o))
{
    char *file = main_session_path(o->target);
    if (file == NULL)
        return 1;
    o->target = file;
    int r = run(o);
    free(file);
    return r;
}

static int main_report_file(struct options *o)
{
    return main_on_file(o, main_report);
}

static int main_export_file(struct options *o)
{
    return main_on_file(o, launcher_export);
}

static int main_replay_file(struct options *o)
{
    return main_on_file(o, main_replay);
}

/* The program to run, checked before any question is asked: found as a
 * shell finds it, a regular file, runnable (a script by its interpreter),
 * not the output; the output and --control's FIFO usable.  0 with *PATH,
 * *INTERP (NULL: not a script) and *OUTPUT, all owned; else the exit status,
 * said in one line. */
static int main_check_program(const struct options *o, char **path, char **interp, char **output)
{
    *path = launcher_resolve(o->target);
    *interp = *output = NULL;
    if (*path == NULL) {
        struct stat here;
        if (strchr(o->target, '/') == NULL && stat(o->target, &here) == 0)
            fprintf(stderr, "profil: %s: not found in PATH; did you mean ./%s?\n", o->target,
                    o->target);
        else
            fprintf(stderr, "profil: %s: File not found\n", o->target);
        return 1;
    }
    char *cause = NULL;
    /* A FIFO would block every open of it from here on. */
    struct stat st;
    if (stat(*path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "profil: %s: not a regular file (%s)\n", o->target,
                S_ISDIR(st.st_mode)                          ? "a directory"
                : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                             : "not a program");
        return 1;
    }
    /* A script runs as the kernel runs it; its interpreter's code is the
     * program area. */
    if (launcher_interpreter(*path, interp, &cause) < 0 ||
        module_check_executable(*interp ? *interp : *path, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        return 1;
    }
    if (access(*path, X_OK) != 0) {
        fprintf(stderr, "profil: %s: not executable (%s)\n", o->target, strerror(errno));
        return 1;
    }
    *output = launcher_output_name(o, *path, 0);
    /* PROFIL wrote X.PRF over a program named X.PRF; -o X ./X replaced X. */
    int r = launcher_refuse_same(*output, *path, "the program");
    if (r == 0 && *interp != NULL)
        r = launcher_refuse_same(*output, *interp, "the program's interpreter");
    if (r != 0)
        return r;
    r = launcher_check_output(*output);
    if (r < 0 || save_check(*output, SAVE_KEEP_OLD, &cause) < 0) {
        if (r < 0)
            fprintf(stderr, "profil: %s: Cannot open output file (%s)\n", *output, strerror(-r));
        else
            fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        return 1;
    }
    /* --control's FIFO, checked before any prompt: a regular file is refused. */
    if (o->control != NULL && control_check(o->control, &cause) < 0) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        return 1;
    }
    return 0;
}

/* PROFIL's questions not answered on the command line, then the program's
 * parameters into A.  0, or the exit status, said in one line. */
static int main_ask(struct options *o, struct args *a)
{
    /* -b and -t given, and no one to type: the parameters are none, not a
     * line taken from the program's input. */
    bool ask_params = o->bucket == 0 || o->interval == 0 || isatty(STDIN_FILENO);
    int r = 0;
    if ((o->bucket == 0 &&
         (r = prompt_number(PROMPT_BUCKET, PROMPT_BUCKET_WANTED, PROMPT_BUCKET_HELP, BUCKET_MIN,
                            BUCKET_MAX, BUCKET_DEFAULT, &o->bucket)) < 0) ||
        (o->interval == 0 &&
         (r = prompt_number(PROMPT_INTERVAL, PROMPT_INTERVAL_WANTED, PROMPT_INTERVAL_HELP,
                            INTERVAL_MIN, INTERVAL_MAX, INTERVAL_DEFAULT, &o->interval)) < 0)) {
        if (r == PROMPT_GAVE_UP) /* it said why */
            return 2;
        fprintf(stderr, "profil: end of input: nothing was run\n");
        return 1;
    }
    r = main_params(o, ask_params, a);
    if (r < 0)
        fprintf(stderr, "profil: end of input: nothing was run\n");
    return r < 0 ? 1 : r;
}

/* profil PROGRAM: the questions, then the program under the clock, then
 * NAME.PRF.  Also -p PID, and a session file named as the program (its
 * replay). */
static int main_profile(struct options *o)
{
    if (o->attach_pid > 0)
        return launcher_attach(o);
    if (main_is_session(o->target))
        return main_replay(o);
    if (o->has_tid || o->comm || o->from_arg || o->to_arg) {
        fprintf(stderr, "profil: --%s goes with --report and the replay\n",
                o->has_tid    ? "tid"
                : o->comm     ? "comm"
                : o->from_arg ? "from"
                              : "to");
        return 2;
    }

    debuginfo_set_progress(launcher_debuginfo_progress, NULL, NULL, NULL);
    char *path, *interp, *output, *cause = NULL;
    struct args a = {0};
    struct session *s = NULL;
    int status = main_check_program(o, &path, &interp, &output);
    if (status != 0 || (status = main_ask(o, &a)) != 0)
        goto out;
    status = 1;
    launcher_catch_early_signals(true);
    debuginfo_background(true); /* the program starts at once: names come when they can */
    s = session_new(interp ? interp : path, o->bucket, o->interval, &cause);
    if (s != NULL)
        s->view.oncpu = o->on_cpu; /* nothing counted yet: no counts to make again */
    if (s == NULL || (o->range != NULL && session_set_range(s, o->range, &cause) < 0)) {
        fprintf(stderr, "profil: %s\n", quote(cause));
        free(cause);
        goto out;
    }
    s->args = xcalloc(a.argc + 1, sizeof *s->args);
    for (size_t i = 0; i < a.argc; i++)
        s->args[s->nargs++] = xstrdup(a.argv[i]);
    free(s->program);
    s->program = xstrdup(o->target);
    s->comment = o->comment ? xstrdup(o->comment) : NULL;
    s->interpreter = interp ? xstrdup(interp) : NULL;
    s->raw_names = o->no_demangle;
    s->embed_source = o->embed_source;
    status = launcher_run(s, o, path, &a, output);
out:
    launcher_catch_early_signals(false);
    session_free(s);
    args_free(&a);
    free(output);
    free(interp);
    free(path);
    return status;
}

/* What each mode of the command line runs. */
static int (*const main_modes[])(struct options *o) = {
    [MODE_PROFILE] = main_profile,    [MODE_REPORT] = main_report_file,
    [MODE_REPLAY] = main_replay_file, [MODE_EXPORT] = main_export_file,
    [MODE_LIST] = main_list,          [MODE_DIFF] = launcher_diff,
    [MODE_MERGE] = main_merge,
};

int main(int argc, char **argv)
{
    struct options o;
    int r = options_parse(argc, argv, &o);
    if (r >= 0)
        return r;
    session_set_no_inline(o.no_inline);
    if (o.baseline != NULL) {
        /* Read before anything runs: a bad baseline costs no run. */
        if ((main_baseline = launcher_read(o.baseline, &o)) == NULL)
            return 1;
        atexit(main_free_baseline);
        o.baseline_session = main_baseline;
    }
    return main_modes[o.mode](&o);
}
