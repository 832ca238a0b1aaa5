/* irmap.h: a hash map from pointers or strings to pointers, private to ir/.
 *
 * Requires keys that outlive the map. Guarantees O(1) expected get and put.
 * A NULL value means "absent", so a binding is undone by putting back the
 * value it replaced: the scopes of the parser, checker and interpreter shadow
 * and restore this way, in LIFO order, with no deletion. */
#ifndef CHAD_IR_IRMAP_H
#define CHAD_IR_IRMAP_H

#include <stdbool.h>

typedef struct IrMapEntry {
  const void *key;
  void *val;
} IrMapEntry;

typedef struct IrMap {
  IrMapEntry *entries;
  int cap; /* power of two, or 0 */
  int used;
  bool string_keys; /* compare keys as NUL-terminated strings */
} IrMap;

void *irmap_get(const IrMap *m, const void *key);
void irmap_put(IrMap *m, const void *key, void *val);
void irmap_free(IrMap *m);

#endif
