/* int_types.c: end-to-end test of every C integer type: as loop counter,
 * bound and index (signed and unsigned, every width), as parameters and
 * locals with C's exact semantics (unsigned wrap-around, mixed
 * signed/unsigned comparisons, promotions of char and short, conversions to
 * and from floating types), enums, bitwise operators and shifts, integer
 * constants wider than int, sizeof, and loop conditions on an affine
 * expression of the counter or against a floating bound. */
#include <stddef.h>
#include <stdint.h>

#include "chad.h"
#include "gradcheck.h"

/* Counters and bounds of every width and signedness. */
CHAD_DIFFERENTIABLE
double sum_unsigned(const double *a, unsigned n) {
    double s = 0;
    unsigned i;
    for (i = 0; i < n; i++)
        s += a[i] * a[i];
    return s;
}

CHAD_DIFFERENTIABLE
double sum_size_t(const double *a, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; ++i)
        s += a[i] * (double)(i + 1);
    return s;
}

CHAD_DIFFERENTIABLE
double sum_widths(const double *a, short n) {
    double s = 0;
    for (unsigned char i = 0; i < n; i++)
        s += a[i];
    for (long long j = n - 1; j >= 0; j--)
        s += a[j] * a[j] * (double)j;
    for (unsigned short k = 1; k <= (unsigned short)n; k += 2)
        s -= a[k - 1] / 3.0;
    for (int64_t m = 0; m < (int64_t)n; m++)
        s += 0.5 * a[m];
    for (uint32_t q = 0; q < (uint32_t)n; q++)
        s += a[q] * 0.25;
    return s;
}

/* C's mixed comparisons, written on purpose: -Wsign-compare is off for the
 * next two functions only. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wsign-compare"

/* An int counter against a size_t bound: C compares in unsigned long. */
CHAD_DIFFERENTIABLE
double mixed_counter(const double *a, size_t n) {
    double s = 1;
    for (int i = 0; i < n; i++)
        s = s * 0.5 + a[i];
    return s;
}

/* Conditions on an affine expression of the counter, and a double bound
 * (ADBench's gmm: for (j = 1; j <= p; j++) with double p). */
CHAD_DIFFERENTIABLE
double affine_conditions(const double *a, long n, double p) {
    double s = 0;
    for (long i = 0; i + 1 < n; i++)
        s += a[i] * a[i + 1];
    for (unsigned long i = 0; i < (unsigned long)n - 1; i++)
        s += a[i + 1];
    for (int j = 1; j <= p; j++)
        s += a[j - 1] * j;
    return s;
}

/* Unsigned arithmetic wraps; a mixed comparison converts -1 to UINT_MAX. */
CHAD_DIFFERENTIABLE
double unsigned_semantics(double x, unsigned k) {
    unsigned big = k - 5u;     /* wraps for k < 5 */
    int neg = -1;
    double r = x;
    if (neg < k)               /* false: -1 converts to UINT_MAX */
        r = r * 100;
    if (big > 1000u)
        r = r * x;
    unsigned long long w = 18446744073709551615ULL;
    w += k;                    /* wraps to k - 1 */
    return r + x * (double)w + (double)(big % 7u);
}
#pragma clang diagnostic pop

/* char and short promote to int in arithmetic; narrowing wraps. */
CHAD_DIFFERENTIABLE
double narrow_types(double x, signed char c, unsigned short us) {
    unsigned char uc = (unsigned char)(c * 3);   /* wraps modulo 256 */
    short sh = (short)(us + 70000);              /* wraps to short */
    char ch = 'a';
    long l = 3000000000L;                        /* wider than int */
    return x * uc + x * x * sh / 1000.0 + x * (ch - 'a' + 1) + (double)(l / 1000000000L) * x;
}

/* Bitwise operators and shifts, and their compound forms. */
CHAD_DIFFERENTIABLE
double bit_ops(double x, unsigned flags, int k) {
    double r = 0;
    if (flags & 1u)
        r += x;
    if ((flags >> 1) & 1u)
        r += x * x;
    if (flags & (1u << 2))
        r += x * x * x;
    unsigned mask = ~flags;
    mask ^= 0xffu;
    mask |= 1u << 8;
    mask <<= 1;
    int m = ((k & 0xf) << 2) | 1;
    m >>= 1;
    m &= 0x7f;
    return r + x * (double)(mask & 0x3ffu) + x * m;
}

/* Enums (unsigned without negative enumerators), as parameters and locals. */
enum mode { PLAIN, SQUARE, CUBE };
enum sign { MINUS = -1, PLUS = 1 };

CHAD_DIFFERENTIABLE
double enum_param(double x, enum mode m, enum sign s) {
    enum mode local = m;
    double r = x;
    if (local == SQUARE)
        r = x * x;
    else if (local >= CUBE)
        r = x * x * x;
    return r * s;
}

