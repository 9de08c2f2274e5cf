/*
 * smap.h - a tiny open-addressing string map from borrowed keys to pointers.
 *
 * The YAML parser's anchor table and per-mapping duplicate-key check. Keys
 * are borrowed: the owner keeps them alive (anchor names live in the anchor,
 * mapping keys in the cJSON node). FNV-1a, linear probing, capacity a power
 * of two kept at least twice the count. No deletion: the parser never needs
 * it. A zeroed struct is an empty map.
 *
 * Ownership: smap_free() frees the slots, never keys or values.
 */
#ifndef JAXJOB_SMAP_H
#define JAXJOB_SMAP_H

#include <stddef.h>

struct smap_slot {
	const char *key;	/* borrowed: owner keeps it alive */
	void *val;
};

struct smap {
	struct smap_slot *slots;
	size_t cap;		/* power of two, or 0 */
	size_t n;
};

/* Insert or replace; returns the key previously in the slot (NULL if new). */
const char *smap_put(struct smap *m, const char *key, void *val);
/* The value for `key`, or NULL. */
void *smap_get(const struct smap *m, const char *key);
void smap_free(struct smap *m);

#endif
