#include "config.h"

#include "analysis/settle.h"
#include "elf/source.h"
#include "launcher/launcher.h"
#include "launcher/prompt.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void options_usage(FILE *out)
{
    fprintf(out,
            "Usage: profil [OPTION]... PROGRAM [PARAMETER]...\n"
            "       profil [OPTION]... -p PID\n"
            "       profil --report [--json] FILE.PRF\n"
            "       profil --hist[=all] [--json] FILE.PRF\n"
            "       profil [--replay] FILE.PRF\n"
            "       profil --report --tree [--inverted] [--percent-limit=P] FILE.PRF\n"
            "       profil --report --lines [--json] FILE.PRF\n"
            "       profil --report [--tid=TID] [--pid=PID] [--comm=NAME] [--json [--by-thread]]\n"
            "              FILE.PRF\n"
            "       profil --report [--from=S] [--to=S] FILE.PRF\n"
            "       profil --list SOURCE [FILE.PRF] [-o OUT]\n"
            "       profil --annotate=FUNCTION [--disasm] FILE.PRF\n"
            "       profil --export=FORMAT FILE.PRF -o OUT\n"
            "       profil --diff [--json] BEFORE.PRF AFTER.PRF\n"
            "       profil --diff BEFORE.PRF AFTER.PRF --export=html -o OUT.html\n"
            "       profil --merge [--force] A.PRF B.PRF ... -o ALL.PRF\n"
            "Run PROGRAM under an interval clock, count where it spends its time, and save\n"
            "the session as NAME.PRF.  Asks, as MS-DOS PROFIL did, for the bucket size, the\n"
            "sample time and the parameters, unless they are given here.\n"
            "\n"
            "  -b, --bucket=N       paragraphs (16 bytes) per bucket, 1..65535\n"
            "  -t, --interval=US    sample time in microseconds, 60..1000000\n"
            "  -a, --args=STRING    the parameters, split like a shell would (may be empty);\n"
            "                       words after PROGRAM, or after PROGRAM --, do the same\n"
            "  -o, --output=FILE    write the session to FILE (default NAME.PRF, or\n"
            "                       $PROFDIR/PID.NAME.PRF when PROFDIR is set)\n"
            "  -p, --pid=PID        attach to the running process PID and all its threads\n"
            "                       instead of starting a program; q, Ctrl-C, a TERM,\n"
            "                       --duration or its end stop the session, and profil lets\n"
            "                       go of it running on as before (nothing is asked)\n"
            "      --duration=S     end the session after S seconds: detach from -p PID, or\n"
            "                       stop a program profil started as --until-settled does;\n"
            "                       the screen stays until q, as at any end\n"
            "      --clock=CLOCK    wall (default: every tick, blocked time as I/O) or cpu\n"
            "      --driver=DRIVER  auto (default: perf where allowed, else ptrace), perf\n"
            "                       or ptrace\n"
            "      --no-jitter      exact sample periods (default: each period drawn within\n"
            "                       +-50 %% of the sample time, so that a program in step\n"
            "                       with a clock is not seen at the same phase each time)\n"
            "      --until-settled[=S]  stop the program once the top 5 routines have kept\n"
            "                       their order, their 99 %% intervals apart, for S seconds\n"
            "                       (default 3; the screen says 'settled' meanwhile)\n"
            "      --no-tui         run on this terminal and print the report at the end\n"
            "                       (also when standard output is not a terminal)\n"
            "      --no-demangle    show C++, Rust and D functions by their symbols' names\n"
            "      --no-stacks      take no call stacks (only the PC of each sample)\n"
            "      --stack-size=BYTES  bytes of user stack copied per sample to unwind\n"
            "                       (512..65536, default 8192)\n"
            "      --no-inline      count inlined functions in the function they were\n"
            "                       inlined into (default --inline: functions of their own,\n"
            "                       and frames of their own on the stacks, when the debug\n"
            "                       information has them)\n"
            "      --embed-source   keep the text of the source files with samples in the\n"
            "                       session, so that it shows them on any machine\n"
            "      --source-dir=DIR  look for source files under DIR too (repeatable)\n"
            "      --prefix-map=OLD=NEW  read source files named OLD... from NEW...\n"
            "                       (repeatable; gdb's set substitute-path)\n"
            "      --start-paused   run the program with the clock off until told to start\n"
            "                       it (p on the screen, enable on --control, or the\n"
            "                       program's own profil_on())\n"
            "      --control=FIFO[,ACK]  obey commands written to FIFO, one a line (made\n"
            "                       when missing): enable, disable, clear, snapshot, mark\n"
            "                       TEXT; ACK gets \"ack\" after each (docs/control.md)\n"
            "      --range=LOW-HIGH, --range=FUNCTION  buckets for part of the program only\n"
            "                       (addresses as the histogram shows them, or a function):\n"
            "                       the rest of its code counts as high, as MIPS monitor did\n"
            "  -d, --delay=TENTHS   refresh the live screen every TENTHS/10 s (1..100, default 1)\n"
            "  -c, --comment=TEXT   store a comment with the session\n"
            "      --report         print the PROF report of FILE.PRF\n"
            "      --json           with --report: print it as JSON\n"
            "      --tree           with --report: the top-down call tree\n"
            "      --inverted       with --tree: the bottom-up tree (who called the hot ones)\n"
            "      --percent-limit=P  with --tree: hide paths under P %% of the samples\n"
            "                       (default 0.5)\n"
            "      --lines          with --report: the hottest source lines too (with --json:\n"
            "                       every line with samples)\n"
            "      --tid=TID, --pid=PID, --comm=NAME  with --report or a replay: count the\n"
            "                       samples of that thread, of that process's threads, or of\n"
            "                       the threads of that name only (every view and number)\n"
            "      --by-thread      with --report --json: each function's samples per thread\n"
            "      --on-cpu         count on-CPU time only: a wall clock's waits (blocked\n"
            "                       threads, and their stacks under [blocked]) left out;\n"
            "                       the screen's o key, for the screen, --report, --export\n"
            "      --annotate=FUNCTION  print FUNCTION's source with each line's samples,\n"
            "                       as the Source view shows it (--disasm: and its\n"
            "                       instructions', as perf annotate does)\n"
            "      --list=SOURCE    write the profile listing of the source file SOURCE\n"
            "                       (its name, or the end of its path) to NAME.list, or to\n"
            "                       -o OUT: each line with its samples, time, share and\n"
            "                       Multics' column of stars; FILE.PRF is the newest\n"
            "                       session here that has SOURCE when not given\n"
            "      --exclude=COL    leave a column out of the listing: line, count, time,\n"
            "                       stars or calls (repeatable)\n"
            "      -ll, --line-length=N  listing lines of N columns (40..1000, default 132)\n"
            "      --from=N, --to=N  list lines N to M only; with --report or a replay,\n"
            "                       seconds (or mark:TEXT): count that stretch of the run only\n"
            "      --hist[=all]     print the bucket histogram of FILE.PRF, as PROHST did\n"
            "                       (=all: the empty buckets too; with --json as JSON)\n"
            "      --replay         replay FILE.PRF on the live screen (also: profil FILE.PRF)\n"
            "      --export=FORMAT  write FILE.PRF to -o OUT ('-': standard output) as\n"
            "                       classic (the 1983 PROFIL layout), folded (collapsed\n"
            "                       stacks, for flamegraph.pl and inferno), pprof (a gzipped\n"
            "                       profile.proto, for go tool pprof), speedscope (its\n"
            "                       JSON file format), callgrind (for callgrind_annotate\n"
            "                       and KCachegrind) or html (a flame graph in one page,\n"
            "                       for any browser)\n"
            "      --diff           compare two sessions routine by routine: each one's\n"
            "                       share before and after, the change in points, and\n"
            "                       whether it is more than chance (stars; --json too;\n"
            "                       --export=html: AFTER's flame graph coloured by it)\n"
            "      --baseline=FILE  the screen's ranking gains a Change column: each\n"
            "                       routine's share against FILE.PRF's, in points, with\n"
            "                       --diff's stars (the program runs, or a replay)\n"
            "      --merge          add several runs of one program up into -o ALL.PRF:\n"
            "                       counters, buckets, PCs, stacks, lines, the timelines\n"
            "                       one after another; --force takes other builds too\n"
            "  -h, --help           show this help and exit\n"
            "  -V, --version        show the version and exit\n"
            "\n"
            "Exit status: the program's own (128+N when killed by signal N); 1 when profil\n"
            "fails, 2 for a bad command line.  See profil(1).\n"
            "With -p: 0 once the session is saved, however the process ended.\n");
}

