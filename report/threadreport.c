/*
 * Who ran, in the reports: the processes and their threads (text and
 * JSON), the time they stand for without double counting, and each
 * function's samples split by thread (--by-thread).
 */
#include "config.h"

#include "report/threadreport.h"
#include "session/session.h"
#include "session/threads.h"
#include "session/view.h"
#include "util/pct.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Seconds from the session's start to TIME (0 before it). */
static double since_start(const struct session *s, uint64_t time)
{
    return time > s->start_ns ? (double)(time - s->start_ns) / 1e9 : 0;
}

/* How long thread T lived within the session, in seconds. */
static double thread_life(const struct session *s, const struct thread_info *t)
{
    uint64_t end = t->ended ? t->end_ns : s->end_ns;
    if (s->duration_s > 0 && !t->ended)
        return s->duration_s - since_start(s, t->start_ns);
    return end > t->start_ns ? (double)(end - t->start_ns) / 1e9 : 0;
}

double threads_share_of_life(const struct session *s, const struct thread_info *t, uint64_t ticks)
{
    double life = thread_life(s, t);
    if (!(life > 0))
        return 0;
    double pct = 100.0 * (double)ticks * s->interval_us / 1e6 / life;
    return pct > 100 ? 100 : pct;
}

static int u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

void report_who(struct session *s, FILE *out, size_t limit)
{
    if (s->nthreads == 0)
        return;
    double on, bl;
    size_t nt;
    threads_times(s, &on, &bl, &nt);
    fprintf(out, "\n");
    fprintf(out,
            "   Times: %.3f s elapsed; %.3f s on a CPU and %.3f s blocked, summed over %zu "
            "thread%s%s\n",
            s->duration_s, on, bl, nt, nt == 1 ? "" : "s",
            on + bl > s->duration_s * 1.05 && s->duration_s > 0
                ? " (the routines' times add up past the elapsed time)"
                : "");
    struct thread_sums *sums = xcalloc(s->nthreads, sizeof *sums);
    threads_sum(s, true, sums);
    fprintf(out, "%-8s %-8s %-16s %9s %7s %8s %8s  %s\n", "PID", "TID", "Name", "Samples", "On CPU",
            "Blocked", "Program", "Executable");
    /* With a LIMIT, the processes and the threads with the most samples. */
    uint64_t *all = xcalloc(s->nprocs + 1, sizeof *all);
    for (size_t pi = 0; pi < s->nprocs; pi++) {
        size_t *mine, nmine = threads_of_proc(s, &s->procs[pi], &mine);
        for (size_t k = 0; k < nmine; k++) {
            if (threads_shown(s, s->threads[mine[k]].tid))
                all[pi] = session_sat_add(all[pi], sums[mine[k]].samples);
        }
        free(mine);
    }
    uint64_t *sorted = xcalloc(s->nprocs + 1, sizeof *sorted);
    memcpy(sorted, all, s->nprocs * sizeof *sorted);
    qsort(sorted, s->nprocs, sizeof *sorted, u64_desc);
    uint64_t least = limit > 0 && s->nprocs > limit ? sorted[limit - 1] : 0;
    free(sorted);
    size_t listed = 0, left = 0;
    uint64_t left_samples = 0;
    for (size_t pi = 0; pi < s->nprocs; pi++) {
        const struct proc_info *p = &s->procs[pi];
        if (limit > 0 &&
            (all[pi] < least || listed == limit || (all[pi] == 0 && s->nprocs > limit))) {
            left++;
            left_samples = session_sat_add(left_samples, all[pi]);
            continue;
        }
        uint64_t samples = 0, on_cpu = 0, program = 0;
        size_t shown = 0, *mine, nmine = threads_of_proc(s, p, &mine);
        for (size_t k = 0; k < nmine; k++) {
            size_t i = mine[k];
            if (!threads_shown(s, s->threads[i].tid))
                continue;
            samples = session_sat_add(samples, sums[i].samples);
            on_cpu = session_sat_add(on_cpu, sums[i].on_cpu);
            program = session_sat_add(program, sums[i].program);
            shown++;
        }
        if (shown == 0) {
            free(mine);
            continue;
        }
        char end[32];
        const struct thread_info *lead = threads_find(s, p->pid);
        fprintf(out, "%-8u %-8s %-16s %9" PRIu64 " %7s %8s %7.1f%%  %s (%s)\n", p->pid, "",
                lead && lead->name ? quote(lead->name) : "?", samples, "", "",
                pct_of(program, on_cpu), p->exe ? quote(p->exe) : "?",
                threads_proc_end(p, end, sizeof end));
        listed++;
        size_t rows = 0;
        for (size_t k = 0; k < nmine; k++) {
            const struct thread_info *t = &s->threads[mine[k]];
            if (!threads_shown(s, t->tid))
                continue;
            if (limit > 0 && rows++ == limit) {
                fprintf(out, "%-8s %-8s (%zu more thread%s: profil --report shows them all)\n", "",
                        "...", shown - limit, shown - limit == 1 ? "" : "s");
                break;
            }
            const struct thread_sums *m = &sums[mine[k]];
            fprintf(out, "%-8s %-8u %-16s %9" PRIu64 " %6.1f%% %7.1f%% %7.1f%%\n", "", t->tid,
                    t->name ? quote(t->name) : "?", m->samples,
                    threads_share_of_life(s, t, m->on_cpu), threads_share_of_life(s, t, m->blocked),
                    pct_of(m->program, m->on_cpu));
        }
        free(mine);
    }
    if (left > 0)
        fprintf(out,
                "%-8s (%zu more process%s, %" PRIu64 " samples: profil --report shows them all)\n",
                "...", left, left == 1 ? "" : "es", left_samples);
    free(all);
    fprintf(out, "On CPU and Blocked: the thread's ticks over its life; Program: its samples on a "
                 "CPU in its own process's executable.\n");
    free(sums);
}

