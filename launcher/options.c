#include "config.h"

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
            "       profil --report [--json] FILE.PRF\n"
            "       profil --hist[=all] [--json] FILE.PRF\n"
            "       profil [--replay] FILE.PRF\n"
            "       profil --report --tree [--inverted] [--percent-limit=P] FILE.PRF\n"
            "       profil --export=FORMAT FILE.PRF -o OUT\n"
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
            "      --clock=CLOCK    wall (default: every tick, blocked time as I/O) or cpu\n"
            "      --driver=DRIVER  auto (default: perf where allowed, else ptrace), perf\n"
            "                       or ptrace\n"
            "      --no-tui         run on this terminal and print the report at the end\n"
            "                       (also when standard output is not a terminal)\n"
            "      --no-demangle    show C++, Rust and D functions by their symbols' names\n"
            "      --no-stacks      take no call stacks (only the PC of each sample)\n"
            "      --stack-size=BYTES  bytes of user stack copied per sample to unwind\n"
            "                       (512..65536, default 8192)\n"
            "  -d, --delay=TENTHS   refresh the live screen every TENTHS/10 s (1..100, default 1)\n"
            "  -c, --comment=TEXT   store a comment with the session\n"
            "      --report         print the PROF report of FILE.PRF\n"
            "      --json           with --report: print it as JSON\n"
            "      --tree           with --report: the top-down call tree\n"
            "      --inverted       with --tree: the bottom-up tree (who called the hot ones)\n"
            "      --percent-limit=P  with --tree: hide paths under P %% of the samples\n"
            "                       (default 0.5)\n"
            "      --hist[=all]     print the bucket histogram of FILE.PRF, as PROHST did\n"
            "                       (=all: the empty buckets too; with --json as JSON)\n"
            "      --replay         replay FILE.PRF on the live screen (also: profil FILE.PRF)\n"
            "      --export=FORMAT  write FILE.PRF to -o OUT ('-': standard output) as\n"
            "                       classic (the 1983 PROFIL layout), folded (collapsed\n"
            "                       stacks, for flamegraph.pl and inferno), pprof (a gzipped\n"
            "                       profile.proto, for go tool pprof) or speedscope (its\n"
            "                       JSON file format)\n"
            "  -h, --help           show this help and exit\n"
            "  -V, --version        show the version and exit\n"
            "\n"
            "Exit status: the program's own (128+N when killed by signal N); 1 when profil\n"
            "fails, 2 for a bad command line.  See profil(1).\n");
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
    OPT_PERCENT_LIMIT
};
static const struct option longopts[] = {
    {"bucket", required_argument, NULL, 'b'},
    {"interval", required_argument, NULL, 't'},
    {"args", required_argument, NULL, 'a'},
    {"output", required_argument, NULL, 'o'},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"driver", required_argument, NULL, OPT_DRIVER},
    {"no-tui", no_argument, NULL, OPT_NO_TUI},
    {"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
    {"no-stacks", no_argument, NULL, OPT_NO_STACKS},
    {"stack-size", required_argument, NULL, OPT_STACK_SIZE},
    {"tree", no_argument, NULL, OPT_TREE},
    {"inverted", no_argument, NULL, OPT_INVERTED},
    {"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
    {"delay", required_argument, NULL, 'd'},
    {"comment", required_argument, NULL, 'c'},
    {"report", no_argument, NULL, OPT_REPORT},
    {"json", no_argument, NULL, OPT_JSON},
    {"hist", optional_argument, NULL, OPT_HIST},
    {"replay", no_argument, NULL, OPT_REPLAY},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Read options up to the first word that is not one: -1, or an exit status. */
static int options_scan(int argc, char **argv, struct options *o)
{
    int c;
    while ((c = getopt_long(argc, argv, "+:b:t:a:o:c:d:hV", longopts, NULL)) != -1) {
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
            o->output = optarg;
            break;
        case 'd':
            if (options_number("delay", optarg, 1, 100, &o->delay) < 0)
                return 2;
            break;
        case 'c':
            o->comment = optarg;
            break;
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
        case OPT_NO_TUI:
            o->no_tui = true;
            break;
        case OPT_NO_DEMANGLE: o->no_demangle = true; break;
        case OPT_NO_STACKS: o->no_stacks = true; break;
        case OPT_STACK_SIZE:
            if (options_number("stack-size", optarg, 512, 65536, &o->stack_size) < 0)
                return 2;
            o->stack_size = (o->stack_size + 7) & ~7u;
            break;
        case OPT_TREE: o->tree = true; break;
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
        case OPT_REPORT:
            o->mode = MODE_REPORT;
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case OPT_HIST:
            if (optarg != NULL && strcmp(optarg, "all") != 0) {
                fprintf(stderr, "profil: --hist: '%s' is not 'all'\n", optarg);
                return 2;
            }
            o->hist = optarg != NULL ? 2 : 1;
            if (o->mode == MODE_PROFILE)
                o->mode = MODE_REPORT;
            break;
        case OPT_REPLAY:
            o->mode = MODE_REPLAY;
            break;
        case OPT_EXPORT:
            if (strcmp(optarg, "classic") != 0 && strcmp(optarg, "folded") != 0 &&
                strcmp(optarg, "pprof") != 0 && strcmp(optarg, "speedscope") != 0) {
                fprintf(stderr,
                        "profil: --export: '%s' is not a format (classic, folded, pprof, "
                        "speedscope)\n",
                        optarg);
                return 2;
            }
            o->mode = MODE_EXPORT;
            o->export_format = optarg;
            break;
        case 'h':
            options_usage(stdout);
            return 0;
        case 'V':
            printf("profil %s\n", PACKAGE_VERSION);
            return 0;
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


int options_parse(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->clock = CLOCK_KIND_WALL;
    o->driver = "auto";
    o->percent_limit = 0.5;
    opterr = 0;
    int r = options_scan(argc, argv, o);
    if (r >= 0)
        return r;
    if (optind >= argc) {
        fprintf(stderr, o->mode == MODE_PROFILE ? "profil: no program given (try 'profil --help')\n"
                                                : "profil: which .PRF file? (try 'profil --help')\n");
        return 2;
    }
    o->target = argv[optind];
    if (o->mode != MODE_PROFILE) {
        optind++; /* profil --export classic FILE.PRF -o OUT.PRF: options may follow */
        r = options_scan(argc, argv, o);
        if (r >= 0)
            return r;
        if (optind < argc) {
            fprintf(stderr, "profil: %s takes one .PRF file\n",
                    o->mode == MODE_REPORT ? "--report" : o->mode == MODE_REPLAY ? "--replay" : "--export");
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
        if ((o->tree || o->inverted) && (o->mode != MODE_REPORT || o->hist)) {
            fprintf(stderr, "profil: --%s goes with --report\n", o->tree ? "tree" : "inverted");
            return 2;
        }
        if (o->inverted && !o->tree)
            o->tree = true; /* --inverted alone: the bottom-up tree */
        return -1;
    }
    if (o->json || o->tree || o->inverted) {
        fprintf(stderr, "profil: --%s goes with --report\n",
                o->json   ? "json"
                : o->tree ? "tree"
                          : "inverted");
        return 2;
    }
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
