/* interleave.h: arrays a loop writes a block per step, written where
 * they end up (DESIGN 8.62).
 *
 * Lowering makes `y[m*i + c] = e_c` (ADBench's ba_objective writing two
 * residuals per observation) a build of m arrays and their interleaving
 * (DESIGN 8.19). Emitted as they stand, the m arrays are allocated,
 * filled, copied into y and freed, and in reverse mode the cotangent of y
 * is scattered into m zeroed buffers that the reverse loop then reads.
 * This analysis finds, in a function's final IR:
 *
 *   - an interleaving `y = build (m*n) (k) ... (index (get j b) (k / m))`
 *     of the components of a build `b = build n (i) (tuple ...)` that
 *     nothing else reads: b's loop writes y's memory at `m*i + c`, and y's
 *     own binding emits nothing;
 *   - a de-interleaving `s = sum (m*n) (k) ... (accum bb_c (k / m) (index
 *     yb k))` into buffers `bb_c = alloc n` that are only read after it:
 *     neither the buffers nor the sum are emitted, and a read of bb_c at
 *     q reads yb at `m*q + c`.
 *
 * It requires the IR the emitter gets (ANF, checked) and the number of
 * references of each variable in the function; it changes nothing in the
 * IR, only says which bindings the emitter writes differently. */
#ifndef CHAD_EMIT_INTERLEAVE_H
#define CHAD_EMIT_INTERLEAVE_H

#include "ad/util.h"

/* A build whose components are strided parts of its interleaving's. */
typedef struct Interleave {
  Var *blocks; /* b: the build of a tuple of n_comp arrays */
  Var *result; /* y: the interleaving, an array or a tuple of arrays */
  Expr *count; /* y's length, an atom */
  int m;       /* the stride: elements of y per step of b */
  int n_comp;  /* b's components */
  int *leaf;   /* component j of b is leaf leaf[j] of y ... */
  int *offset; /* ... at elements m*i + offset[j] */
} Interleave;

/* A cotangent buffer read as a strided part of another array. */
typedef struct StridedPart {
  Var *of;    /* the array it is a part of (the cotangent of y) */
  Var *sum;   /* the de-interleaving sum it stands for */
  int stride; /* element q is of's element stride*q + offset */
  int offset;
} StridedPart;

typedef struct InterleavePlan {
  VarMap blocks;  /* b -> Interleave*: its loop writes into y's memory */
  VarMap results; /* y -> Interleave*: written by b's loop already */
  VarMap gathers; /* s -> PtrVec* of the buffers (Var*) it stands for */
  VarMap parts;   /* bb -> StridedPart*: emitted as no allocation */
  VarMap counts;  /* a step count -> PtrVec* of the elided loops (y or s)
                     that read it: no code when they are all it has */
} InterleavePlan;

/* Finds the interleavings and de-interleavings of body that may be
 * written in place; uses maps each variable to its number of references
 * in body (as the emitter counts them). */
void interleave_plan(Arena *a, Expr *body, const VarMap *uses, InterleavePlan *out);
void interleave_plan_free(InterleavePlan *p);

#endif
