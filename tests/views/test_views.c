/* The view models without a terminal: scrolling math, the output buffer,
 * and the histogram and functions views drawn into an off-screen window. */
#include "config.h"

#include "report/report.h"
#include "session/names.h"
#include "session/resolve.h"
#include "tests/tap.h"
#include "views/outbuf.h"
#include "views/view.h"

#include <stdio.h>
#include <stdlib.h>

#define BASE 0x10000ull

static void test_scroll(void)
{
    is_u64(scroll_top(0, 0, 100, 10), 0, "top stays while the selection is visible");
    is_u64(scroll_top(0, 15, 100, 10), 6, "moving below the window scrolls it");
    is_u64(scroll_top(50, 20, 100, 10), 20, "moving above the window scrolls it");
    is_u64(scroll_top(95, 99, 100, 10), 90, "the window never runs past the end");
    is_u64(scroll_top(5, 3, 4, 10), 0, "a short list starts at the top");
    size_t sel = 5;
    ok(scroll_key(KEY_DOWN, &sel, 10, 4) && sel == 6, "down moves one");
    ok(scroll_key('k', &sel, 10, 4) && sel == 5, "k moves up one");
    ok(scroll_key(KEY_NPAGE, &sel, 10, 4) && sel == 8, "page down moves a page less one");
    ok(scroll_key(KEY_END, &sel, 10, 4) && sel == 9, "End goes last");
    ok(scroll_key(KEY_DOWN, &sel, 10, 4) && sel == 9, "and stays there");
    ok(scroll_key(KEY_HOME, &sel, 10, 4) && sel == 0, "Home goes first");
    ok(!scroll_key('x', &sel, 10, 4), "other keys are not scrolling");
}

static void test_outbuf(void)
{
    struct outbuf *ob = outbuf_new(3);
    outbuf_feed(ob, "hello\nwor", 9);
    outbuf_feed(ob, "ld\n", 3);
    is_str(outbuf_line(ob, 0), "hello", "lines split at newlines");
    is_str(outbuf_line(ob, 1), "world", "a line may come in pieces");
    const char *esc = "\033[1;31mred\033[0m \033]0;title\007ok\r";
    outbuf_feed(ob, esc, strlen(esc));
    is_str(outbuf_line(ob, 2), "red ok", "escape sequences are dropped whole");
    struct outbuf *charset = outbuf_new(3);
    const char *g0 = "a\033(0b\033(Bc\033#8d\033)0e\033Pq#0\033\\f\033(\ng";
    outbuf_feed(charset, g0, strlen(g0));
    is_str(outbuf_line(charset, 0), "abcdef",
           "ESC ( 0, ESC ( B, ESC # 8, ESC ) 0 and a DCS string leave nothing behind");
    is_str(outbuf_line(charset, 1), "g",
           "a newline cuts a sequence short, and still ends the line");
    outbuf_free(charset);
    outbuf_feed(ob, "RE", 2);
    is_str(outbuf_line(ob, 2), "REd ok", "a carriage return writes over the line");
    outbuf_feed(ob, "\n\tx\bY\n", 6);
    is_u64(ob->dropped, 2, "the oldest lines leave a full ring");
    is_str(outbuf_line(ob, 0), "REd ok", "what is kept is the newest");
    is_str(outbuf_line(ob, 1), "        Y", "tabs expand, backspace steps back");
    is_str(outbuf_line(ob, 9), "", "a line past the end is empty");
    outbuf_free(ob);
}

/* A session for sieve with hits in three functions: markbit 5, testbit 3, markall 1. */
static struct session *make_session(uint32_t paragraphs)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", paragraphs, 1000, &cause);
    if (s == NULL) {
        printf("# %s\n", cause);
        exit(1);
    }
    struct event ev = {.type = EVENT_MMAP, .pid = 1};
    ev.mmap.start = BASE;
    ev.mmap.len = 0x100000;
    ev.mmap.path = s->modules[0]->path;
    session_ingest(s, &ev);
    const char *names[] = {"markbit", "testbit", "markall"};
    uint32_t counts[] = {5, 3, 1};
    for (size_t k = 0; k < 3; k++) {
        const struct module *m = s->modules[0];
        for (size_t i = 0; i < m->nsyms; i++) {
            if (strcmp(m->syms[i].name, names[k]) != 0)
                continue;
            struct event smp = {.type = EVENT_SAMPLE, .pid = 1};
            smp.sample.pc = BASE + m->syms[i].start;
            smp.sample.mode = SAMPLE_USER;
            smp.sample.count = counts[k];
            session_ingest(s, &smp);
        }
    }
    session_rank(s);
    return s;
}

