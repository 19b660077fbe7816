/* SPDX-License-Identifier: MIT */
/* The input policy: every file rgbench reads is opened without blocking, must be a regular file and is size-capped. */
#ifndef RG_INPUT_H
#define RG_INPUT_H

#include <stddef.h>

/* The default cap: the result reader's limit, also for module output and topology XML. */
#define RG_INPUT_MAX_BYTES (64u << 20)

enum rg_input_flags {
	/*
	 * A pseudo-file (sysfs, debugfs): its size from fstat() says nothing,
	 * so read up to the cap and refuse more instead of trusting st_size.
	 */
	RG_IN_PSEUDO = 1 << 0,
	/* The caller also accepts a directory: say so when refusing. */
	RG_IN_OR_DIR = 1 << 1,
};

/* Why a read was refused: the caller may place the size case on line 1. */
enum rg_input_err {
	RG_IN_EOPEN = -1,	/* cannot open or read, or not a regular file */
	RG_IN_ETOOBIG = -2,	/* over the cap */
};

/*
 * Opens path O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC (a FIFO or a device never
 * blocks or acts on open), then fstat()s the descriptor: a regular file of at
 * most max bytes (unless RG_IN_PSEUDO) gives its fd; otherwise a negative
 * enum rg_input_err with why in why[] (no path: the caller prefixes it):
 *   "cannot open: <strerror>", "not a regular file (a FIFO)",
 *   "not a regular file or directory (a FIFO)" (RG_IN_OR_DIR),
 *   "file is <n> bytes, over the <m> MiB limit";
 * errno then says the same: open()'s, EINVAL (not a regular file), EFBIG.
 */
int rg_input_open(const char *path, size_t max, unsigned int flags, char *why, size_t whylen);

/*
 * rg_input_open(), then the whole file into a malloc()ed, NUL-terminated
 * buffer (*buf, *len without the NUL). A regular file that changes size
 * while being read is refused ("file changed size while being read").
 * 0, or a negative enum rg_input_err with why[] as above (*buf untouched).
 */
int rg_input_read(const char *path, size_t max, unsigned int flags, char **buf, size_t *len,
		  char *why, size_t whylen);

#endif /* RG_INPUT_H */