/* Conversions between floating and every integer type, and sizeof. */
CHAD_DIFFERENTIABLE
double float_int_conversions(double x, double y) {
    /* piecewise constant in y, with jumps at multiples of 1/8 only */
    long long ll = (long long)(y * 8) * 3000000000LL;       /* beyond int */
    unsigned u = (unsigned)(y > 0 ? y * 4 : 0) * 1000000000u;
    size_t sz = sizeof(double) * 2 + sizeof x;
    double f = x * (double)ll * 1e-10;
    return f + x * (double)u * 1e-9 + x * (double)sz + (double)(unsigned long)(y * 8 + 8) * x;
}

/* Integer arrays of other types: indices as unsigned and size_t. */
CHAD_DIFFERENTIABLE
double gather_unsigned(const double *a, const unsigned *idx, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[idx[i]] * a[i];
    return s;
}

/* An output array filled at a size_t counter. */
CHAD_DIFFERENTIABLE
void scale_into(const double *a, double *y, unsigned long n) {
    for (unsigned long i = 0; i < n; i++)
        y[i] = a[i] * a[i] * 0.5;
}

/* A loop that carries a 64-bit generator state beside a floating one: the
 * reverse sweep reads the state back from the loop's tape, and its low bits
 * (which a double cannot hold) decide the weights. */
CHAD_DIFFERENTIABLE
double lcg_weights(const double *w, int n, unsigned long seed) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        double r = (double)(seed & 0xffffUL) / 65536.0;
        s = s * r + w[i] * w[i] * (1 - r);
    }
    return s;
}

/* ---------------------------------------------------------------- wrappers */

struct ctx { int n; double p; };
#define N(c) (((const struct ctx *)(c))->n)
#define P(c) (((const struct ctx *)(c))->p)

static void su_w(const double *x, double *y, void *c) { y[0] = sum_unsigned(x, (unsigned)N(c)); }
static void su_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = sum_unsigned_fwd(x, dx, (unsigned)N(c), &dy[0]);
}
static void su_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = sum_unsigned_rev(x, xb, (unsigned)N(c), yb[0]);
}
static void ss_w(const double *x, double *y, void *c) { y[0] = sum_size_t(x, (size_t)N(c)); }
static void ss_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = sum_size_t_fwd(x, dx, (size_t)N(c), &dy[0]);
}
static void ss_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = sum_size_t_rev(x, xb, (size_t)N(c), yb[0]);
}
static void sw_w(const double *x, double *y, void *c) { y[0] = sum_widths(x, (short)N(c)); }
static void sw_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = sum_widths_fwd(x, dx, (short)N(c), &dy[0]);
}
static void sw_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = sum_widths_rev(x, xb, (short)N(c), yb[0]);
}
static void mc_w(const double *x, double *y, void *c) { y[0] = mixed_counter(x, (size_t)N(c)); }
static void mc_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = mixed_counter_fwd(x, dx, (size_t)N(c), &dy[0]);
}
static void mc_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = mixed_counter_rev(x, xb, (size_t)N(c), yb[0]);
}
/* x = (a[0..n), p): p is active but the loop count depends on it only
 * through the comparison, so its derivative is zero. */
static void ac_w(const double *x, double *y, void *c) { y[0] = affine_conditions(x, N(c), x[N(c)]); }
static void ac_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = affine_conditions_fwd(x, dx, N(c), x[N(c)], dx[N(c)], &dy[0]);
}
static void ac_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = affine_conditions_rev(x, xb, N(c), x[N(c)], &xb[N(c)], yb[0]);
}
static void lw_w(const double *x, double *y, void *c) { y[0] = lcg_weights(x, N(c), 12345UL); }
static void lw_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = lcg_weights_fwd(x, dx, N(c), 12345UL, &dy[0]);
}
static void lw_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = lcg_weights_rev(x, xb, N(c), 12345UL, yb[0]);
}
static unsigned ga_idx[32];
static void ga_w(const double *x, double *y, void *c) { y[0] = gather_unsigned(x, ga_idx, (size_t)N(c)); }
static void ga_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = gather_unsigned_fwd(x, dx, ga_idx, (size_t)N(c), &dy[0]);
}
static void ga_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = gather_unsigned_rev(x, xb, ga_idx, (size_t)N(c), yb[0]);
}
static void si_w(const double *x, double *y, void *c) { scale_into(x, y, (unsigned long)N(c)); }
static void si_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    scale_into_fwd(x, dx, y, dy, (unsigned long)N(c));
}
static void si_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    scale_into_rev(x, xb, y, yb, (unsigned long)N(c));
}

