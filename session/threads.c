/*
 * Who ran: processes, threads, their ticks and their samples per hit, and
 * the filter that makes the views show some threads only (threads.h).
 */
#include "config.h"

#include "session/limits.h"
#include "session/model.h"
#include "session/threads.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static uint64_t id_hash(uint32_t id)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* Open addressing on a pid or tid: the slot holding KEY, or the empty one
 * where it would go. */
static struct id_slot *id_slot(struct id_slot *tab, size_t alloc, uint32_t key)
{
    size_t mask = alloc - 1, i = id_hash(key) & mask;
    while (tab[i].index1 != 0 && tab[i].key != key)
        i = (i + 1) & mask;
    return &tab[i];
}

/* Map KEY to INDEX in *TAB (*ALLOC slots, grown to keep under half full,
 * N entries after this one): a reused id maps to its latest holder. */
static void id_put(struct id_slot **tab, size_t *alloc, size_t n, uint32_t key, size_t index)
{
    if (2 * n > *alloc) {
        size_t old = *alloc, grown = old ? 2 * old : 64;
        struct id_slot *t = xcalloc(grown, sizeof *t);
        for (size_t i = 0; i < old; i++) {
            if ((*tab)[i].index1 != 0)
                *id_slot(t, grown, (*tab)[i].key) = (*tab)[i];
        }
        free(*tab);
        *tab = t;
        *alloc = grown;
    }
    *id_slot(*tab, *alloc, key) = (struct id_slot){key, (uint32_t)index + 1};
}

struct thread_info *threads_find(const struct session *s, uint32_t tid)
{
    if (s->thread_index_alloc == 0 || tid == 0)
        return NULL;
    const struct id_slot *e = id_slot(s->thread_index, s->thread_index_alloc, tid);
    return e->index1 ? &s->threads[e->index1 - 1] : NULL;
}

struct proc_info *threads_add_proc(struct session *s, uint32_t pid, uint64_t time)
{
    if (pid == 0 || s->nprocs >= LIMIT_PROCS)
        return NULL;
    s->procs = xgrowarray(s->procs, &s->procs_alloc, s->nprocs + 1, sizeof *s->procs);
    struct proc_info *p = &s->procs[s->nprocs];
    *p = (struct proc_info){
        .pid = pid, .start_ns = time, .exe_module = UINT32_MAX, .first_thread = -1};
    id_put(&s->proc_index, &s->proc_index_alloc, s->nprocs + 1, pid, s->nprocs);
    s->nprocs++;
    return p;
}

struct proc_info *threads_proc(struct session *s, uint32_t pid, uint64_t time, bool create)
{
    if (s->proc_index_alloc > 0 && pid != 0) { /* the latest of that pid */
        const struct id_slot *e = id_slot(s->proc_index, s->proc_index_alloc, pid);
        if (e->index1 != 0)
            return &s->procs[e->index1 - 1];
    }
    return create ? threads_add_proc(s, pid, time) : NULL;
}

struct thread_info *threads_get(struct session *s, uint32_t pid, uint32_t tid, uint64_t time)
{
    struct thread_info *t = threads_find(s, tid);
    if (t != NULL && !t->ended)
        return t;
    if (t != NULL && t->pid == pid)
        return t; /* a sample after its end record (the rings are merged by time) */
    if (tid == 0 || s->nthreads >= LIMIT_THREADS)
        return NULL; /* a fork bomb's: its samples count, without a thread */
    struct proc_info *p = pid != 0 ? threads_proc(s, pid, time, true) : NULL;
    s->threads = xgrowarray(s->threads, &s->threads_alloc, s->nthreads + 1, sizeof *s->threads);
    t = &s->threads[s->nthreads];
    *t = (struct thread_info){.tid = tid, .pid = pid, .start_ns = time, .next_in_proc = -1};
    if (p != NULL) {
        t->next_in_proc = p->first_thread;
        p->first_thread = (long)s->nthreads;
    }
    id_put(&s->thread_index, &s->thread_index_alloc, s->nthreads + 1, tid, s->nthreads);
    s->nthreads++;
    return t;
}

/* Thread T of process P has ended at TIME (if it had not). */
static void thread_end(struct thread_info *t, uint64_t time)
{
    if (!t->ended) {
        t->ended = true;
        t->end_ns = time;
    }
}

/* The process's name for a thread that has none yet: the executable's base name. */
static void thread_name_from(struct thread_info *t, const char *path)
{
    if (t->name != NULL || path == NULL)
        return;
    const char *base = strrchr(path, '/');
    t->name = xstrndup(base ? base + 1 : path, 15); /* comm's length */
}

void threads_first(struct session *s, uint32_t pid, uint64_t time)
{
    struct proc_info *p = threads_proc(s, pid, time, true);
    if (p != NULL && p->exe == NULL && s->program != NULL) {
        p->exe = xstrdup(s->modules != NULL && s->nmodules > 0 ? s->modules[0]->path : s->program);
        p->exe_module = 0;
        p->nargs = s->nargs + 1;
        p->args = xcalloc(p->nargs, sizeof *p->args);
        p->args[0] = xstrdup(s->program);
        for (size_t i = 0; i < s->nargs; i++)
            p->args[i + 1] = xstrdup(s->args[i]);
    }
    struct thread_info *t = threads_get(s, pid, pid, time);
    if (t != NULL)
        thread_name_from(t, s->program);
}