/* Parse a numeric option value with the prompt's rules. */
static int options_number(const char *name, const char *v, unsigned long min, unsigned long max,
                          uint32_t *out)
{
    if (prompt_parse_number(v, min, max, out))
        return 0;
    fprintf(stderr, "profil: --%s: '%s' is not a whole number from %lu to %lu\n", name, v, min,
            max);
    return -1;
}

enum {
    OPT_CLOCK = 256,
    OPT_TID,
    OPT_COMM,
    OPT_BY_THREAD,
    OPT_RANGE,
    OPT_DRIVER,
    OPT_NO_TUI,
    OPT_REPORT,
    OPT_JSON,
    OPT_REPLAY,
    OPT_EXPORT,
    OPT_HIST,
    OPT_NO_DEMANGLE,
    OPT_NO_STACKS,
    OPT_STACK_SIZE,
    OPT_TREE,
    OPT_INVERTED,
    OPT_PERCENT_LIMIT,
    OPT_LINES,
    OPT_INLINE,
    OPT_NO_INLINE,
    OPT_NO_JITTER,
    OPT_DIFF,
    OPT_MERGE,
    OPT_FORCE,
    OPT_BASELINE,
    OPT_UNTIL_SETTLED,
    OPT_LIST,
    OPT_EXCLUDE,
    OPT_LINE_LENGTH,
    OPT_FROM,
    OPT_TO,
    OPT_SOURCE_DIR,
    OPT_PREFIX_MAP,
    OPT_EMBED_SOURCE,
    OPT_ANNOTATE,
    OPT_DISASM,
    OPT_START_PAUSED,
    OPT_CONTROL,
    OPT_DURATION,
    OPT_ON_CPU
};
static const struct option longopts[] = {
    {"bucket", required_argument, NULL, 'b'},
    {"tid", required_argument, NULL, OPT_TID},
    {"comm", required_argument, NULL, OPT_COMM},
    {"by-thread", no_argument, NULL, OPT_BY_THREAD},
    {"range", required_argument, NULL, OPT_RANGE},
    {"interval", required_argument, NULL, 't'},
    {"args", required_argument, NULL, 'a'},
    {"output", required_argument, NULL, 'o'},
    {"pid", required_argument, NULL, 'p'},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"driver", required_argument, NULL, OPT_DRIVER},
    {"no-tui", no_argument, NULL, OPT_NO_TUI},
    {"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
    {"no-stacks", no_argument, NULL, OPT_NO_STACKS},
    {"stack-size", required_argument, NULL, OPT_STACK_SIZE},
    {"tree", no_argument, NULL, OPT_TREE},
    {"inverted", no_argument, NULL, OPT_INVERTED},
    {"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
    {"lines", no_argument, NULL, OPT_LINES},
    {"inline", no_argument, NULL, OPT_INLINE},
    {"no-inline", no_argument, NULL, OPT_NO_INLINE},
    {"no-jitter", no_argument, NULL, OPT_NO_JITTER},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"force", no_argument, NULL, OPT_FORCE},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"until-settled", optional_argument, NULL, OPT_UNTIL_SETTLED},
    {"list", required_argument, NULL, OPT_LIST},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"line-length", required_argument, NULL, OPT_LINE_LENGTH},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"source-dir", required_argument, NULL, OPT_SOURCE_DIR},
    {"prefix-map", required_argument, NULL, OPT_PREFIX_MAP},
    {"embed-source", no_argument, NULL, OPT_EMBED_SOURCE},
    {"annotate", required_argument, NULL, OPT_ANNOTATE},
    {"disasm", no_argument, NULL, OPT_DISASM},
    {"start-paused", no_argument, NULL, OPT_START_PAUSED},
    {"control", required_argument, NULL, OPT_CONTROL},
    {"delay", required_argument, NULL, 'd'},
    {"comment", required_argument, NULL, 'c'},
    {"report", no_argument, NULL, OPT_REPORT},
    {"json", no_argument, NULL, OPT_JSON},
    {"hist", optional_argument, NULL, OPT_HIST},
    {"replay", no_argument, NULL, OPT_REPLAY},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"on-cpu", no_argument, NULL, OPT_ON_CPU},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Read options up to the first word that is not one: -1, or an exit status.
 * Long: one case per option of the table above, each a few lines, in the
 * table's order; split, the cases would be further from the table they
 * follow, not shorter. */