/* The program's functions, from its own symbol table (nm), by address. */
static struct nm_sym {
    uint64_t addr;
    char name[64];
} nm_syms[256];
static size_t nm_n;

static void read_nm(const char *path)
{
    char cmd[512], line[256], type;
    snprintf(cmd, sizeof cmd, "nm -n --defined-only '%s'", path);
    FILE *p = popen(cmd, "r");
    while (p != NULL && nm_n < sizeof nm_syms / sizeof *nm_syms && fgets(line, sizeof line, p)) {
        struct nm_sym *e = &nm_syms[nm_n];
        if (sscanf(line, "%" SCNx64 " %c %63s", &e->addr, &type, e->name) == 3 &&
            (type == 't' || type == 'T' || type == 'W' || type == 'w'))
            nm_n++;
    }
    if (p == NULL || pclose(p) != 0 || nm_n == 0) {
        printf("Bail out! nm does not read %s\n", path);
        exit(1);
    }
}

/* NAME's address in the program, from nm. */
static uint64_t nm_addr(const char *name)
{
    for (size_t i = 0; i < nm_n; i++) {
        if (strcmp(nm_syms[i].name, name) == 0)
            return nm_syms[i].addr;
    }
    printf("Bail out! nm has no %s\n", name);
    exit(1);
}

/* The sampled functions of make_session, their samples. */
static const char *const sampled[] = {"markbit", "testbit", "markall"};
static const uint64_t sampled_count[] = {5, 3, 1};

/* From nm alone: what the bucket of SIZE bytes from LOW holding ADDR is
 * labelled (its most sampled function, ties to the lower address), how many
 * other sampled functions start in it, its samples, and the first function
 * there (covering its start or starting in it). */
static const char *expect_label(uint64_t low, uint64_t size, uint64_t addr, size_t *others,
                                uint64_t *count, const char **first)
{
    uint64_t lo = low + (addr - low) / size * size, best_n = 0, best_at = 0;
    const char *best = NULL;
    *others = 0;
    *count = 0;
    for (size_t k = 0; k < 3; k++) {
        uint64_t a = nm_addr(sampled[k]);
        if (a < lo || a >= lo + size)
            continue;
        *count += sampled_count[k];
        if (best != NULL)
            ++*others;
        if (sampled_count[k] > best_n || (sampled_count[k] == best_n && a < best_at)) {
            best = sampled[k];
            best_n = sampled_count[k];
            best_at = a;
        }
    }
    *first = NULL;
    for (size_t i = 0; i < nm_n && nm_syms[i].addr < lo + size; i++) {
        if (nm_syms[i].addr <= lo || *first == NULL)
            *first = nm_syms[i].name;
    }
    return best;
}

/* The row of WIN for the bucket at address LO ("" when none). */
static const char *row_at(WINDOW *win, uint64_t lo);

/* Draw VIEW into WIN and return line Y as text (static buffer). */
static const char *line_of(WINDOW *win, int y)
{
    static char buf[256];
    mvwinnstr(win, y, 0, buf, sizeof buf - 1);
    for (int i = (int)strlen(buf) - 1; i >= 0 && buf[i] == ' '; i--)
        buf[i] = '\0';
    return buf;
}

static bool window_has(WINDOW *win, const char *text)
{
    for (int y = 0; y < getmaxy(win); y++) {
        if (strstr(line_of(win, y), text) != NULL)
            return true;
    }
    return false;
}

/* The line with the cursor (reverse video without colours), below the title. */
static const char *selected_line(WINDOW *win)
{
    for (int y = 1; y < getmaxy(win); y++) {
        if (mvwinch(win, y, 0) & A_REVERSE)
            return line_of(win, y);
    }
    return "";
}

/* Whether WIN shows TEXT; when not, the window goes to the log. */
static bool shows(WINDOW *win, const char *text)
{
    if (window_has(win, text))
        return true;
    for (int y = 0; y < getmaxy(win); y++)
        printf("# |%s\n", line_of(win, y));
    return false;
}

static const char *row_at(WINDOW *win, uint64_t lo)
{
    char want[16];
    snprintf(want, sizeof want, "%012" PRIx64 " ", lo);
    for (int y = 0; y < getmaxy(win); y++) {
        if (strncmp(line_of(win, y), want, strlen(want)) == 0)
            return line_of(win, y);
    }
    return "";
}

