/* trig_pairs_counted.c: trig_pairs.c with sincos and sincosf of its own,
 * which count their calls (the names are not reserved in ISO C, and the
 * generated code's prototypes are theirs): the derivatives must call them
 * once per pair; shifted's sin(a) cos(b) pairs each with its derivative,
 * cos(a) and sin(b), never with each other, so twice. The
 * checks of trig_pairs.c run on these definitions too. */
#define CHAD_HAS_SINCOS 1
#include <math.h>
#include <stdio.h>

static long sincos_calls, sincosf_calls;
void sincos(double x, double *s, double *c);
void sincosf(float x, float *s, float *c);
void sincos(double x, double *s, double *c) {
    sincos_calls++;
    *s = sin(x), *c = cos(x);
}
void sincosf(float x, float *s, float *c) {
    sincosf_calls++;
    *s = sinf(x), *c = cosf(x);
}

#define TRIG_PAIRS_COUNTED
static void trig_pairs_counts(void);
#include "trig_pairs.c"

double shifted_rev(double a, double *a_b, double b, double *b_b, double ret_b);
double wave_rev(const double *x, double *x_b, int n, double a, double *a_b, double ret_b);

/* Each derivative alone, from zero counts. */
static void trig_pairs_counts(void) {
    double x[4] = {0.1, 0.2, 0.3, 0.4}, xb[4] = {0}, ab = 0, bb = 0;
    float tb = 0, rb = 0;
    sincos_calls = sincosf_calls = 0;
    rotate_rev(0.3, &ab, 1.0, &bb, 2.0, &ab, 1.0);
    if (sincos_calls != 1)
        gc_failed++, printf("FAIL: rotate_rev called sincos %ld times, not once\n", sincos_calls);
    sincos_calls = 0;
    wave_rev(x, xb, 4, 0.5, &ab, 1.0);
    if (sincos_calls != 4)
        gc_failed++, printf("FAIL: wave_rev called sincos %ld times, not 4\n", sincos_calls);
    sincos_calls = 0;
    (void)wave_fwd(x, xb, 4, 0.5, 1.0, &ab);
    if (sincos_calls != 4)
        gc_failed++, printf("FAIL: wave_fwd called sincos %ld times, not 4\n", sincos_calls);
    sincos_calls = 0;
    spin_rev(0.5f, &tb, 1.5f, &rb, 1.0f);
    if (sincosf_calls < 1)
        gc_failed++, printf("FAIL: spin_rev never called sincosf\n");
    sincos_calls = 0;
    shifted_rev(0.4, &ab, -1.1, &bb, 1.0);
    if (sincos_calls != 2)
        gc_failed++, printf("FAIL: shifted_rev called sincos %ld times, not 2 (a and b)\n", sincos_calls);
    gc_passed++;
}
