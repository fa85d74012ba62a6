/*
 * The hard limits on what a session may hold, in one place: each is far
 * above what a real run makes, and each keeps a small hostile .PRF from
 * costing gigabytes or minutes.  docs/security.md lists them with their
 * messages; change both together.
 */
#ifndef PROFIL_SESSION_LIMITS_H
#define PROFIL_SESSION_LIMITS_H

/* Buckets: 32 MiB of counters; at 1 paragraph a bucket, 64 MiB of code. */
#define LIMIT_BUCKETS (1ull << 22)

/* Timeline frames of 100 ms: 4.85 days.  A live run keeps counting past it,
 * in the last frame. */
#define LIMIT_FRAMES (1ull << 22)

/* Frames a file may hold beyond its duration's (duration / 100 ms): the
 * frame being filled at the end, and rounding. */
#define LIMIT_FRAMES_SLACK 16

/* Modules: every executable mapping of a run, the kernel's modules included. */
#define LIMIT_MODULES 65536

/* The metadata JSON: its size, its depth and its values. */
#define LIMIT_META_BYTES  (4u << 20)
#define LIMIT_META_DEPTH  64
#define LIMIT_META_VALUES (1u << 20)

/* Marks (--control's mark, profil_mark): how many a session keeps, and
 * the bytes of each one's text. */
/* Processes and threads a file may hold, and per-thread hit counts
 * (THRD): a million threads' tables would cost 100 MB. */
#define LIMIT_PROCS       (1u << 18)
#define LIMIT_THREADS     (1u << 18)
#define LIMIT_THREAD_HITS (1u << 22)

#define LIMIT_MARKS     65536
#define LIMIT_MARK_TEXT 256

/* Seconds a mark's time may be past the run's duration in a file (the
 * duration is taken after the last mark; rounding).  A file without a
 * duration may place its marks within LIMIT_FRAMES frames. */
#define LIMIT_MARK_SLACK_S 1.0

/* Source places of a LINE chunk: every sampled PC and stack frame. */
#define LIMIT_PLACES (1u << 22)

/* Every chunk but BUCK and TIME, which have limits of their own, may
 * inflate to LIMIT_INFLATE_FREE bytes in all, and past that to at most
 * LIMIT_INFLATE_RATIO times the file's size: profil's own files inflate 2
 * to 5 times, and a chunk made to inflate a thousandfold is a bomb. */
#define LIMIT_INFLATE_FREE  (4u << 20)
#define LIMIT_INFLATE_RATIO 16

/* What each timeline frame may take, uncompressed, beyond that: an idle
 * frame is 8 bytes, and compresses a thousandfold. */
#define LIMIT_FRAME_BYTES 16

/* The embedded source texts (SRCE): the writer keeps 64 MiB. */
#define LIMIT_SOURCE_BYTES (65u << 20)

/* The frames an export (every stack with samples, written out whole) or the
 * call tree may walk: LIMIT_WALK_FRAMES, and LIMIT_WALK_PER_NODE more for
 * each node of the stack table.  Past that the stacks are cut to the depth
 * that fits, their innermost frames kept, as perf's --max-stack cuts them:
 * a recursion of 4,096 levels with a sample at each is 8 million frames
 * from a few KB of file. */
#define LIMIT_WALK_FRAMES   (1u << 20)
#define LIMIT_WALK_PER_NODE 64

#endif