static void draw(const struct view_ops *ops, void *state, WINDOW *win, struct view_ctx *ctx)
{
    werase(win);
    ops->draw(state, win, ctx);
}

static void test_histogram(WINDOW *win)
{
    /* The bucket size: the smallest from 4 paragraphs up where markbit's
     * bucket starts with another function and holds another sampled one, so
     * that "its most sampled function, not its first" can be told (by nm). */
    char *cause = NULL;
    struct session *probe = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (probe == NULL) {
        printf("Bail out! %s\n", cause);
        exit(1);
    }
    uint64_t low = probe->view.prog_low, markbit = nm_addr("markbit");
    session_free(probe);
    uint32_t par = 4;
    size_t want_others = 0;
    uint64_t want_count = 0;
    const char *want_label = NULL, *first = NULL;
    for (; par <= 4096; par *= 2) {
        want_label =
            expect_label(low, 16 * (uint64_t)par, markbit, &want_others, &want_count, &first);
        if (want_others > 0 && first != NULL && strcmp(first, want_label) != 0)
            break;
    }
    struct session *s = make_session(par);
    struct view_ctx ctx = {.s = s, .focused = true};
    void *h = view_histogram_ops.create();
    draw(&view_histogram_ops, h, win, &ctx);
    char want[64];
    snprintf(want, sizeof want, "%zu buckets of %u paragraphs", s->view.nbuckets, par);
    ok(window_has(win, want), "the title gives the bucket count and size");
    if (!ok(window_has(win, "markall"), "a bucket shows the symbol that starts in it"))
        for (int y = 0; y < 16; y++)
            printf("# %s\n", line_of(win, y));
    /* From nm: the bucket holding markbit, its sampled functions and its first. */
    uint64_t lo = low + (markbit - low) / (16 * par) * (16 * par);
    char label[96];
    snprintf(label, sizeof label, " %s +%zu ", want_label ? want_label : "(none)", want_others);
    const char *row = row_at(win, lo);
    ok(par <= 4096 && strstr(row, label) != NULL,
       "%u paragraphs: the bucket at %#" PRIx64 " is labelled by its most sampled function,%s", par,
       lo, label);
    ok(first != NULL && strstr(row, first) == NULL, "not by the first function there (%s): '%s'",
       first ? first : "(none)", row);
    size_t b, others = 99;
    uint64_t off = 0;
    for (size_t i = 0; i < s->modules[0]->nsyms; i++) {
        if (strcmp(s->modules[0]->syms[i].name, "markbit") == 0)
            off = s->modules[0]->syms[i].start;
    }
    ok(session_bucket_of(s, off, &b), "markbit has a bucket");
    is_str(session_bucket_label(s, b, &others), want_label, "session_bucket_label names %s",
           want_label);
    is_u64(others, want_others, "and counts the other sampled functions there");
    const char *at0 = NULL;
    for (size_t i = 0; i < nm_n; i++) {
        if (nm_syms[i].addr <= low)
            at0 = nm_syms[i].name;
    }
    is_str(session_bucket_label(s, 0, &others), at0,
           "an empty bucket: the function at its start (%s, by nm)", at0 ? at0 : "none");
    is_u64(others, 0, "with no others");
    int edge = 0;
    for (int y = 2; y < getmaxy(win); y++)
        edge += (mvwinch(win, y, getmaxx(win) - 1) & A_CHARTEXT) != ' ';
    is_u64(edge, 0, "no bar reaches the window's last column");

    /* z halves the bucket size: the shell re-buckets from the hit table. */
    int r = view_histogram_ops.key(h, 'z', &ctx);
    ok((r & VIEW_REBUCKET) && ctx.want_paragraphs == par / 2, "z asks for half the bucket size");
    session_rebucket(s, ctx.want_paragraphs);
    draw(&view_histogram_ops, h, win, &ctx);
    snprintf(want, sizeof want, "%zu buckets of %u paragraphs", s->view.nbuckets, par / 2);
    ok(window_has(win, want), "and the histogram shows the new buckets");
    ctx.want_paragraphs = 0;
    r = view_histogram_ops.key(h, 'Z', &ctx);
    ok((r & VIEW_REBUCKET) && ctx.want_paragraphs == par, "Z asks for double");

    /* e hides empty buckets: every row left has a count. */
    view_histogram_ops.key(h, 'e', &ctx);
    draw(&view_histogram_ops, h, win, &ctx);
    ok(window_has(win, "empty hidden"), "e hides empty buckets");
    int rows = 0;
    for (int y = 2; y < getmaxy(win); y++)
        rows += line_of(win, y)[0] != '\0';
    uint64_t nonempty = 0;
    for (size_t i = 0; i < s->view.nbuckets; i++)
        nonempty += s->view.buckets[i] > 0;
    is_u64(rows, nonempty, "one row per non-empty bucket");
    /* The hottest bucket at PAR / 2, from nm: H selects it, wherever the cursor was. */
    uint64_t hot = 0, hot_lo = 0;
    for (size_t k = 0; k < 3; k++) {
        size_t o;
        uint64_t n;
        const char *f;
        uint64_t a = nm_addr(sampled[k]), size = 8 * (uint64_t)par;
        expect_label(low, size, a, &o, &n, &f);
        if (n > hot || (n == hot && low + (a - low) / size * size < hot_lo)) {
            hot = n;
            hot_lo = low + (a - low) / size * size;
        }
    }
    view_histogram_ops.key(h, KEY_END, &ctx);
    view_histogram_ops.key(h, 'H', &ctx);
    draw(&view_histogram_ops, h, win, &ctx);
    snprintf(want, sizeof want, "%012" PRIx64 " ", hot_lo);
    char share[16];
    snprintf(share, sizeof share, " %.2f%% ", 100.0 * (double)hot / 9);
    ok(strncmp(selected_line(win), want, strlen(want)) == 0 &&
           strstr(selected_line(win), share) != NULL,
       "H selects the hottest bucket (%s,%s of 9 samples): '%s'", want, share, selected_line(win));

    /* After a clear, buckets fill again from PCs already seen: they must show. */
    session_clear(s);
    draw(&view_histogram_ops, h, win, &ctx);
    ok(!window_has(win, "markbit"), "a clear empties the histogram of hidden empties");
    const struct module *m = s->modules[0];
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, "markall") == 0) {
            struct event smp = {.type = EVENT_SAMPLE, .pid = 1};
            smp.sample.pc = BASE + m->syms[i].start;
            smp.sample.mode = SAMPLE_USER;
            smp.sample.count = 2;
            session_ingest(s, &smp);
        }
    }
    draw(&view_histogram_ops, h, win, &ctx);
    ok(window_has(win, "markall") && window_has(win, "100.00%"),
       "a PC seen before the clear fills its bucket again, and it shows");
    view_histogram_ops.destroy(h);
    session_free(s);
}

