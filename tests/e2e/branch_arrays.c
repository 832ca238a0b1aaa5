/* branch_arrays.c: end-to-end test of arrays that each branch of a
 * condition makes and the code after it uses (emit: the if's result takes
 * over the array the branch made; rev: its cotangent buffer serves both
 * branches' arrays): a local array, an output array, ADBench's
 * rodrigues_rotate_point as written (an output filled in both branches,
 * with calls filling local arrays), such an if inside a loop, and outputs
 * a callee fills before an early return: plain, and ADBench's hand.c
 * angle_axis_to_rotation_matrix with its Matrix and set_identity as
 * written. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double local_made(const double *x, int c) {
    double t[3];
    if (c) {
        for (int i = 0; i < 3; i++)
            t[i] = x[i] * x[i];
    } else {
        for (int i = 0; i < 3; i++)
            t[i] = sin(x[i]) + 1;
    }
    return t[0] * t[1] + t[2] * x[0];
}

CHAD_DIFFERENTIABLE
void output_made(const double *x, int c, double *y) {
    if (c > 0) {
        for (int i = 0; i < 3; i++)
            y[i] = x[i] * x[(i + 1) % 3];
    } else {
        for (int i = 0; i < 3; i++)
            y[i] = exp(x[i]);
    }
}

CHAD_DIFFERENTIABLE
double sqsum(int n, const double *x) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
void cross(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* ADBench's ba.c, as its authors wrote it */
CHAD_DIFFERENTIABLE
void rodrigues_rotate_point(double const *rot, double const *pt, double *rotatedPt) {
    int i;
    double sqtheta = sqsum(3, rot);
    if (sqtheta != 0) {
        double theta, costheta, sintheta, theta_inverse;
        double w[3], w_cross_pt[3], tmp;
        theta = sqrt(sqtheta);
        costheta = cos(theta);
        sintheta = sin(theta);
        theta_inverse = 1.0 / theta;
        for (i = 0; i < 3; i++)
            w[i] = rot[i] * theta_inverse;
        cross(w, pt, w_cross_pt);
        tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1. - costheta);
        for (i = 0; i < 3; i++)
            rotatedPt[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
    } else {
        double rot_cross_pt[3];
        cross(rot, pt, rot_cross_pt);
        for (i = 0; i < 3; i++)
            rotatedPt[i] = pt[i] + rot_cross_pt[i];
    }
}

/* The rotation of several points, then a scalar of them. */
CHAD_DIFFERENTIABLE
double rotate_all(const double *rot, const double *pts, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        double r[3];
        rodrigues_rotate_point(rot, &pts[3 * k], r);
        s += r[0] * r[1] + r[2];
    }
    return s;
}

/* An if making an array in each iteration of a loop. */
CHAD_DIFFERENTIABLE
double loop_made(const double *x, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        double t[2];
        if (x[k] > 0) {
            t[0] = x[k] * x[k];
            t[1] = 2 * x[k];
        } else {
            t[0] = cos(x[k]);
            t[1] = x[k];
        }
        s += t[0] * t[1];
    }
    return s;
}

/* The output filled by a callee in the branch that returns early, element
 * by element after it. */
CHAD_DIFFERENTIABLE
void early_made(const double *x, int c, double *y) {
    if (c) {
        cross(x, x + 3, y);
        return;
    }
    y[0] = x[0] * x[1];
    y[1] = sin(x[2]);
    y[2] = x[3] + x[4] * x[5];
}

/* ADBench's hand.c, as its authors wrote it */
typedef struct {
    int nrows;
    int ncols;
    double *data; // matrix is stored in data COLUMN MAJOR!!!
} Matrix;

CHAD_DIFFERENTIABLE
void set_identity(Matrix *mat) {
    int i_col, i_row;
    for (i_col = 0; i_col < mat->ncols; i_col++) {
        for (i_row = 0; i_row < mat->nrows; i_row++) {
            if (i_col == i_row) {
                mat->data[i_row + i_col * mat->nrows] = 1.0;
            } else {
                mat->data[i_row + i_col * mat->nrows] = 0.0;
            }
        }
    }
}

CHAD_DIFFERENTIABLE
double square_sum(int n, double const *x) {
    int i;
    double res = x[0] * x[0];
    for (i = 1; i < n; i++)
        res = res + x[i] * x[i];
    return res;
}

