/*
 * What the .PRF writer (prf_write.c) and reader (prf.c) share: the layout of
 * a chunk's header.
 */
#ifndef PROFIL_PRF_PRF_CHUNK_H
#define PROFIL_PRF_PRF_CHUNK_H

#define CHUNK_HEADER_LEN 24
#define CHUNK_ZLIB       0x1u

#endif
