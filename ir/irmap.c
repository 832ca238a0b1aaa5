/* irmap.c: open addressing with linear probing (see irmap.h). */
#include "irmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const IrMap *m, const void *key) {
  if (!m->string_keys) /* Fibonacci hashing spreads aligned addresses */
    return (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (const unsigned char *p = key; *p; p++)
    h = (h ^ *p) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

static bool same_key(const IrMap *m, const void *x, const void *y) {
  return x == y || (m->string_keys && strcmp(x, y) == 0);
}

static IrMapEntry *find_slot(const IrMap *m, const void *key) {
  size_t mask = (size_t)m->cap - 1;
  for (size_t i = hash_key(m, key) & mask;; i = (i + 1) & mask)
    if (!m->entries[i].key || same_key(m, m->entries[i].key, key))
      return &m->entries[i];
}

static void grow(IrMap *m) {
  IrMap bigger = {.cap = m->cap ? m->cap * 2 : 64, .string_keys = m->string_keys};
  bigger.entries = calloc((size_t)bigger.cap, sizeof(IrMapEntry));
  if (!bigger.entries) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  for (int i = 0; i < m->cap; i++)
    if (m->entries[i].key)
      *find_slot(&bigger, m->entries[i].key) = m->entries[i];
  bigger.used = m->used;
  free(m->entries);
  *m = bigger;
}

void *irmap_get(const IrMap *m, const void *key) {
  if (!m->cap)
    return NULL;
  return find_slot(m, key)->val;
}

void irmap_put(IrMap *m, const void *key, void *val) {
  if ((m->used + 1) * 4 > m->cap * 3)
    grow(m);
  IrMapEntry *slot = find_slot(m, key);
  if (!slot->key) {
    slot->key = key;
    m->used++;
  }
  slot->val = val;
}

void irmap_free(IrMap *m) {
  free(m->entries);
  m->entries = NULL;
  m->cap = m->used = 0;
}