/* The first screen: the hottest bucket in view, names cut with an ellipsis. */
static void test_histogram_opens(void)
{
    struct session *s = make_session(1);
    struct view_ctx ctx = {.s = s, .focused = true};
    WINDOW *small = newwin(12, 50, 0, 0);
    void *h = view_histogram_ops.create();
    draw(&view_histogram_ops, h, small, &ctx);
    ok(strstr(selected_line(small), " markbit ") != NULL,
       "a short histogram opens with the cursor on the hottest bucket");
    ok(shows(small, "__do_global..."), "a cut name ends in an ellipsis");
    /* n and N without a search: the next and previous buckets with samples. */
    view_histogram_ops.search(h, "", 1, &ctx);
    draw(&view_histogram_ops, h, small, &ctx);
    ok(strstr(selected_line(small), " testbit ") != NULL,
       "n without a search steps to the next bucket with samples");
    view_histogram_ops.search(h, "", -1, &ctx);
    view_histogram_ops.search(h, "", -1, &ctx);
    draw(&view_histogram_ops, h, small, &ctx);
    ok(strstr(selected_line(small), " markall ") != NULL,
       "N steps back, past markbit, round to the last one");
    view_histogram_ops.search(h, "testbit", 0, &ctx);
    draw(&view_histogram_ops, h, small, &ctx);
    ok(strstr(selected_line(small), " testbit ") != NULL && ctx.status[0] == '\0',
       "/ finds a bucket by its label");
    view_histogram_ops.destroy(h);
    delwin(small);
    session_free(s);
}

