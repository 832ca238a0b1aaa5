/* hand_ba.c: a hand-written derivative of BA's reprojection error
 * (ADBENCH-SPEC.md section 2), the yardstick for chad's BA row.
 *
 * Written for this benchmark from the mathematics, in the order ADBench's
 * compute_reproj_error computes (Rodrigues rotation, perspective division,
 * radial distortion, focal length and principal point, weight).  The
 * forward sweep keeps what the reverse sweep reads; the reverse sweep for
 * a seed (e0, e1) adds J^T (e0, e1) into the adjoints of cam, X and w.
 *
 * Two ways to make the 2 x 15 block of an observation:
 * - hand_reproj_row: a forward and a reverse sweep per row, which is what
 *   any reverse mode that takes one seed per call must do (chad's f_rev
 *   under DESIGN.md section 1, Tapenade's module in ADBench);
 * - hand_reproj_block: one forward sweep and two reverse sweeps, which a
 *   hand-written Jacobian (or a vector-mode reverse) can do.
 * The gap between the two is the price of one seed per call. */
#define _GNU_SOURCE /* sincos, where the C library has it */
#include <math.h>
#include <string.h>

#include "adbench.h"

/* What the reverse sweep reads, kept by the forward sweep. */
struct reproj_tape {
    double r[3];     /* rotation (angle-axis) */
    double Xo[3];    /* X - camera centre */
    double axis[3];  /* r / theta, or r itself when theta is 0 */
    double cross[3]; /* axis x Xo */
    double p[2];     /* Xcam[0..1] / Xcam[2] */
    double d[2];     /* p, distorted */
    double q[2];     /* d * f + principal point */
    double cos_t, sin_t, inv_t, dot, one_minus_cos, tmp, rsq, L, inv_z, w;
    int zero; /* theta == 0: ADBench's first-order branch */
};

static void reproj_forward(const double *cam, const double *X, const double *w, const double *feat, double *err,
                           struct reproj_tape *t) {
    for (int i = 0; i < 3; i++)
        t->r[i] = cam[i], t->Xo[i] = X[i] - cam[3 + i];
    double sq = t->r[0] * t->r[0] + t->r[1] * t->r[1] + t->r[2] * t->r[2], P[3];
    const double *a = t->axis, *Xo = t->Xo;
    t->zero = sq == 0;
    if (!t->zero) {
        double theta = sqrt(sq);
        /* one call for both, as chad's f_rev makes (DESIGN 8.60): the
         * yardstick is code an expert would write */
#if defined(__GLIBC__)
        sincos(theta, &t->sin_t, &t->cos_t);
#else
        t->cos_t = cos(theta), t->sin_t = sin(theta);
#endif
        t->inv_t = 1.0 / theta;
        for (int i = 0; i < 3; i++)
            t->axis[i] = t->r[i] * t->inv_t;
    } else
        memcpy(t->axis, t->r, sizeof t->axis);
    t->cross[0] = a[1] * Xo[2] - a[2] * Xo[1];
    t->cross[1] = a[2] * Xo[0] - a[0] * Xo[2];
    t->cross[2] = a[0] * Xo[1] - a[1] * Xo[0];
    if (!t->zero) {
        t->dot = a[0] * Xo[0] + a[1] * Xo[1] + a[2] * Xo[2];
        t->one_minus_cos = 1.0 - t->cos_t;
        t->tmp = t->dot * t->one_minus_cos;
        for (int i = 0; i < 3; i++)
            P[i] = Xo[i] * t->cos_t + t->cross[i] * t->sin_t + a[i] * t->tmp;
    } else
        for (int i = 0; i < 3; i++)
            P[i] = Xo[i] + t->cross[i];
    t->inv_z = 1.0 / P[2];
    t->p[0] = P[0] * t->inv_z, t->p[1] = P[1] * t->inv_z;
    t->rsq = t->p[0] * t->p[0] + t->p[1] * t->p[1];
    t->L = 1.0 + cam[9] * t->rsq + cam[10] * t->rsq * t->rsq;
    t->w = *w;
    for (int i = 0; i < 2; i++) {
        t->d[i] = t->p[i] * t->L;
        t->q[i] = t->d[i] * cam[6] + cam[7 + i];
        err[i] = t->w * (t->q[i] - feat[i]);
    }
}

