#include "config.h"

#include "views/view.h"

#include <string.h>

void draw_text(WINDOW *win, int y, int x, int width, const char *text)
{
    if (width <= 0)
        return;
    wmove(win, y, x);
    int n = 0;
    for (const char *p = text; *p != '\0' && n < width; p++, n++)
        waddch(win, (chtype)(unsigned char)(*p >= 32 && *p != 127 ? *p : '?'));
    for (; n < width; n++)
        waddch(win, ' ');
}

void draw_bar(WINDOW *win, int y, int x, int width, double fraction, int pair, bool colors)
{
    if (width <= 0)
        return;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    int fill = (int)(fraction * width + 0.5);
    if (fill == 0 && fraction > 0)
        fill = 1; /* something is not nothing */
    wmove(win, y, x);
    if (colors)
        wattron(win, COLOR_PAIR(pair));
    for (int i = 0; i < fill; i++)
        waddch(win, '|');
    if (colors)
        wattroff(win, COLOR_PAIR(pair));
    for (int i = fill; i < width; i++)
        waddch(win, ' ');
}

void draw_title(WINDOW *win, const char *name, const char *info, bool focused, bool colors)
{
    int w = getmaxx(win);
    int attr = colors ? COLOR_PAIR(PAIR_TITLE) : A_REVERSE;
    if (focused)
        attr |= A_BOLD;
    wattron(win, attr);
    wmove(win, 0, 0);
    for (int i = 0; i < w; i++)
        waddch(win, ' ');
    mvwaddnstr(win, 0, 1, name, w - 1);
    if (info != NULL) {
        /* Right-aligned; cut rather than dropped when the panel is narrow. */
        int room = w - (int)strlen(name) - 4, len = (int)strlen(info);
        if (len > room)
            len = room;
        if (len > 0)
            mvwaddnstr(win, 0, w - len - 1, info, len);
    }
    wattroff(win, attr);
}

size_t scroll_top(size_t top, size_t sel, size_t n, size_t rows)
{
    if (rows == 0 || n == 0)
        return 0;
    if (sel < top)
        top = sel;
    if (sel >= top + rows)
        top = sel - rows + 1;
    if (top + rows > n)
        top = n > rows ? n - rows : 0;
    return top;
}

bool scroll_key(int key, size_t *sel, size_t n, size_t page)
{
    if (n == 0)
        return key == KEY_UP || key == KEY_DOWN || key == 'j' || key == 'k';
    size_t s = *sel < n ? *sel : n - 1;
    page = page > 1 ? page - 1 : 1;
    switch (key) {
    case KEY_UP:
    case 'k':
        s = s > 0 ? s - 1 : 0;
        break;
    case KEY_DOWN:
    case 'j':
        s = s + 1 < n ? s + 1 : n - 1;
        break;
    case KEY_PPAGE:
        s = s > page ? s - page : 0;
        break;
    case KEY_NPAGE:
        s = s + page < n ? s + page : n - 1;
        break;
    case KEY_HOME:
        s = 0;
        break;
    case KEY_END:
        s = n - 1;
        break;
    default:
        return false;
    }
    *sel = s;
    return true;
}