static int options_scan(int argc, char **argv, struct options *o)
{
    int c;
    while ((c = getopt_long(argc, argv, "+:b:t:a:o:c:d:p:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (options_number("bucket", optarg, BUCKET_MIN, BUCKET_MAX, &o->bucket) < 0)
                return 2;
            break;
        case 't':
            if (options_number("interval", optarg, INTERVAL_MIN, INTERVAL_MAX, &o->interval) < 0)
                return 2;
            break;
        case 'a':
            o->args = optarg;
            o->have_args = true;
            break;
        case 'o':
            if (*optarg == '\0') { /* caught now, not when the run is over */
                fprintf(stderr, "profil: -o: the output file name is empty\n");
                return 2;
            }
            o->output = optarg;
            break;
        case 'd':
            if (options_number("delay", optarg, 1, 100, &o->delay) < 0)
                return 2;
            break;
        case 'c': o->comment = optarg; break;
        case OPT_CLOCK:
            if (strcmp(optarg, "wall") == 0) {
                o->clock = CLOCK_KIND_WALL;
            } else if (strcmp(optarg, "cpu") == 0) {
                o->clock = CLOCK_KIND_CPU;
            } else {
                fprintf(stderr, "profil: --clock: '%s' is neither wall nor cpu\n", optarg);
                return 2;
            }
            break;
        case OPT_DRIVER:
            if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "perf") != 0 &&
                strcmp(optarg, "ptrace") != 0) {
                fprintf(stderr, "profil: --driver: '%s' is not one of auto, perf, ptrace\n",
                        optarg);
                return 2;
            }
            o->driver = optarg;
            break;
        case OPT_NO_TUI: o->no_tui = true; break;
        case OPT_NO_DEMANGLE: o->no_demangle = true; break;
        case OPT_NO_STACKS: o->no_stacks = true; break;
        case OPT_STACK_SIZE:
            if (options_number("stack-size", optarg, 512, 65536, &o->stack_size) < 0)
                return 2;
            o->stack_size = (o->stack_size + 7) & ~7u;
            break;
        case OPT_TREE: o->tree = true; break;
        case OPT_LINES: o->lines = true; break;
        case OPT_INLINE: o->no_inline = false; break;
        case OPT_LIST:
            o->mode = MODE_LIST;
            o->list = optarg;
            break;
        case OPT_EXCLUDE: {
            static const char *const names[] = {"line", "count", "time", "stars", "calls"};
            unsigned bit = 0;
            for (unsigned k = 0; k < 5 && bit == 0; k++)
                bit = strcmp(optarg, names[k]) == 0 ? 1u << k : 0;
            if (bit == 0) {
                fprintf(
                    stderr,
                    "profil: --exclude: '%s' is not a column (line, count, time, stars, calls)\n",
                    optarg);
                return 2;
            }
            o->exclude |= bit;
            break;
        }
        case OPT_LINE_LENGTH:
            if (options_number("line-length", optarg, 40, 1000, &o->line_length) < 0)
                return 2;
            break;
        case OPT_FROM: o->from_arg = optarg; break;
        case OPT_TO: o->to_arg = optarg; break;
        case OPT_SOURCE_DIR: source_add_dir(optarg); break;
        case OPT_PREFIX_MAP: {
            char *cause = NULL;
            if (source_add_prefix_map(optarg, &cause) < 0) {
                fprintf(stderr, "profil: --prefix-map: %s\n", cause);
                free(cause);
                return 2;
            }
            break;
        }
        case OPT_EMBED_SOURCE: o->embed_source = true; break;
        case OPT_ANNOTATE:
            o->annotate = optarg;
            o->mode = MODE_REPORT;
            break;
        case OPT_DISASM: o->disasm = true; break;
        case OPT_START_PAUSED: o->start_paused = true; break;
        case OPT_CONTROL:
            if (*optarg == '\0') {
                fprintf(stderr, "profil: --control: the FIFO's name is empty\n");
                return 2;
            }
            o->control = optarg;
            break;
        case 'p': {
            uint32_t pid;
            if (options_number("pid", optarg, 1, 4194304, &pid) < 0)
                return 2;
            o->attach_pid = (long)pid; /* with --report or a replay: a filter */
            o->pid = pid;
            o->has_pid = true;
            break;
        }
        case OPT_DURATION: {
            char *end;
            double secs = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(secs > 0 && secs <= 31536000)) {
                fprintf(stderr, "profil: --duration: '%s' is not a number of seconds above 0\n",
                        optarg);
                return 2;
            }
            o->duration = secs;
            break;
        }
        case OPT_NO_INLINE: o->no_inline = true; break;
        case OPT_ON_CPU: o->on_cpu = true; break;
        case OPT_NO_JITTER: o->no_jitter = true; break;
        case OPT_DIFF: o->mode = MODE_DIFF; break;
        case OPT_MERGE: o->mode = MODE_MERGE; break;
        case OPT_FORCE: o->force = true; break;
        case OPT_TID:
            if (options_number("tid", optarg, 1, UINT32_MAX, &o->tid) < 0)
                return 2;
            o->has_tid = true;
            break;
        case OPT_COMM:
            if (optarg[0] == '\0') {
                fprintf(stderr, "profil: --comm: an empty name names no thread\n");
                return 2;
            }
            o->comm = optarg;
            break;
        case OPT_BY_THREAD: o->by_thread = true; break;
        case OPT_RANGE:
            if (optarg[0] == '\0') {
                fprintf(stderr, "profil: --range: give LOW-HIGH or a function's name\n");
                return 2;
            }
            o->range = optarg;
            break;
        case OPT_BASELINE: o->baseline = optarg; break;
        case OPT_UNTIL_SETTLED: {
            uint32_t secs = (uint32_t)SETTLE_SECONDS;
            if (optarg != NULL && options_number("until-settled", optarg, 1, 86400, &secs) < 0)
                return 2;
            o->until_settled = (double)secs;
            break;
        }
        case OPT_INVERTED: o->inverted = true; break;
        case OPT_PERCENT_LIMIT: {
            char *end;
            double p = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(p >= 0 && p <= 100)) {
                fprintf(stderr, "profil: --percent-limit: '%s' is not a percentage from 0 to 100\n",
                        optarg);
                return 2;
            }
            o->percent_limit = p;
            break;
        }
        case OPT_REPORT: o->mode = MODE_REPORT; break;
        case OPT_JSON: o->json = true; break;
        case OPT_HIST:
            if (optarg != NULL && strcmp(optarg, "all") != 0) {
                fprintf(stderr, "profil: --hist: '%s' is not 'all'\n", optarg);
                return 2;
            }
            o->hist = optarg != NULL ? 2 : 1;
            if (o->mode == MODE_PROFILE)
                o->mode = MODE_REPORT;
            break;
        case OPT_REPLAY: o->mode = MODE_REPLAY; break;
        case OPT_EXPORT:
            if (strcmp(optarg, "classic") != 0 && strcmp(optarg, "folded") != 0 &&
                strcmp(optarg, "pprof") != 0 && strcmp(optarg, "speedscope") != 0 &&
                strcmp(optarg, "callgrind") != 0 && strcmp(optarg, "html") != 0) {
                fprintf(stderr,
                        "profil: --export: '%s' is not a format (classic, folded, pprof, "
                        "speedscope, callgrind, html)\n",
                        optarg);
                return 2;
            }
            if (o->mode != MODE_DIFF) /* --diff A B --export=html: the diff as a page */
                o->mode = MODE_EXPORT;
            o->export_format = optarg;
            break;
        case 'h': options_usage(stdout); return 0;
        case 'V': printf("profil %s\n", PACKAGE_VERSION); return 0;
        case ':':
            fprintf(stderr, "profil: %s needs a value (try 'profil --help')\n", argv[optind - 1]);
            return 2;
        default: {
            /* For a long option optopt is its table value, not a letter: show the
             * word as typed (--no-tui=1 is "a value given to an option without"). */
            const char *word = argv[optind - 1];
            const char *eq = strchr(word, '=');
            bool takes_none = false;
            for (const struct option *lo = longopts; eq && lo->name; lo++)
                takes_none |= lo->has_arg == no_argument &&
                              strlen(lo->name) == (size_t)(eq - word - 2) &&
                              strncmp(lo->name, word + 2, (size_t)(eq - word - 2)) == 0;
            if (takes_none)
                fprintf(stderr, "profil: '%.*s' takes no value (try 'profil --help')\n",
                        (int)(eq - word), word);
            else if (strncmp(word, "--", 2) == 0)
                fprintf(stderr, "profil: unknown option '%s' (try 'profil --help')\n", word);
            else if (optopt > 32 && optopt < 127)
                fprintf(stderr, "profil: unknown option '-%c' (try 'profil --help')\n", optopt);
            else
                fprintf(stderr, "profil: unknown option '%s' (try 'profil --help')\n", word);
            return 2;
        }
        }
    }
    return -1;
}

