/* chad.h: the portable way to mark a C function for differentiation.
 *
 *     #include <chad.h>
 *
 *     CHAD_DIFFERENTIABLE
 *     double f(double x, double y) { return x * y + sin(x); }
 *
 *     ... f_fwd(x, dx, y, dy, &df) and f_rev(x, &x_b, y, &y_b, 1.0)
 *     are then defined right after f (see DESIGN.md section 1).
 *
 * Compile with `clang -fplugin=libchad.so` to get the derivatives. Put the
 * macro before the declarator (before the return type is best): gcc rejects
 * attributes after the declarator of a function definition.
 *
 * Without the plugin the macro is harmless: clang's warning about an unknown
 * attribute is silenced for this one attribute only, and other compilers see
 * nothing. The header does not try to detect the plugin: neither
 * __has_attribute nor a predefined macro can (a macro would vanish with
 * -save-temps, silently dropping the derivatives). */
#ifndef CHAD_H
#define CHAD_H

#if defined(__clang__)
#define CHAD_DIFFERENTIABLE                                                    \
  _Pragma("clang diagnostic push")                                             \
  _Pragma("clang diagnostic ignored \"-Wunknown-attributes\"")                 \
  __attribute__((differentiable))                                              \
  _Pragma("clang diagnostic pop")
#else
#define CHAD_DIFFERENTIABLE
#endif

/* CHAD_INACTIVE on a parameter of a differentiable function: the parameter
 * is data, not a variable: it gets no shadow in f_fwd and f_rev, and nothing
 * is computed for it (the points of a regression, the data of a mixture
 * model). Allowed on floating scalars and read-only arrays:
 *
 *     CHAD_DIFFERENTIABLE
 *     double loss(const double *w, CHAD_INACTIVE const double *x, int n);
 *
 * gives loss_rev(w, w_b, x, n, ret_b). It is clang's own annotate
 * attribute, harmless without the plugin; other compilers see nothing. */
#if defined(__clang__)
#define CHAD_INACTIVE __attribute__((annotate("chad_inactive")))
#else
#define CHAD_INACTIVE
#endif

/* CHAD_CUSTOM on the declaration of a function chad cannot see (an external
 * library, a special function, a hand-optimised kernel): its derivatives
 * are the user's own g_fwd and g_rev, written to the contract of DESIGN.md
 * section 1 and declared before the first call from a differentiable
 * function; their definitions may come later or live elsewhere:
 *
 *     CHAD_CUSTOM double bessel(double x);
 *     double bessel_fwd(double x, double dx, double *d_ret);
 *     double bessel_rev(double x, double *x_b, double ret_b);
 *
 * Parameters may be double/float (active), integers, const arrays, and
 * CHAD_INACTIVE (no shadow); the result is double or float. The function
 * must be pure: chad may call it once more, or not at all when its value
 * is unused. It is clang's own annotate attribute, harmless without the
 * plugin; other compilers see nothing. */
#if defined(__clang__)
#define CHAD_CUSTOM __attribute__((annotate("chad_custom")))
#else
#define CHAD_CUSTOM
#endif

#endif
