/* The session's metadata as JSON (cJSON): what ran, where, when and how it ended. */
#ifndef PROFIL_META_H
#define PROFIL_META_H

#include "session/session.h"

/* The metadata object for S as compact JSON; the caller owns the string. */
char *meta_to_json(const struct session *s);

/* Fill S's strings (program, args, comment, driver) from JSON.  0, or -1 with
 * *cause when the text is not a JSON object of the expected shape. */
int meta_from_json(struct session *s, const char *json, char **cause);

#endif