static bool report_by_thread;

void report_json_by_thread(bool on)
{
    report_by_thread = on;
}

/* Each function's samples split by thread: FUNCS is the JSON array of the
 * ranking ORDER (N long). */
static void report_json_split(struct session *s, cJSON *funcs, const size_t *order, size_t n)
{
    /* Per function, its (tid, samples): the thread hits mapped to functions. */
    struct split {
        uint32_t tid;
        uint64_t samples;
    };
    struct split **per = xcalloc(s->nfuncs ? s->nfuncs : 1, sizeof *per);
    size_t *nper = xcalloc(s->nfuncs ? s->nfuncs : 1, sizeof *nper);
    int64_t *func_of = xcalloc(s->nkeys ? s->nkeys : 1, sizeof *func_of);
    for (size_t i = 0; i < s->nkeys; i++)
        func_of[i] = -1;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module != UINT32_MAX && h->id < s->nkeys)
            func_of[h->id] = h->func;
    }
    for (size_t i = 0; i < s->thits.alloc; i++) {
        const struct tid_count *e = &s->thits.slots[i];
        if (e->tid == 0 || e->key >= s->nkeys || e->count == 0 || func_of[e->key] < 0 ||
            !threads_shown(s, e->tid))
            continue;
        size_t f = (size_t)func_of[e->key];
        size_t k;
        for (k = 0; k < nper[f] && per[f][k].tid != e->tid; k++)
            ;
        if (k == nper[f]) {
            per[f] = xreallocarray(per[f], nper[f] + 1, sizeof **per);
            per[f][nper[f]++] = (struct split){e->tid, 0};
        }
        per[f][k].samples = session_sat_add(per[f][k].samples, e->count);
    }
    for (size_t k = 0; k < n; k++) {
        cJSON *j = cJSON_GetArrayItem(funcs, (int)k);
        cJSON *by = cJSON_AddArrayToObject(j, "by_thread");
        size_t f = order[k];
        for (size_t a = 0; a < nper[f]; a++) { /* most first */
            for (size_t b = a + 1; b < nper[f]; b++) {
                if (per[f][b].samples > per[f][a].samples) {
                    struct split t = per[f][a];
                    per[f][a] = per[f][b];
                    per[f][b] = t;
                }
            }
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "tid", per[f][a].tid);
            cJSON_AddNumberToObject(e, "samples", (double)per[f][a].samples);
            cJSON_AddItemToArray(by, e);
        }
    }
    for (size_t i = 0; i < s->nfuncs; i++)
        free(per[i]);
    free(per);
    free(nper);
    free(func_of);
}

