/*
 * What a file says cannot rewrite the terminal: every text that profil
 * prints and that comes from a file (a .PRF's strings, an ELF's symbol and
 * file names, a source file, standard input's answers) goes through here.
 * A character that only shows (printable ASCII, a whole UTF-8 character
 * that is no C1 control) is kept; any other byte is written as ls -b and
 * git do: \n, \r, \t, \a, \b, \f, \v, else \ooo in octal (ESC is \033).
 * The screen draws the same bytes as '?' (views/draw.c), one column each.
 * JSON escapes as JSON does (quote_json).
 */
#ifndef PROFIL_QUOTE_H
#define PROFIL_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The bytes of the character at P when it may be shown as it is, or 0 when
 * the byte at P must be escaped (a control byte, a C1 control, a byte that
 * is not part of a well-formed UTF-8 character, or the NUL at the end). */
size_t quote_safe_len(const char *p);

/* Whether S holds anything to escape. */
bool quote_needed(const char *s);

/* S escaped: S itself when nothing needs it, else a buffer of this module,
 * valid until QUOTE_SLOTS more calls (enough for the arguments of one
 * printf).  Borrowed; not for threads.  NULL stays NULL. */
#define QUOTE_SLOTS 16
const char *quote(const char *s);

/* S escaped, owned by the caller. */
char *quote_dup(const char *s);

/* Write S escaped to OUT. */
void quote_fputs(const char *s, FILE *out);

/* TEXT, as cJSON printed it (malloc'd; taken), made valid UTF-8 that no
 * 8-bit terminal reads as a control: a C1 control (U+0080..U+009F; CSI is
 * U+009B) is written \u0080..\u009f, and a byte that is no part of a
 * well-formed UTF-8 character becomes U+FFFD.  cJSON passes both through
 * (a symbol's or a file's name holds any bytes), and then Python's json
 * refuses the text.  TEXT itself when nothing needed it; NULL stays NULL.
 * Owned (free). */
char *quote_json(char *text);

#endif