/* The rest of profil --list SOURCE [FILE.PRF] [-o OUT]. */
static int options_list(int argc, char **argv, struct options *o)
{
    if (optind < argc) {
        o->target = argv[optind++];
        int r = options_scan(argc, argv, o); /* options may follow the file */
        if (r >= 0)
            return r;
    }
    if (optind < argc) {
        fprintf(stderr, "profil: --list takes one source file and one .PRF file\n");
        return 2;
    }
    if ((o->from_arg && options_number("from", o->from_arg, 1, UINT32_MAX, &o->from) < 0) ||
        (o->to_arg && options_number("to", o->to_arg, 1, UINT32_MAX, &o->to) < 0))
        return 2;
    if (o->from && o->to && o->from > o->to) {
        fprintf(stderr, "profil: --from %u comes after --to %u\n", o->from, o->to);
        return 2;
    }
    if (o->json || o->tree || o->lines || o->hist || o->export_format) {
        fprintf(stderr, "profil: --list takes none of --json, --tree, --lines, --hist, --export\n");
        return 2;
    }
    return -1;
}

/* --diff BEFORE AFTER [--json]: two .PRF files, options before, between or after. */
static int options_diff(int argc, char **argv, struct options *o)
{
    const char *files[2];
    int n = 0;
    while (optind < argc) {
        if (n == 2) {
            fprintf(stderr, "profil: --diff takes two .PRF files, BEFORE and AFTER\n");
            return 2;
        }
        files[n++] = argv[optind++];
        int r = options_scan(argc, argv, o);
        if (r >= 0)
            return r;
    }
    if (n != 2) {
        fprintf(stderr, "profil: --diff takes two .PRF files, BEFORE and AFTER\n");
        return 2;
    }
    if (o->mode != MODE_DIFF || o->tree || o->inverted || o->lines || o->hist || o->annotate ||
        (o->export_format && (strcmp(o->export_format, "html") != 0 || o->json))) {
        fprintf(stderr,
                "profil: --diff takes only --json, or --export=html -o OUT (and --no-demangle)\n");
        return 2;
    }
    if (o->export_format != NULL && o->output == NULL) {
        fprintf(stderr, "profil: --diff --export=html needs -o OUT ('-': standard output)\n");
        return 2;
    }
    o->diff_before = files[0];
    o->diff_after = files[1];
    return -1;
}

