/* emit.h: C text for the derivatives of one user function.
 *
 * The text follows the contract of DESIGN.md section 1: f_fwd and f_rev with
 * the primal's floating type and linkage. It compiles cleanly under
 * -std=c99..c2x -Wall -Wextra -pedantic -Werror. */
#ifndef CHAD_EMIT_H
#define CHAD_EMIT_H

#include "ir/ir.h"

/* Prototypes of f_fwd and f_rev for the primal f: they depend only on f's
 * signature, so they can be spliced right after f even when the definitions
 * have to wait for a callee defined later. malloc'd; the caller frees. */
char *emit_prototypes(Module *m, const Func *f);
/* The same for f_fwd alone (the plugin's forward-only mode), and for f_rev
 * alone (reverse-only). */
char *emit_prototypes_forward(Module *m, const Func *f);
char *emit_prototypes_reverse(Module *m, const Func *f);

/* Requires: ad_differentiate succeeded for f. Returns the definitions of the
 * tape record, f__aug, f__bwd, f_fwd and f_rev. malloc'd; the caller frees.
 * Returns NULL with a message in `err` if something cannot be expressed. */
char *emit_definitions(Module *m, const Func *f, Diag *err);
/* The definition of f_fwd alone, after ad_differentiate in forward-only
 * mode. */
char *emit_definitions_forward(Module *m, const Func *f, Diag *err);
/* The tape record, f__aug, f__bwd and f_rev, without f_fwd, after
 * ad_differentiate in reverse-only mode. */
char *emit_definitions_reverse(Module *m, const Func *f, Diag *err);

/* The primal f itself as C, from its IR: with emit_definitions this gives a
 * translation unit that needs no plugin (chad-irc, IR-level tests). */
char *emit_primal(Module *m, const Func *f, Diag *err);

#endif
