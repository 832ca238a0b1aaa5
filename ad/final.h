/* final.h: which element reads of a loop see memory that no later write
 * of the loop changes (DESIGN 8.31), so that the reverse sweep can read
 * them again from the memory the loop leaves instead of storing them. */
#ifndef CHAD_AD_FINAL_H
#define CHAD_AD_FINAL_H

#include "ad/util.h"

typedef struct FinalReads FinalReads;

/* Analyses `loop`, a fold bound at the top level of `body` (found by
 * identity; when it is not there, nothing is proven): the definitions of
 * the integers its indices are made of, its loops' bounds and every write
 * it makes to memory. */
FinalReads *final_reads_new(Arena *a, Expr *body, Expr *loop);
void final_reads_free(FinalReads *fr);

/* Is v bound in the loop to `index A e`, A a version of the loop's state
 * or of its field *field (-1: the state is an array), which each step
 * returns a version of, such that no write the loop
 * makes after that read, in the same step or a later one, at any depth,
 * can be to the element read? Then, once the loop has ended and while
 * nothing else writes that memory, element e of the loop's result (or of
 * its field) still holds the value v got. False whenever that is not proven. */
bool final_read(FinalReads *fr, const Var *v, int *field);

/* Is v bound at the top level of the loop's step to `index A e`, e the
 * same at every step (made of integers bound before the loop), A a version of the loop's
 * state or of its field *field, such that no write of the loop, at any
 * step, can be to that element? Then every step reads the value the
 * element has before the loop. */
bool invariant_read(FinalReads *fr, const Var *v, int *field);

#endif