/* --merge A.PRF B.PRF ... -o ALL.PRF [--force]: options anywhere among the files. */
static int options_merge(int argc, char **argv, struct options *o)
{
    o->merge_files = (const char **)argv + optind; /* room enough: the files are among argv */
    o->nmerge = 0;
    while (optind < argc) {
        o->merge_files[o->nmerge++] = argv[optind++];
        int r = options_scan(argc, argv, o);
        if (r >= 0)
            return r;
    }
    if (o->nmerge < 2) {
        fprintf(stderr, "profil: --merge takes two .PRF files or more, and -o ALL.PRF\n");
        return 2;
    }
    if (o->output == NULL || o->output[0] == '\0') {
        fprintf(stderr, "profil: --merge needs -o ALL.PRF: where to write the merged session\n");
        return 2;
    }
    if (o->mode != MODE_MERGE || o->json || o->tree || o->inverted || o->lines || o->hist ||
        o->annotate || o->export_format) {
        fprintf(stderr, "profil: --merge takes only -o and --force\n");
        return 2;
    }
    return -1;
}

/* Whether a report's option was given to a run: said in one line. */
static bool options_report_only(const struct options *o)
{
    if (!o->json && !o->tree && !o->inverted && !o->lines)
        return false;
    fprintf(stderr, "profil: --%s goes with --report\n",
            o->json    ? "json"
            : o->tree  ? "tree"
            : o->lines ? "lines"
                       : "inverted");
    return true;
}

