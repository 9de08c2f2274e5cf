/*
 * smap.c - see smap.h.
 */
#include "smap.h"
#include "buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static struct smap_slot *smap_find_slot(struct smap_slot *slots, size_t cap,
					const char *key)
{
	size_t i = (size_t)str_hash(key) & (cap - 1);
	while (slots[i].key && strcmp(slots[i].key, key) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void smap_grow(struct smap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 16;
	struct smap_slot *ns = xcalloc(ncap, sizeof(*ns));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*smap_find_slot(ns, ncap, m->slots[i].key) = m->slots[i];
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
}

const char *smap_put(struct smap *m, const char *key, void *val)
{
	if ((m->n + 1) * 2 > m->cap)
		smap_grow(m);
	struct smap_slot *s = smap_find_slot(m->slots, m->cap, key);
	const char *old = s->key;
	if (!old)
		m->n++;
	s->key = key;
	s->val = val;
	return old;
}

void *smap_get(const struct smap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	struct smap_slot *s = smap_find_slot(m->slots, m->cap, key);
	return s->key ? s->val : NULL;
}

void smap_free(struct smap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