/* The NUL-separated command line CMD of LEN bytes, as an argument vector. */
static void proc_set_args(struct proc_info *p, const char *cmd, size_t len)
{
    for (size_t i = 0; i < p->nargs; i++)
        free(p->args[i]);
    free(p->args);
    p->args = NULL;
    p->nargs = 0;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += cmd[i] == '\0';
    if (len > 0 && cmd[len - 1] != '\0')
        n++;
    p->args = xcalloc(n ? n : 1, sizeof *p->args);
    for (size_t i = 0; i < len && p->nargs < n;) {
        size_t k = strnlen(cmd + i, len - i);
        p->args[p->nargs++] = xstrndup(cmd + i, k);
        i += k + 1;
    }
}

void threads_on_event(struct session *s, const struct event *ev)
{
    struct proc_info *p;
    struct thread_info *t;
    switch (ev->type) {
    case EVENT_FORK:
        p = threads_proc(s, ev->pid, ev->time_ns, false);
        if (p == NULL || p->ended) /* a new process, or a reused pid's */
            p = threads_add_proc(s, ev->pid, ev->time_ns);
        if (p == NULL)
            break;
        p->ppid = ev->fork.ppid;
        /* It runs its parent's program until it execs. */
        struct proc_info *pp = threads_proc(s, ev->fork.ppid, ev->time_ns, false);
        if (pp != NULL && p->exe == NULL) {
            p->exe = pp->exe ? xstrdup(pp->exe) : NULL;
            p->exe_module = pp->exe_module;
            if (pp->nargs > 0) {
                p->args = xcalloc(pp->nargs, sizeof *p->args);
                for (size_t i = 0; i < pp->nargs; i++)
                    p->args[i] = xstrdup(pp->args[i]);
                p->nargs = pp->nargs;
            }
        }
        t = threads_get(s, ev->pid, ev->pid, ev->time_ns);
        if (t != NULL && t->name == NULL && pp != NULL) {
            struct thread_info *pt = threads_find(s, ev->tid != ev->pid ? ev->tid : ev->fork.ppid);
            if (pt == NULL)
                pt = threads_find(s, ev->fork.ppid);
            if (pt != NULL && pt->name != NULL)
                t->name = xstrdup(pt->name);
        }
        break;
    case EVENT_EXEC:
        p = threads_proc(s, ev->pid, ev->time_ns, true);
        if (p == NULL)
            break;
        free(p->exe);
        p->exe = ev->exec.path ? xstrdup(ev->exec.path) : NULL;
        p->exe_module = UINT32_MAX;
        p->want_exe = true;
        if (ev->exec.path != NULL) {
            for (size_t i = 0; i < s->nmodules; i++) {
                if (strcmp(s->modules[i]->path, ev->exec.path) == 0) {
                    p->exe_module = (uint32_t)i;
                    p->want_exe = false;
                }
            }
        }
        if (ev->exec.cmdline != NULL)
            proc_set_args(p, ev->exec.cmdline, ev->exec.cmdline_len);
        /* Its other threads are gone. */
        for (long i = p->first_thread; i >= 0; i = s->threads[i].next_in_proc) {
            if (s->threads[i].tid != ev->pid)
                thread_end(&s->threads[i], ev->time_ns);
        }
        t = threads_get(s, ev->pid, ev->pid, ev->time_ns);
        if (t != NULL && ev->exec.path != NULL) {
            free(t->name);
            t->name = NULL;
            thread_name_from(t, ev->exec.path);
        }
        break;
    case EVENT_EXIT:
        p = threads_proc(s, ev->pid, ev->time_ns, false);
        if (p != NULL && !p->ended) {
            p->ended = true;
            p->end_ns = ev->time_ns;
            p->exit_known = ev->exit.known;
            p->wstatus = ev->exit.wstatus;
        }
        for (long i = p != NULL ? p->first_thread : -1; i >= 0; i = s->threads[i].next_in_proc)
            thread_end(&s->threads[i], ev->time_ns);
        break;
    case EVENT_THREAD:
        t = threads_get(s, ev->pid, ev->tid, ev->time_ns);
        if (t != NULL && t->name == NULL) { /* a new thread has its creator's name */
            struct thread_info *lead = threads_find(s, ev->pid);
            if (lead != NULL && lead->name != NULL)
                t->name = xstrdup(lead->name);
        }
        break;
    case EVENT_THREAD_EXIT:
        t = threads_find(s, ev->tid);
        if (t != NULL)
            thread_end(t, ev->time_ns);
        break;
    case EVENT_COMM:
        if (ev->comm.name == NULL)
            break;
        t = threads_get(s, ev->pid, ev->tid, ev->time_ns);
        if (t == NULL)
            break;
        free(t->name);
        t->name = xstrndup(ev->comm.name, 15);
        break;
    default: break;
    }
}