/* A panel 30 columns wide: each row stays on its own line, nothing wraps. */
static void test_histogram_narrow(void)
{
    struct session *s = make_session(1);
    struct view_ctx ctx = {.s = s, .focused = true};
    WINDOW *narrow = newwin(12, 30, 0, 0);
    void *h = view_histogram_ops.create();
    view_histogram_ops.key(h, 'e', &ctx); /* three rows, blank lines below them */
    draw(&view_histogram_ops, h, narrow, &ctx);
    int rows = 0, stray = 0;
    for (int y = 2; y < getmaxy(narrow); y++) {
        const char *l = line_of(narrow, y);
        if (y < 2 + 3)
            rows += strncmp(l, "0000000", 7) == 0;
        else
            stray += l[0] != '\0';
    }
    is_u64(rows, 3, "every row starts with its address");
    if (!ok(stray == 0, "and no row spills onto the lines below (%d do)", stray))
        shows(narrow, "\x01");
    char fit[16];
    is_str(draw_fit(fit, sizeof fit, "markbit", -3), "", "a negative width fits nothing");
    view_histogram_ops.destroy(h);
    delwin(narrow);
    session_free(s);
}

/* A program whose own code has no samples: the histogram says where they are. */
static void test_histogram_elsewhere(WINDOW *win)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    struct view_ctx ctx = {.s = s, .focused = true};
    struct event smp = {.type = EVENT_SAMPLE, .pid = 1};
    smp.sample.mode = SAMPLE_BLOCKED; /* I/O without a PC: no routine to rank (a kernel PC
                                       * would be one, named from /proc/kallsyms) */
    smp.sample.count = 4;
    session_ingest(s, &smp);
    session_rank(s);
    void *h = view_histogram_ops.create();
    draw(&view_histogram_ops, h, win, &ctx);
    ok(window_has(win, "No samples in the program's own code: 100.0% in the kernel"),
       "a histogram without samples says where they went");
    ok(shows(win, "Counters (4)."), "and, with no routine ranked, points to the Counters");
    struct event mm = {.type = EVENT_MMAP, .pid = 1};
    mm.mmap.start = 0x7f0000000000ull;
    mm.mmap.len = 0x200000;
    mm.mmap.path = "/lib/x86_64-linux-gnu/libc.so.6";
    session_ingest(s, &mm);
    smp.sample.mode = SAMPLE_USER;
    smp.sample.pc = mm.mmap.start + 0x28000;
    smp.sample.count = 12;
    session_ingest(s, &smp);
    session_rank(s);
    draw(&view_histogram_ops, h, win, &ctx);
    ok(window_has(win, "No samples in the program's own code: 75.0% in shared libraries (DOS)."),
       "a library-bound one says so");
    ok(window_has(win, "See Functions (2)."), "and points to the Functions view");
    view_histogram_ops.destroy(h);
    session_free(s);
}

/* Lost and preempted ticks, with their share of all the ticks. */
static void test_counters(WINDOW *win)
{
    struct session *s = make_session(1);
    struct view_ctx ctx = {.s = s, .focused = true};
    struct event ev = {.type = EVENT_LOST, .pid = 1};
    ev.lost.count = 1;
    session_ingest(s, &ev);
    draw(&view_counters_ops, NULL, win, &ctx);
    ok(shows(win, "    10.0%  of the ticks: dropped"), "the Counters view gives the lost share");
    ok(!window_has(win, "Preempted"), "no preempted line while there are none");
    ev.type = EVENT_PREEMPTED;
    ev.lost.count = 10;
    session_ingest(s, &ev);
    draw(&view_counters_ops, NULL, win, &ctx);
    ok(shows(win, "Preempted         10    50.0%"), "and the preempted ticks when some are");
    ok(shows(win, "    10.0%  of the ticks: dropped"),
       "the lost share stays the report's: preempted ticks are not the program's");
    is_u64((uint64_t)(report_lost_pct(&s->view.c) * 10 + 0.5), 100, "the report says 10.0%% too");
    ok(window_has(win, "ready to run but no CPU ran it"), "with what they mean");
    session_free(s);
}

/* Counts and plurals in the titles; the timeline says live only when it is. */
static void test_titles(WINDOW *win)
{
    struct outbuf *ob = outbuf_new(10);
    outbuf_feed(ob, "one line\n", 9);
    struct session *s = make_session(1);
    struct view_ctx ctx = {.s = s, .out = ob, .focused = true};
    void *o = view_output_ops.create();
    draw(&view_output_ops, o, win, &ctx);
    ok(window_has(win, "1 line, following"), "the Output view counts one line as one line");
    view_output_ops.destroy(o);
    outbuf_free(ob);
    void *t = view_timeline_ops.create();
    ctx.query = s; /* the lanes query it */
    ctx.mode = VIEW_LIVE;
    draw(&view_timeline_ops, t, win, &ctx);
    ok(window_has(win, "(live)"), "the timeline follows a live program");
    ctx.mode = VIEW_REPLAY;
    draw(&view_timeline_ops, t, win, &ctx);
    ok(!window_has(win, "(live)"), "but a replay is not live");
    ctx.mode = VIEW_ENDED;
    draw(&view_timeline_ops, t, win, &ctx);
    ok(!window_has(win, "(live)"), "nor a program that has ended");
    view_timeline_ops.destroy(t);
    session_free(s);
}

