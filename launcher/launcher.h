/* The command line and the run of one program under the clock. */
#ifndef PROFIL_LAUNCHER_H
#define PROFIL_LAUNCHER_H

#include "launcher/args.h"
#include "session/session.h"

#include <stdbool.h>
#include <stdint.h>

enum mode { MODE_PROFILE, MODE_REPORT, MODE_REPLAY, MODE_EXPORT, MODE_LIST, MODE_DIFF, MODE_MERGE };

struct options {
    enum mode mode;
    bool json;
    bool no_demangle;                     /* --no-demangle: raw symbol names */
    bool no_stacks;                       /* --no-stacks */
    uint32_t stack_size;                  /* --stack-size, 0: the default */
    bool tree;                            /* --report --tree */
    bool inverted;                        /* ... --inverted */
    double percent_limit;                 /* ... --percent-limit */
    bool lines;                           /* --report --lines */
    const char *list;                     /* --list FILE: the source file to list */
    unsigned exclude;                     /* ... --exclude (LISTING_*) */
    uint32_t line_length;                 /* ... -ll, --line-length (0: 132) */
    uint32_t from, to;                    /* ... --from, --to (0: unset) */
    const char *from_arg, *to_arg;        /* --from, --to as given: lines with --list, else a time
                                           * window (seconds, or mark:TEXT) */
    bool embed_source;                    /* --embed-source */
    const char *annotate;                 /* --annotate FUNC: its annotated source */
    bool disasm;                          /* ... --disasm: with its disassembly */
    bool no_inline;                       /* --no-inline */
    bool on_cpu;                          /* --on-cpu: the views leave the waits out */
    bool no_jitter;                       /* --no-jitter */
    double until_settled;                 /* --until-settled[=SECONDS]: 0 off */
    const char *diff_before, *diff_after; /* --diff BEFORE AFTER */
    const char **merge_files;             /* --merge A B ...: in argv's own array, reordered */
    int nmerge;
    bool force;                       /* --merge --force: other builds too */
    const char *baseline;             /* --baseline FILE.PRF: the live screen's Change column */
    struct session *baseline_session; /* ... read before the program runs */
    bool has_tid, has_pid; /* --tid, --pid with --report or a replay: the threads shown */
    uint32_t tid, pid;
    const char *comm;  /* ... --comm NAME */
    bool by_thread;    /* --report --json --by-thread */
    const char *range; /* --range LOW-HIGH or FUNCTION: the program area */
    int hist;          /* --hist: 1 the buckets with samples, 2 (--hist=all) every one */
    uint32_t bucket;   /* 0: ask */
    uint32_t interval; /* 0: ask */
    const char *args;  /* --args, or NULL */
    bool have_args;    /* the parameters were given: do not ask */
    char **argv_rest;  /* parameters after the program (borrowed from argv) */
    int nrest;
    const char *output; /* -o, or NULL */
    enum clock_kind clock;
    const char *driver; /* "auto", "perf" */
    bool no_tui;
    uint32_t delay; /* tenths of a second between screen refreshes; 0: default */
    const char *comment;
    const char *export_format; /* --export: classic, folded, pprof, speedscope, callgrind */
    const char *target;        /* the program, or the .PRF for --report */
    bool start_paused;         /* --start-paused: the clock starts off */
    const char *control;       /* --control FIFO[,ACK], or NULL */
    long attach_pid;           /* -p, --pid: the running process to attach to, or 0 */
    double duration;           /* --duration SECONDS: end the session then (0: never) */
};

/* Open the debug information of the libraries PATH will map (as ldd lists
 * them) into S's modules, before the clock starts. */
void launcher_open_libraries(struct session *s, const char *path);

/* profil --list FILE [SESSION.PRF]: the Multics profile listing of FILE. */
int launcher_list(const struct options *o);

/* Read the session file PATH (load.c), the view as the options ask
 * (--no-demangle, --on-cpu), or say in one line why not: NULL. */
struct session *launcher_read(const char *path, const struct options *o);

/* --export=FORMAT FILE.PRF -o OUT, and --diff BEFORE AFTER (export.c): an exit status. */
int launcher_export(const struct options *o);
int launcher_diff(struct options *o);

/* profil -p PID: attach to a running process, profile it until q, Ctrl-C,
 * a TERM, --duration or its end, and let go of it running on.  profil's
 * exit status: 0, or 1 when it could not attach or save. */
int launcher_attach(struct options *o);

/* Parse the command line.  Returns -1 to go on, or an exit status (0 after
 * --help/--version, 2 after a usage error, printed to stderr). */
int options_parse(int argc, char **argv, struct options *o);

/* Find PROGRAM as a shell would: a name with a slash as is, else along PATH
 * only (never in the current directory unless PATH has an empty entry).
 * The caller owns the result; NULL when there is no such file. */
char *launcher_resolve(const char *program);

/* When PATH is a script (#!), the program that really runs it, as the
 * kernel would find it: its interpreter, an interpreter's interpreter (up
 * to four), or for #!/usr/bin/env NAME, NAME along PATH.  0 and *INTERP
 * (owned); 1 when PATH is not a script; -1 and *CAUSE (owned) when its
 * interpreter cannot run. */
int launcher_interpreter(const char *path, char **interp, char **cause);

/* The output file for PROGRAM's session: -o, else PROFDIR/PID.NAME.PRF, else
 * NAME.PRF in the current directory; PID is filled in when known (0: "PID"). */
char *launcher_output_name(const struct options *o, const char *program, long pid);

/* Whether a file can be created where PATH would go.  0, or -errno. */
int launcher_check_output(const char *path);

/* Whether the names A and B lead to one file (the same device and inode:
 * another spelling of the path, a symbolic or a hard link). */
bool launcher_same_file(const char *a, const char *b);

/* Refuse to write OUTPUT over INPUT, a file this command reads (ROLE names
 * it in the message): 2 after one line when they are one file, else 0. */
int launcher_refuse_same(const char *output, const char *input, const char *role);

/* Run the program under the clock, on the live screen when standard input
 * and output are terminals and --no-tui is not given, else on this terminal
 * with the report printed at the end.  Fills S, writes the .PRF, and
 * returns profil's exit status. */
int launcher_run(struct session *s, const struct options *o, const char *path, const struct args *a,
                 const char *output);
/* With o->attach_pid, launcher_run attaches to that process instead of
 * starting PATH (its executable, as /proc/PID/exe names it); A is unused. */

/* From the prompts' end to the program's start (reading and downloading
 * debug information can take a while): Ctrl-C or Ctrl-\ makes profil say
 * that nothing was run and exit 128 + the signal; launcher_run lets them
 * pass to the program once it runs.  false puts back what was there. */
void launcher_catch_early_signals(bool on);

struct debuginfo_progress;

/* The session's debug-file downloads on stderr, for when no screen is up
 * (the live screen shows them in its status line instead): one line
 * rewritten in place on a terminal, a single final line otherwise. */
void launcher_debuginfo_progress(void *arg, const struct debuginfo_progress *p);

#endif