/* Adds J^T (e0, e1) into cam_b (11), X_b (3) and w_b (1). */
static void reproj_reverse(const struct reproj_tape *t, const double *cam, const double *feat, double e0, double e1,
                           double *cam_b, double *X_b, double *w_b) {
    const double *Xo = t->Xo, *a = t->axis;
    double q_b[2] = {t->w * e0, t->w * e1}, d_b[2], p_b[2], P_b[3], Xo_b[3], a_b[3], cross_b[3];
    *w_b += e0 * (t->q[0] - feat[0]) + e1 * (t->q[1] - feat[1]);
    cam_b[6] += q_b[0] * t->d[0] + q_b[1] * t->d[1];
    cam_b[7] += q_b[0], cam_b[8] += q_b[1];
    d_b[0] = q_b[0] * cam[6], d_b[1] = q_b[1] * cam[6];
    double L_b = d_b[0] * t->p[0] + d_b[1] * t->p[1];
    cam_b[9] += L_b * t->rsq, cam_b[10] += L_b * t->rsq * t->rsq;
    double rsq_b = L_b * (cam[9] + 2 * cam[10] * t->rsq);
    for (int i = 0; i < 2; i++)
        p_b[i] = d_b[i] * t->L + 2 * t->p[i] * rsq_b;
    P_b[0] = p_b[0] * t->inv_z, P_b[1] = p_b[1] * t->inv_z;
    P_b[2] = -(p_b[0] * t->p[0] + p_b[1] * t->p[1]) * t->inv_z;
    double cos_b = 0, sin_b = 0, tmp_b = 0;
    if (!t->zero) {
        for (int i = 0; i < 3; i++) {
            Xo_b[i] = P_b[i] * t->cos_t, cos_b += P_b[i] * Xo[i];
            cross_b[i] = P_b[i] * t->sin_t, sin_b += P_b[i] * t->cross[i];
            a_b[i] = P_b[i] * t->tmp, tmp_b += P_b[i] * a[i];
        }
        double dot_b = tmp_b * t->one_minus_cos;
        cos_b -= tmp_b * t->dot;
        for (int i = 0; i < 3; i++)
            a_b[i] += dot_b * Xo[i], Xo_b[i] += dot_b * a[i];
    } else
        for (int i = 0; i < 3; i++)
            Xo_b[i] = P_b[i], cross_b[i] = P_b[i], a_b[i] = 0;
    /* cross = a x Xo: a_b += Xo x cross_b, Xo_b += cross_b x a */
    a_b[0] += Xo[1] * cross_b[2] - Xo[2] * cross_b[1];
    a_b[1] += Xo[2] * cross_b[0] - Xo[0] * cross_b[2];
    a_b[2] += Xo[0] * cross_b[1] - Xo[1] * cross_b[0];
    Xo_b[0] += cross_b[1] * a[2] - cross_b[2] * a[1];
    Xo_b[1] += cross_b[2] * a[0] - cross_b[0] * a[2];
    Xo_b[2] += cross_b[0] * a[1] - cross_b[1] * a[0];
    if (!t->zero) {
        /* axis = r * inv_t, inv_t = 1 / theta, theta = sqrt(r . r) */
        double inv_t_b = a_b[0] * t->r[0] + a_b[1] * t->r[1] + a_b[2] * t->r[2];
        double theta_b = -inv_t_b * t->inv_t * t->inv_t - cos_b * t->sin_t + sin_b * t->cos_t;
        double sq_b = theta_b * 0.5 * t->inv_t;
        for (int i = 0; i < 3; i++)
            cam_b[i] += a_b[i] * t->inv_t + 2 * t->r[i] * sq_b;
    } else
        for (int i = 0; i < 3; i++)
            cam_b[i] += a_b[i];
    for (int i = 0; i < 3; i++)
        X_b[i] += Xo_b[i], cam_b[3 + i] -= Xo_b[i];
}

void hand_reproj_row(const double *cam, double *cam_b, const double *X, double *X_b, const double *w, double *w_b,
                     const double *feat, double *err, const double *seed) {
    struct reproj_tape t;
    reproj_forward(cam, X, w, feat, err, &t);
    reproj_reverse(&t, cam, feat, seed[0], seed[1], cam_b, X_b, w_b);
}

void hand_reproj_block(const double *cam, const double *X, const double *w, const double *feat, double *err,
                       double *block) {
    struct reproj_tape t;
    reproj_forward(cam, X, w, feat, err, &t);
    memset(block, 0, 30 * sizeof(double));
    for (int r = 0; r < 2; r++)
        reproj_reverse(&t, cam, feat, r == 0, r == 1, block + 15 * r, block + 15 * r + 11, block + 15 * r + 14);
}