static void test_functions(WINDOW *win)
{
    struct session *s = make_session(1);
    struct view_ctx ctx = {.s = s, .focused = true};
    void *f = view_functions_ops.create();
    draw(&view_functions_ops, f, win, &ctx);
    ok(strstr(line_of(win, 2), "markbit") != NULL, "most samples first: markbit");
    ok(strstr(line_of(win, 3), "testbit") != NULL, "then testbit");
    ok(strstr(line_of(win, 4), "markall") != NULL, "then markall");
    ok(strstr(line_of(win, 2), "55.56%") != NULL, "with its share of the total");
    ok(strncmp(line_of(win, 1), "Timev ", 6) == 0, "the sort column is marked, most first");

    view_functions_ops.key(f, '>', &ctx);
    view_functions_ops.key(f, 'I', &ctx);
    view_functions_ops.key(f, 'I', &ctx);
    draw(&view_functions_ops, f, win, &ctx);
    ok(window_has(win, "sorted by Routine"), "> sorts by the next column");
    ok(strstr(line_of(win, 2), "markall") != NULL, "names A to Z: markall first");
    view_functions_ops.key(f, 'I', &ctx);
    draw(&view_functions_ops, f, win, &ctx);
    ok(strstr(line_of(win, 2), "testbit") != NULL, "I inverts: testbit first");

    memset(ctx.status, 0, sizeof ctx.status);
    view_functions_ops.search(f, "MARKB", 0, &ctx);
    int r = view_functions_ops.key(f, '\r', &ctx);
    ok(r & VIEW_JUMP, "Enter asks to show the routine's buckets");
    const struct module *m = s->modules[0];
    long k = module_find_symbol(m, ctx.jump_start);
    is_str(k >= 0 ? m->syms[k].name : NULL, "markbit", "search is case-blind and Enter names it");
    view_functions_ops.search(f, "nothing-like-this", 0, &ctx);
    ok(strstr(ctx.status, "no routine matches") != NULL, "a search that fails says so");
    view_functions_ops.search(f, "bit", -1, &ctx);
    r = view_functions_ops.key(f, '\r', &ctx);
    k = module_find_symbol(m, ctx.jump_start);
    is_str(k >= 0 ? m->syms[k].name : NULL, "testbit", "a search backwards finds the one before");
    memset(ctx.status, 0, sizeof ctx.status);
    view_functions_ops.search(f, "", 1, &ctx);
    ok(strstr(ctx.status, "no search yet") != NULL, "n before any search says so");
    view_functions_ops.destroy(f);
    session_free(s);
}

/* Long C++ names keep their start and their end: the ellipsis goes between. */
static void test_fit_middle(void)
{
    const char *name = "geo::Matrix<double>::multiply(geo::Matrix<double> const&, long) const";
    char fit[128];
    draw_fit_middle(fit, sizeof fit, name, 30);
    is_u64((uint64_t)draw_width(fit), 30, "a long name fits its 30 columns");
    ok(strncmp(fit, "geo::Matrix<do", 14) == 0, "it keeps its start (%s)", fit);
    ok(strlen(fit) > 11 && strcmp(fit + strlen(fit) - 11, "long) const") == 0, "and its end");
    draw_fit_middle(fit, sizeof fit, "main", 30);
    is_str(fit, "main", "a short name is left whole");
}

int main(void)
{
    plan(80);
    read_nm(TEST_PROGS "/sieve");
    test_scroll();
    test_fit_middle();
    test_outbuf();
    setenv("TERM", "xterm", 1);
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm(NULL, out, in);
    if (!ok(scr != NULL, "an off-screen terminal"))
        return tap_done();
    WINDOW *win = newwin(30, 100, 0, 0);
    test_histogram(win);
    test_histogram_opens();
    test_histogram_narrow();
    test_histogram_elsewhere(win);
    test_counters(win);
    test_titles(win);
    test_functions(win);
    delwin(win);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    return tap_done();
}