struct scal { unsigned u; signed char c; unsigned short us; enum mode m; enum sign s; };
#define S(c) ((const struct scal *)(c))
static double us_gc(const double *x, void *c) { return unsigned_semantics(x[0], S(c)->u); }
static double us_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return unsigned_semantics_fwd(x[0], d[0], S(c)->u, r);
}
static double us_gc_rev(const double *x, double *b, double s, void *c) {
    return unsigned_semantics_rev(x[0], &b[0], S(c)->u, s);
}
static double nt_gc(const double *x, void *c) { return narrow_types(x[0], S(c)->c, S(c)->us); }
static double nt_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return narrow_types_fwd(x[0], d[0], S(c)->c, S(c)->us, r);
}
static double nt_gc_rev(const double *x, double *b, double s, void *c) {
    return narrow_types_rev(x[0], &b[0], S(c)->c, S(c)->us, s);
}
static double bo_gc(const double *x, void *c) { return bit_ops(x[0], S(c)->u, S(c)->c); }
static double bo_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return bit_ops_fwd(x[0], d[0], S(c)->u, S(c)->c, r);
}
static double bo_gc_rev(const double *x, double *b, double s, void *c) {
    return bit_ops_rev(x[0], &b[0], S(c)->u, S(c)->c, s);
}
static double en_gc(const double *x, void *c) { return enum_param(x[0], S(c)->m, S(c)->s); }
static double en_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return enum_param_fwd(x[0], d[0], S(c)->m, S(c)->s, r);
}
static double en_gc_rev(const double *x, double *b, double s, void *c) {
    return enum_param_rev(x[0], &b[0], S(c)->m, S(c)->s, s);
}
GC_WRAP2(float_int_conversions)

static void check_arrays(const char *what, int n, int nin, int nout, gca_fn f, gca_fwd_fn fwd,
                         gca_rev_fn rev, struct ctx *c) {
    char name[64];
    struct gca_problem p = {0};
    snprintf(name, sizeof name, "%s n=%d", what, n);
    p.name = name, p.ctx = c, p.nin = nin, p.nout = nout, p.f = f, p.fwd = fwd, p.rev = rev;
    gca_check_random(&p, 3, -2, 2);
}

int main(void) {
    static const int sizes[] = {1, 2, 7, 20};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c = {sizes[k], 0};
        int n = c.n;
        check_arrays("sum_unsigned", n, n, 1, su_w, su_wfwd, su_wrev, &c);
        check_arrays("sum_size_t", n, n, 1, ss_w, ss_wfwd, ss_wrev, &c);
        check_arrays("sum_widths", n, n, 1, sw_w, sw_wfwd, sw_wrev, &c);
        check_arrays("mixed_counter", n, n, 1, mc_w, mc_wfwd, mc_wrev, &c);
        check_arrays("scale_into", n, n, n, si_w, si_wfwd, si_wrev, &c);
        check_arrays("lcg_weights", n, n, 1, lw_w, lw_wfwd, lw_wrev, &c);
        for (int i = 0; i < n; i++)
            ga_idx[i] = (unsigned)((i * 7 + 3) % n);
        check_arrays("gather_unsigned", n, n, 1, ga_w, ga_wfwd, ga_wrev, &c);
        {   /* p at a fixed value away from the integers: the FD step must
               not cross one */
            struct gca_problem p = {0};
            double pts[3 * 21];
            char name[64];
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < n; i++)
                    pts[t * (n + 1) + i] = 0.3 * (i + 1) * (t % 2 ? -1 : 1) + 0.1 * t;
                pts[t * (n + 1) + n] = n - 0.4 - t * 0.35;
            }
            snprintf(name, sizeof name, "affine_conditions n=%d", n);
            p.name = name, p.ctx = &c, p.nin = n + 1, p.nout = 1;
            p.f = ac_w, p.fwd = ac_wfwd, p.rev = ac_wrev;
            gca_check(&p, 3, pts);
        }
    }
    {   /* n = 0 with an unsigned bound: n - 1 wraps, as in C */
        double a[2] = {1.5, 2.0};
        gc_expect(sum_unsigned(a, 0) == 0, "sum_unsigned n=0", "value is not 0");
        gc_expect(affine_conditions(a, 1, 0.5) == affine_conditions_rev(a, a, 1, 0.5, a, 0.0),
                  "affine_conditions n=1", "value differs");
    }
    static const unsigned us_vals[] = {0, 3, 5, 6, 2000};
    for (unsigned k = 0; k < 5; k++) {
        struct scal s = {us_vals[k], 0, 0, PLAIN, PLUS};
        GC_RUN("unsigned_semantics", us, 1, &s, GC_DOUBLE, 1.5, -0.75, 0.25);
    }
    static const signed char cs[] = {-100, -1, 0, 90, 127};
    static const unsigned short uss[] = {0, 1, 65535, 30000, 4000};
    for (unsigned k = 0; k < 5; k++) {
        struct scal s = {0, cs[k], uss[k], PLAIN, PLUS};
        GC_RUN("narrow_types", nt, 1, &s, GC_DOUBLE, 1.5, -0.75, 0.25);
    }
    for (unsigned flags = 0; flags < 8; flags++) {
        struct scal s = {flags, (signed char)(flags * 5 - 20), 0, PLAIN, PLUS};
        GC_RUN("bit_ops", bo, 1, &s, GC_DOUBLE, 1.5, -0.75);
    }
    for (int m = PLAIN; m <= CUBE; m++) {
        struct scal s = {0, 0, 0, (enum mode)m, m == CUBE ? MINUS : PLUS};
        GC_RUN("enum_param", en, 1, &s, GC_DOUBLE, 1.5, -0.75);
    }
    GC_CHECK(float_int_conversions, 2, 1.5, 0.37, -0.75, 0.61, 0.25, -0.31);
    return gc_summary();
}