/* -p PID: a running process takes the program's place, and its parameters'. */
static int options_attach(int argc, struct options *o)
{
    if (o->mode != MODE_PROFILE) {
        fprintf(stderr, "profil: -p attaches to a process to profile it: not with --report, "
                        "--replay or --export\n");
        return 2;
    }
    if (optind < argc || o->have_args) {
        fprintf(stderr, "profil: -p attaches to a running process: give no program or "
                        "parameters with it\n");
        return 2;
    }
    if (options_report_only(o))
        return 2;
    return -1;
}

int options_parse(int argc, char **argv, struct options *o)
{
    /* Multics spelled it -ll (and -line_length): getopt would read -l -l. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-ll") == 0 || strcmp(argv[i], "-line_length") == 0)
            argv[i] = (char *)"--line-length";
    }
    memset(o, 0, sizeof *o);
    o->clock = CLOCK_KIND_WALL;
    o->driver = "auto";
    o->percent_limit = 0.5;
    opterr = 0;
    int r = options_scan(argc, argv, o);
    if (r >= 0)
        return r;
    if (o->mode == MODE_LIST)
        return options_list(argc, argv, o);
    if (o->mode == MODE_DIFF)
        return options_diff(argc, argv, o);
    if (o->mode == MODE_MERGE)
        return options_merge(argc, argv, o);
    if (o->force) {
        fprintf(stderr, "profil: --force goes with --merge\n");
        return 2;
    }
    if (o->baseline != NULL && ((o->mode != MODE_PROFILE && o->mode != MODE_REPLAY) || o->no_tui)) {
        fprintf(stderr, "profil: --baseline is a column of the live screen and the replay; "
                        "--diff compares two sessions in a report\n");
        return 2;
    }
    if (o->exclude || o->line_length) {
        fprintf(stderr, "profil: --exclude and --line-length go with --list\n");
        return 2;
    }
    if ((o->from_arg || o->to_arg) && o->mode != MODE_REPORT && o->mode != MODE_REPLAY &&
        o->mode != MODE_PROFILE) {
        fprintf(stderr, "profil: --from and --to go with --list (lines), --report and the "
                        "replay (seconds, or mark:TEXT)\n");
        return 2;
    }
    if ((o->from_arg || o->to_arg) &&
        (o->has_tid || o->comm || (o->has_pid && o->mode != MODE_PROFILE))) {
        fprintf(stderr, "profil: --from/--to and --tid/--pid/--comm do not go together: the "
                        "timeline does not say which thread took a frame's samples\n");
        return 2;
    }
    if (o->attach_pid > 0 && o->mode == MODE_PROFILE)
        return options_attach(argc, o);
    if (o->duration > 0 && o->mode != MODE_PROFILE) {
        fprintf(stderr, "profil: --duration goes with a program or -p PID\n");
        return 2;
    }
    if (optind >= argc) {
        fprintf(stderr, o->mode == MODE_PROFILE
                            ? "profil: no program given (try 'profil --help')\n"
                            : "profil: which .PRF file? (try 'profil --help')\n");
        return 2;
    }
    o->target = argv[optind];
    if (o->mode != MODE_PROFILE && (o->start_paused || o->control != NULL)) {
        fprintf(stderr, "profil: --%s goes with running a program\n",
                o->control != NULL ? "control" : "start-paused");
        return 2;
    }
    if (o->mode != MODE_PROFILE) {
        optind++; /* profil --export classic FILE.PRF -o OUT.PRF: options may follow */
        r = options_scan(argc, argv, o);
        if (r >= 0)
            return r;
        if (optind < argc) {
            fprintf(stderr, "profil: %s takes one .PRF file\n",
                    o->mode == MODE_REPORT   ? "--report"
                    : o->mode == MODE_REPLAY ? "--replay"
                                             : "--export");
            return 2;
        }
        if (o->mode == MODE_EXPORT && o->output == NULL) {
            fprintf(stderr, "profil: --export needs -o OUT ('-': standard output)\n");
            return 2;
        }
        if (o->json && o->mode != MODE_REPORT) {
            fprintf(stderr, "profil: --json goes with --report\n");
            return 2;
        }
        if (o->disasm && o->annotate == NULL) {
            fprintf(stderr, "profil: --disasm goes with --annotate\n");
            return 2;
        }
        if (o->annotate != NULL && (o->json || o->tree || o->lines || o->hist)) {
            fprintf(stderr, "profil: --annotate takes none of --json, --tree, --lines, --hist\n");
            return 2;
        }
        if (o->lines && (o->mode != MODE_REPORT || o->hist || o->tree)) {
            fprintf(stderr, "profil: --lines goes with --report (not with --tree or --hist)\n");
            return 2;
        }
        if ((o->tree || o->inverted) && (o->mode != MODE_REPORT || o->hist)) {
            fprintf(stderr, "profil: --%s goes with --report\n", o->tree ? "tree" : "inverted");
            return 2;
        }
        if (o->inverted && !o->tree)
            o->tree = true; /* --inverted alone: the bottom-up tree */
        if ((o->has_tid || o->has_pid || o->comm) && o->mode != MODE_REPORT &&
            o->mode != MODE_REPLAY) {
            fprintf(stderr, "profil: --tid, --pid and --comm go with --report and the replay\n");
            return 2;
        }
        if (o->range != NULL) {
            fprintf(stderr, "profil: --range goes with a program to run (or -p): the session's "
                            "buckets are what its run took\n");
            return 2;
        }
        if (o->by_thread && (o->mode != MODE_REPORT || !o->json || o->tree || o->hist)) {
            fprintf(stderr, "profil: --by-thread goes with --report --json\n");
            return 2;
        }
        return -1;
    }
    /* --tid, --comm, --from and --to go with a replay too, which
     * `profil FILE.PRF` is: main looks at the file before it says no. */
    if (o->by_thread) {
        fprintf(stderr, "profil: --by-thread goes with --report --json\n");
        return 2;
    }
    if (options_report_only(o))
        return 2;
    int rest = optind + 1;
    bool dashdash = rest < argc && strcmp(argv[rest], "--") == 0;
    if (dashdash)
        rest++;
    if (rest < argc || dashdash) {
        if (o->have_args) {
            fprintf(stderr, "profil: give the parameters with --args or after the program, "
                            "not both\n");
            return 2;
        }
        o->have_args = true;
        o->argv_rest = argv + rest;
        o->nrest = argc - rest;
    }
    return -1;
}
