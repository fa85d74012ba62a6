/* Where profil puts its own files. */
#ifndef PROFIL_FILES_H
#define PROFIL_FILES_H

/* Make DIR and the directories above it that are missing, private (0700),
 * as a state directory should be; what exists already is left as it is.
 * Whether it worked shows when the directory is used. */
void files_mkdirs(const char *dir);

#endif
