#include "config.h"

#include "util/quote.h"
#include "views/view.h"

#include <langinfo.h>
#include <stdio.h>
#include <string.h>

bool draw_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* The bytes of the character at P, and whether it shows as itself: what
 * util/quote.c calls safe, and outside a UTF-8 locale only ASCII.  Any
 * other byte is one character of its own, drawn as '?'. */
static size_t draw_char(const char *p, bool utf8, bool *shown)
{
    size_t n = quote_safe_len(p);
    *shown = n == 1 || (n > 1 && utf8);
    return *shown ? n : 1;
}

const char *draw_fit(char *dst, size_t size, const char *text, int width)
{
    bool utf8 = draw_utf8();
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    int ellw = utf8 ? 1 : 3;
    size_t k = 0;
    bool shown;
    if (size == 0)
        return dst;
    if (width < 0)
        width = 0;
    /* Where WIDTH columns end, and whether anything but blanks follows. */
    const char *p = text, *cut = NULL;
    int cols = 0;
    while (*p != '\0') {
        if (cols == width - ellw && cut == NULL)
            cut = p;
        if (cols == width)
            break;
        p += draw_char(p, utf8, &shown);
        cols++;
    }
    bool more = false;
    for (const char *q = p; *q != '\0'; q++)
        more |= *q != ' ';
    if (!more || width < ellw || cut == NULL)
        cut = p, ell = "";
    /* Whole characters only: never half of one when DST is full. */
    for (const char *q = text; q < cut;) {
        size_t n = draw_char(q, utf8, &shown);
        if (k + n + 1 > size)
            break;
        if (shown)
            memcpy(dst + k, q, n);
        else
            dst[k] = '?'; /* a control byte, or one this locale cannot show */
        k += shown ? n : 1;
        q += n;
    }
    for (const char *q = ell; *q != '\0' && k + 1 < size; q++)
        dst[k++] = *q;
    dst[k] = '\0';
    return dst;
}

const char *draw_fit_middle(char *dst, size_t size, const char *text, int width)
{
    bool utf8 = draw_utf8(), shown;
    int ellw = utf8 ? 1 : 3, total = draw_width(text);
    if (total <= width || width < ellw + 2 || size < 8)
        return draw_fit(dst, size, text, width);
    /* The head and the tail, one column more to the head when odd. */
    int tail = (width - ellw) / 2, head = width - ellw - tail;
    const char *p = text, *tail_at = NULL;
    size_t hb = 0; /* bytes of the first HEAD columns */
    for (int cols = 0; *p != '\0'; cols++) {
        if (cols == total - tail && tail_at == NULL)
            tail_at = p;
        if (cols == head)
            hb = (size_t)(p - text);
        p += draw_char(p, utf8, &shown);
    }
    char a[512], b[512];
    snprintf(a, sizeof a, "%.*s", (int)(hb < sizeof a ? hb : sizeof a - 1), text);
    draw_fit(b, sizeof b, tail_at ? tail_at : "", tail); /* control bytes become '?' */
    char headfit[512];
    draw_fit(headfit, sizeof headfit, a, head);
    snprintf(dst, size, "%s%s%s", headfit, utf8 ? "\xe2\x80\xa6" : "...", b);
    return dst;
}

int draw_width(const char *text)
{
    bool utf8 = draw_utf8(), shown;
    int n = 0;
    for (const char *p = text; *p != '\0'; n++)
        p += draw_char(p, utf8, &shown);
    return n;
}

void draw_text(WINDOW *win, int y, int x, int width, const char *text)
{
    /* Clipped to the window: curses would wrap the rest onto the next row. */
    if (width > getmaxx(win) - x)
        width = getmaxx(win) - x;
    if (width <= 0)
        return;
    char buf[1024];
    draw_fit(buf, sizeof buf, text, width);
    mvwaddstr(win, y, x, buf);
    for (int n = draw_width(buf); n < width; n++)
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
    draw_text(win, 0, 0, w, "");
    draw_text(win, 0, 1, w - 1, name);
    if (info != NULL) {
        /* Right-aligned; cut rather than dropped when the panel is narrow. */
        int room = w - draw_width(name) - 4;
        char buf[256];
        draw_fit(buf, sizeof buf, info, room);
        int len = draw_width(buf);
        if (room > 0 && len > 0)
            mvwaddstr(win, 0, w - len - 1, buf);
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
    case 'k': s = s > 0 ? s - 1 : 0; break;
    case KEY_DOWN:
    case 'j': s = s + 1 < n ? s + 1 : n - 1; break;
    case KEY_PPAGE: s = s > page ? s - page : 0; break;
    case KEY_NPAGE: s = s + page < n ? s + page : n - 1; break;
    case KEY_HOME: s = 0; break;
    case KEY_END: s = n - 1; break;
    default: return false;
    }
    *sel = s;
    return true;
}