void report_json_who(struct session *s, cJSON *o, const size_t *order, size_t n)
{
    double on, bl;
    size_t nt;
    threads_times(s, &on, &bl, &nt);
    cJSON *tm = cJSON_AddObjectToObject(o, "times");
    cJSON_AddNumberToObject(tm, "elapsed_s", s->duration_s);
    cJSON_AddNumberToObject(tm, "on_cpu_s", on);
    cJSON_AddNumberToObject(tm, "blocked_s", bl);
    cJSON_AddNumberToObject(tm, "threads", (double)nt);
    cJSON_AddItemToObject(o, "filter",
                          s->view.filter ? cJSON_CreateString(s->view.filter->label)
                                         : cJSON_CreateNull());
    cJSON_AddBoolToObject(o, "on_cpu", s->view.oncpu);
    cJSON_AddStringToObject(o, "program_area",
                            s->nmodules ? s->modules[s->view.prog_module]->path : "");
    if (s->view.window) {
        cJSON *w = cJSON_AddObjectToObject(o, "window");
        cJSON_AddNumberToObject(w, "from_s", (double)s->view.win_from * SESSION_FRAME_NS / 1e9);
        cJSON_AddNumberToObject(w, "to_s", (double)s->view.win_to * SESSION_FRAME_NS / 1e9);
    } else {
        cJSON_AddNullToObject(o, "window");
    }
    struct thread_sums *sums = xcalloc(s->nthreads ? s->nthreads : 1, sizeof *sums);
    threads_sum(s, true, sums);
    cJSON *procs = cJSON_AddArrayToObject(o, "processes");
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct proc_info *p = &s->procs[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "pid", p->pid);
        cJSON_AddItemToObject(j, "ppid",
                              p->ppid ? cJSON_CreateNumber(p->ppid) : cJSON_CreateNull());
        cJSON_AddItemToObject(j, "exe", p->exe ? cJSON_CreateString(p->exe) : cJSON_CreateNull());
        cJSON *args = cJSON_AddArrayToObject(j, "args");
        for (size_t k = 0; k < p->nargs; k++)
            cJSON_AddItemToArray(args, cJSON_CreateString(p->args[k]));
        uint64_t samples = 0, program = 0;
        size_t *mine, nmine = threads_of_proc(s, p, &mine);
        for (size_t k = 0; k < nmine; k++) {
            samples = session_sat_add(samples, sums[mine[k]].samples);
            program = session_sat_add(program, sums[mine[k]].program);
        }
        free(mine);
        cJSON_AddNumberToObject(j, "samples", (double)samples);
        cJSON_AddNumberToObject(j, "program", (double)program);
        cJSON_AddNumberToObject(j, "start_s", since_start(s, p->start_ns));
        cJSON_AddItemToObject(j, "end_s",
                              p->ended ? cJSON_CreateNumber(since_start(s, p->end_ns))
                                       : cJSON_CreateNull());
        cJSON *exit;
        if (!p->ended || !p->exit_known)
            exit = cJSON_CreateNull();
        else if (WIFSIGNALED(p->wstatus))
            exit = cJSON_CreateString(session_signal_name(WTERMSIG(p->wstatus)));
        else
            exit = cJSON_CreateNumber(WEXITSTATUS(p->wstatus));
        cJSON_AddItemToObject(j, "exit", exit);
        cJSON_AddItemToArray(procs, j);
    }
    cJSON *threads = cJSON_AddArrayToObject(o, "threads");
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct thread_info *t = &s->threads[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "tid", t->tid);
        cJSON_AddNumberToObject(j, "pid", t->pid);
        cJSON_AddItemToObject(j, "name",
                              t->name ? cJSON_CreateString(t->name) : cJSON_CreateNull());
        cJSON_AddNumberToObject(j, "samples", (double)sums[i].samples);
        cJSON_AddNumberToObject(j, "on_cpu", (double)sums[i].on_cpu);
        cJSON_AddNumberToObject(j, "blocked", (double)sums[i].blocked);
        cJSON_AddNumberToObject(j, "program", (double)sums[i].program);
        cJSON_AddNumberToObject(j, "start_s", since_start(s, t->start_ns));
        cJSON_AddItemToObject(j, "end_s",
                              t->ended ? cJSON_CreateNumber(since_start(s, t->end_ns))
                                       : cJSON_CreateNull());
        cJSON_AddBoolToObject(j, "shown", threads_shown(s, t->tid));
        cJSON_AddItemToArray(threads, j);
    }
    free(sums);
    if (report_by_thread)
        report_json_split(s, cJSON_GetObjectItem(o, "functions"), order, n);
}
