/* The PROF report layout, times and termination messages. */
#include "config.h"

#include "report/report.h"
#include "tests/tap.h"
#include "util/ticks.h"

#include <stdlib.h>

int main(void)
{
    plan(37);
    char t[32];
    is_str(ticks_time(t, sizeof t, 0, 1000), "00:00.000", "no time");
    is_str(ticks_time(t, sizeof t, 2197, 1000), "00:02.197", "PROF's 00:02.197");
    is_str(ticks_time(t, sizeof t, 61500, 1000), "01:01.500", "over a minute");
    is_str(ticks_time(t, sizeof t, 3, 60), "00:00.000", "180 us rounds to 0 ms");
    is_str(ticks_time(t, sizeof t, 9, 60), "00:00.001", "540 us rounds to 1 ms");
    is_str(ticks_time(t, sizeof t, 6000000, 1000), "100:00.000", "minutes do not wrap");

    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (!ok(s != NULL, "a session")) {
        printf("# %s\n", cause);
        return tap_done();
    }
    char msg[128];
    s->exit_kind = EXIT_TERMINATED;
    is_str(report_termination(s, msg, sizeof msg), "Program terminated normally", "exit 0");
    s->exit_code = 3;
    is_str(report_termination(s, msg, sizeof msg), "Program terminated normally (exit status 3)",
           "exit 3");
    s->exit_kind = EXIT_ABORTED;
    s->exit_signal = 2;
    is_str(report_termination(s, msg, sizeof msg), "Program aborted (SIGINT: Interrupt)", "Ctrl-C");

    /* A few hits in markbit and a blocked stretch. */
    const struct module *m = s->modules[0];
    struct event ev = {.type = EVENT_MMAP, .pid = 1};
    ev.mmap.start = 0x10000;
    ev.mmap.len = 0x100000;
    ev.mmap.pgoff = 0;
    ev.mmap.path = m->path;
    session_ingest(s, &ev);
    uint64_t markbit = 0;
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, "markbit") == 0)
            markbit = m->syms[i].start;
    }
    struct event smp = {.type = EVENT_SAMPLE, .pid = 1};
    smp.sample.pc = 0x10000 + markbit;
    smp.sample.mode = SAMPLE_USER;
    smp.sample.count = 3;
    session_ingest(s, &smp);
    smp.sample.mode = SAMPLE_BLOCKED;
    smp.sample.count = 1;
    session_ingest(s, &smp);

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    report_text(s, "x.PRF", out, 0);
    fclose(out);
    const char *order[] = {"   Start: 0x",
                           "     End: 0x",
                           "  Length: ",
                           "   Scale: 1\n",
                           "Interval: 1000\n",
                           "    Time: 00:00.004\n",
                           "Time ",
                           "Routine",
                           "% of Total",
                           "% of Accounted",
                           "00:00.003   markbit",
                           "75.00%",
                           "100.00%",
                           "00:00.003   Total",
                           "75.00%",
                           "Program",
                           "I/O"};
    const char *at = text;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(at, order[i]);
        if (!ok(p != NULL, "report has '%s' in order", order[i]))
            printf("# %s\n", text);
        else
            at = p + strlen(order[i]);
    }
    ok(strstr(text, "Warning:") == NULL, "no lost ticks: no warning");
    ok(strstr(text, "Preempted            0\n") != NULL, "a Preempted line, 0");
    ok(strstr(text, "waited for a CPU") == NULL, "and no explanation when there are none");
    free(text);

    /* 1 lost of 5 ticks is 20 %: warned about; preempted ticks are explained. */
    s->view.c.lost = 1;
    s->view.c.preempted = 7;
    out = open_memstream(&text, &len);
    report_text(s, "x.PRF", out, 0);
    fclose(out);
    ok(strstr(text, " Warning: 1 samples lost, 20.00% of the ticks: the shares below may be "
                    "biased\n") != NULL,
       "more than 1 %% lost: one warning line with the count and the share");
    ok(strstr(text, "Lost                 1   20.00% of the ticks\n") != NULL,
       "the Lost line gives the share");
    ok(strstr(text, "Preempted            7\n") != NULL, "the Preempted line gives the count");
    ok(strstr(text, "ready to run but waited for a CPU") != NULL, "and says what it means");
    free(text);
    char *j = report_json(s);
    ok(strstr(j, "\"preempted\":\t7") != NULL, "JSON: counters.preempted");
    ok(strstr(j, "\"lost_pct\":\t20") != NULL, "JSON: counters.lost_pct");
    free(j);
    s->view.c.lost = 1;
    s->view.c.total = 99; /* exactly 1 %: not above it */
    out = open_memstream(&text, &len);
    report_text(s, "x.PRF", out, 0);
    fclose(out);
    ok(strstr(text, "Warning:") == NULL, "1 %% lost is not above 1 %%: no warning");
    free(text);
    session_free(s);
    return tap_done();
}
