#include "config.h"

#include "tui/screen.h"
#include "views/view.h" /* the colour pairs */

#include <curses.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t active;
static int saved_stderr = -1; /* the real stderr while curses owns the screen */
static int captured = -1;     /* where stderr goes meanwhile */

bool screen_active(void)
{
    return active != 0;
}

/* htop's CRT_done pattern: give the terminal back, say what happened, and die
 * of the same signal so a core dump and the exit status stay true. */
static void screen_crash(int sig)
{
    if (active) {
        endwin();
        active = 0;
    }
    if (saved_stderr >= 0)
        dup2(saved_stderr, STDERR_FILENO);
    static const char msg[] = "profil: crashed; the terminal was restored\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The crash handler: the terminal comes back even then. */
static void screen_install_crash_handler(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction sa = {.sa_handler = screen_crash, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void screen_atexit(void)
{
    screen_stop();
}

int screen_start(void)
{
    static bool registered;
    if (!registered) {
        atexit(screen_atexit);
        registered = true;
    }
    setlocale(LC_ALL, "");
    screen_install_crash_handler();
    FILE *tmp = tmpfile();
    if (tmp != NULL) {
        fflush(stderr);
        saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        captured = fcntl(fileno(tmp), F_DUPFD_CLOEXEC, 3);
        fclose(tmp);
        if (saved_stderr >= 0 && captured >= 0)
            dup2(captured, STDERR_FILENO);
    }
    if (newterm(NULL, stdout, stdin) == NULL) {
        screen_stop();
        return -1;
    }
    active = 1;
    raw(); /* Ctrl-C is a key here: it goes to the program */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    int colors = 0;
    const char *no_color = getenv("NO_COLOR");
    if (has_colors() && (no_color == NULL || *no_color == '\0')) {
        start_color();
        use_default_colors();
        init_pair(PAIR_PROGRAM, COLOR_GREEN, -1);
        init_pair(PAIR_DOS, COLOR_CYAN, -1);
        init_pair(PAIR_IO, COLOR_RED, -1);
        init_pair(PAIR_HIGH, COLOR_YELLOW, -1);
        init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
        init_pair(PAIR_SELECT, COLOR_BLACK, COLOR_YELLOW);
        init_pair(PAIR_DIM, COLOR_BLUE, -1);
        init_pair(PAIR_WARN, COLOR_WHITE, COLOR_RED);
        colors = 1;
    }
    return colors;
}

void screen_stop(void)
{
    if (active) {
        endwin();
        active = 0;
    }
    if (saved_stderr >= 0) {
        dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
        saved_stderr = -1;
    }
    if (captured >= 0) {
        char buf[4096];
        ssize_t n;
        lseek(captured, 0, SEEK_SET);
        while ((n = read(captured, buf, sizeof buf)) > 0) {
            ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
            (void)w;
        }
        close(captured);
        captured = -1;
    }
}