CHAD_DIFFERENTIABLE
void angle_axis_to_rotation_matrix(double const *angle_axis, Matrix *R) {
    double norm = sqrt(square_sum(3, angle_axis));
    if (norm < 0.0001) {
        set_identity(R);
        return;
    }

    double x = angle_axis[0] / norm;
    double y = angle_axis[1] / norm;
    double z = angle_axis[2] / norm;

    double s = sin(norm);
    double c = cos(norm);

    R->data[0 + 0 * R->nrows] = x * x + (1 - x * x) * c; // first row
    R->data[0 + 1 * R->nrows] = x * y * (1 - c) - z * s;
    R->data[0 + 2 * R->nrows] = x * z * (1 - c) + y * s;

    R->data[1 + 0 * R->nrows] = x * y * (1 - c) + z * s; // second row
    R->data[1 + 1 * R->nrows] = y * y + (1 - y * y) * c;
    R->data[1 + 2 * R->nrows] = y * z * (1 - c) - x * s;

    R->data[2 + 0 * R->nrows] = x * z * (1 - c) - y * s; // third row
    R->data[2 + 1 * R->nrows] = z * y * (1 - c) + x * s;
    R->data[2 + 2 * R->nrows] = z * z + (1 - z * z) * c;
}

struct ctx { int c, n; };
#define C(p) (((const struct ctx *)(p))->c)
#define N(p) (((const struct ctx *)(p))->n)

static void lm_w(const double *x, double *y, void *c) { y[0] = local_made(x, C(c)); }
static void lm_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = local_made_fwd(x, dx, C(c), &dy[0]);
}
static void lm_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = local_made_rev(x, xb, C(c), yb[0]);
}
static void om_w(const double *x, double *y, void *c) { output_made(x, C(c), y); }
static void om_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    output_made_fwd(x, dx, C(c), y, dy);
}
static void om_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    output_made_rev(x, xb, C(c), y, yb);
}
static void rr_w(const double *x, double *y, void *c) {
    (void)c;
    rodrigues_rotate_point(x, x + 3, y);
}
static void rr_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    rodrigues_rotate_point_fwd(x, dx, x + 3, dx + 3, y, dy);
}
static void rr_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    rodrigues_rotate_point_rev(x, xb, x + 3, xb + 3, y, yb);
}
static void ra_w(const double *x, double *y, void *c) { y[0] = rotate_all(x, x + 3, N(c)); }
static void ra_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = rotate_all_fwd(x, dx, x + 3, dx + 3, N(c), &dy[0]);
}
static void ra_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = rotate_all_rev(x, xb, x + 3, xb + 3, N(c), yb[0]);
}
static void lp_w(const double *x, double *y, void *c) { y[0] = loop_made(x, N(c)); }
static void lp_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = loop_made_fwd(x, dx, N(c), &dy[0]);
}
static void lp_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = loop_made_rev(x, xb, N(c), yb[0]);
}
static void em_w(const double *x, double *y, void *c) { early_made(x, C(c), y); }
static void em_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    early_made_fwd(x, dx, C(c), y, dy);
}
static void em_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    early_made_rev(x, xb, C(c), y, yb);
}
static void aa_w(const double *x, double *y, void *c) {
    Matrix R = {3, 3, y};
    (void)c;
    angle_axis_to_rotation_matrix(x, &R);
}
static void aa_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    Matrix R = {3, 3, y}, dR = {0, 0, dy};
    (void)c;
    angle_axis_to_rotation_matrix_fwd(x, dx, &R, &dR);
}
static void aa_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    Matrix R = {3, 3, y}, Rb = {0, 0, (double *)yb}; /* an output's seed is only read */
    (void)c;
    angle_axis_to_rotation_matrix_rev(x, xb, &R, &Rb);
}

int main(void) {
    char name[64];
    struct ctx c = {0, 0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (c.c = 0; c.c < 2; c.c++) {
        snprintf(name, sizeof name, "local_made c=%d", c.c);
        p.nin = 3, p.nout = 1, p.f = lm_w, p.fwd = lm_wfwd, p.rev = lm_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "output_made c=%d", c.c);
        p.nin = 3, p.nout = 3, p.f = om_w, p.fwd = om_wfwd, p.rev = om_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "early_made c=%d", c.c);
        p.nin = 6, p.nout = 3, p.f = em_w, p.fwd = em_wfwd, p.rev = em_wrev;
        gca_check_random(&p, 3, -2, 2);
    }
    snprintf(name, sizeof name, "angle_axis_to_rotation_matrix");
    p.nin = 3, p.nout = 9, p.f = aa_w, p.fwd = aa_wfwd, p.rev = aa_wrev;
    gca_check_random(&p, 4, -2, 2);
    snprintf(name, sizeof name, "angle_axis_to_rotation_matrix near 0");
    gca_check_random(&p, 2, -1e-5, 1e-5);
    snprintf(name, sizeof name, "rodrigues_rotate_point");
    p.nin = 6, p.nout = 3, p.f = rr_w, p.fwd = rr_wfwd, p.rev = rr_wrev;
    gca_check_random(&p, 4, -2, 2);
    static const int sizes[] = {1, 2, 5};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "rotate_all n=%d", c.n);
        p.nin = 3 + 3 * c.n, p.nout = 1, p.f = ra_w, p.fwd = ra_wfwd, p.rev = ra_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "loop_made n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = lp_w, p.fwd = lp_wfwd, p.rev = lp_wrev;
        gca_check_random(&p, 4, -2, 2);
    }
    return gc_summary();
}