void threads_on_mmap(struct session *s, uint32_t pid, uint32_t module)
{
    struct proc_info *p = threads_proc(s, pid, 0, false);
    if (p == NULL || !p->want_exe || module >= s->nmodules)
        return;
    const struct module *m = s->modules[module];
    if (m->kind != MODULE_PROGRAM && m->kind != MODULE_LIBRARY)
        return;
    p->want_exe = false;
    p->exe_module = module;
    if (p->exe == NULL)
        p->exe = xstrdup(m->path);
}

void threads_count(struct session *s, struct thread_info *t, uint32_t id, bool blocked,
                   uint64_t count)
{
    t->last_ns = s->end_ns;
    t->last_blocked = blocked;
    if (blocked) {
        t->blocked = session_sat_add(t->blocked, count);
        return;
    }
    t->on_cpu = session_sat_add(t->on_cpu, count);
    if (id != UINT32_MAX && t->tid != 0) {
        struct tid_count *e = tid_table_get(&s->thits, t->tid, id, LIMIT_THREAD_HITS);
        if (e != NULL)
            e->count = session_sat_add(e->count, count);
    }
}

uint64_t threads_hit_count(const struct session *s, uint32_t tid, uint32_t id, bool run)
{
    return tid_table_count(&s->thits, tid, id, run);
}

void threads_clear(struct session *s)
{
    for (size_t i = 0; i < s->nthreads; i++) {
        struct thread_info *t = &s->threads[i];
        t->on_cpu_before_clear = session_sat_add(t->on_cpu_before_clear, t->on_cpu);
        t->blocked_before_clear = session_sat_add(t->blocked_before_clear, t->blocked);
        t->on_cpu = t->blocked = 0;
    }
    tid_table_clear(&s->thits);
}

void threads_free(struct session *s)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        free(s->procs[i].exe);
        for (size_t k = 0; k < s->procs[i].nargs; k++)
            free(s->procs[i].args[k]);
        free(s->procs[i].args);
    }
    free(s->procs);
    for (size_t i = 0; i < s->nthreads; i++)
        free(s->threads[i].name);
    free(s->threads);
    free(s->thread_index);
    free(s->proc_index);
    tid_table_free(&s->thits);
}

void threads_reset(struct session *s)
{
    threads_free(s);
    s->procs = NULL;
    s->nprocs = s->procs_alloc = 0;
    s->threads = NULL;
    s->nthreads = s->threads_alloc = 0;
    s->thread_index = s->proc_index = NULL;
    s->thread_index_alloc = s->proc_index_alloc = 0;
}

bool threads_own_program(const struct session *s, const struct thread_info *t, uint32_t module)
{
    const struct proc_info *p = threads_proc((struct session *)s, t->pid, 0, false);
    uint32_t exe = p != NULL && p->exe_module != UINT32_MAX ? p->exe_module : 0;
    return module == exe;
}

void threads_sum(const struct session *s, bool run, struct thread_sums *out)
{
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct thread_info *t = &s->threads[i];
        out[i].on_cpu = run ? session_sat_add(t->on_cpu, t->on_cpu_before_clear) : t->on_cpu;
        out[i].blocked = run ? session_sat_add(t->blocked, t->blocked_before_clear) : t->blocked;
        out[i].samples = session_sat_add(out[i].on_cpu, out[i].blocked);
        out[i].program = 0;
    }
    for (size_t i = 0; i < s->thits.alloc; i++) {
        const struct tid_count *e = &s->thits.slots[i];
        if (e->tid == 0 || e->key >= s->nkeys)
            continue;
        struct thread_info *t = threads_find(s, e->tid);
        if (t == NULL)
            continue;
        size_t k = (size_t)(t - s->threads);
        if (threads_own_program(s, t, s->hit_keys[e->key].module))
            out[k].program = session_sat_add(
                out[k].program, run ? session_sat_add(e->count, e->before_clear) : e->count);
    }
}

const char *threads_proc_end(const struct proc_info *p, char *buf, size_t size)
{
    if (!p->ended)
        snprintf(buf, size, "running");
    else if (!p->exit_known)
        snprintf(buf, size, "ended, status unknown");
    else if (WIFSIGNALED(p->wstatus))
        snprintf(buf, size, "%s", session_signal_name(WTERMSIG(p->wstatus)));
    else
        snprintf(buf, size, "exit %d", WEXITSTATUS(p->wstatus));
    return buf;
}

size_t threads_of_proc(const struct session *s, const struct proc_info *p, size_t **out)
{
    size_t n = 0;
    for (long i = p->first_thread; i >= 0; i = s->threads[i].next_in_proc)
        n++;
    *out = xcalloc(n ? n : 1, sizeof **out);
    size_t k = n;
    for (long i = p->first_thread; i >= 0; i = s->threads[i].next_in_proc)
        (*out)[--k] = (size_t)i; /* the chain is newest first */
    return n;
}
