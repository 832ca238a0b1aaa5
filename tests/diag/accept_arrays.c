/* Arrays and loops: every form of the lowering (sum, fold, build, scatter,
   flattened nests, local and variable-length arrays, scalar-replaced
   arrays, output arrays, calls passing arrays), accepted without any
   diagnostic. */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror
#include <math.h>

#define D __attribute__((differentiable))

D double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

D void scale(const double *x, double *y, double c, int n) {
  for (int i = 0; i < n; i++)
    y[i] = c * x[i];
}

D void matvec(const double *A, const double x[], double *y, int n, int m) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < m; j++)
      s += A[i * m + j] * x[j];
    y[i] = s;
  }
}

D void histogram(const double *w, const int *idx, double *y, int n, int k) {
  for (int i = 0; i < k; i++)
    y[i] = 0;
  for (int i = 0; i < n; i++)
    y[idx[i]] += w[i] * w[i];
}

D double horner(const double *c, double x, int n) {
  double p = 0;
  for (int i = n - 1; i >= 0; i--)
    p = p * x + c[i];
  return p;
}

D void euler(const double *p, double *out, int steps) {
  double x = p[0], v = p[1];
  for (int t = 0; t < steps; t++) {
    double a = -p[2] * x - 0.1 * v;
    x = x + 0.1 * v;
    v = v + 0.1 * a;
  }
  out[0] = x;
  out[1] = v;
}

D double variance(const double *x, int n) {
  double s[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    s[0] += x[i];
    s[1] += x[i] * x[i];
  }
  double mean = s[0] / n;
  return s[1] / n - mean * mean;
}

D void outer(const double *a, const double *b, double *C, int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      C[i * m + j] = a[i] * b[j];
}

D void three(const double *x, double *y) {
  y[1] = x[0] * x[1];
  y[0] = sin(x[2]);
  y[2] = y[0] + y[1];
}

D double stride(const double *x, int n) {
  double p = 1;
  int i;
  for (i = 0; i < n; i += 2)
    p *= x[i];
  return p + i;
}

D void scatter2d(const double *A, const int *idx, double *y, int n, int m) {
  for (int i = 0; i < 3; i++)
    y[i] = 1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[idx[i * m + j]] += A[i * m + j] * A[j];
}

D double triangle(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      s += a[i * n + j] * a[j * n + i];
  return s;
}

D void reversed(const double *x, double *y, int n) {
  for (int i = n - 1; i >= 0; i--)
    y[i] = x[n - 1 - i] * (i + 1);
}

D double softmax_dot(const double *x, int n) {
  double t[n];
  for (int i = 0; i < n; i++)
    t[i] = exp(x[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i];
  double r = 0;
  for (int i = 0; i < n; i++)
    r += t[i] / s * x[i];
  return r;
}

D double cosine(const double *a, const double *b, int n) {
  return dot(a, b, n) / sqrt(dot(a, a, n) * dot(b, b, n));
}

D void squares(const double *x, double *y, int n) {
  double t;
  int i;
  for (i = 0; i < n; i++) {
    t = x[i] * 2;
    y[i] = t * t;
  }
}

D void matvec_acc(const double *A, const double *x, double *y, int n, int m) {
  for (int i = 0; i < n; i++) {
    y[i] = 0;
    for (int j = 0; j < m; j++)
      y[i] += A[i * m + j] * x[j];
  }
}

D float sumsq(const float *a, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i];
  return s;
}

D double oscillator(const double *p, int steps) {
  double s[2] = {p[0], p[1]};
  for (int t = 0; t < steps; t++) {
    double a = -p[2] * s[0];
    s[0] += 0.05 * s[1];
    s[1] += 0.05 * a;
  }
  return s[0] * s[1];
}

D void branches(double x, double *y) {
  if (x > 0) {
    y[0] = x;
    y[1] = x * x;
  } else {
    y[0] = -x;
    y[1] = 0;
  }
  y[2] = y[0] + y[1];
}

D double local3(double a, double b) {
  double t[3] = {a, b, a * b};
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += t[i] * t[i];
  return s + t[1];
}

D double last(const double *x, int n) {
  int i;
  double s = 0;
  for (i = 0; i < n; i++)
    s += x[i];
  return s * x[i - 1];
}

D void prefix(const double *a, double *y, int n) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j <= i; j++)
      s += a[j];
    y[i] = s;
  }
}

D double gather(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t[2] = {x[idx[i]], x[i]};
    s += t[0] * t[1];
  }
  return s;
}

D double permuted(const double *x, int n) {
  int p[4];
  for (int i = 0; i < n; i++)
    p[i] = n - 1 - i;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[p[i]] * (i + 1);
  return s;
}

D double local_arg(const double *x, int n) {
  double t[4];
  for (int i = 0; i < n; i++)
    t[i] = sin(x[i]);
  return dot(t, x, n);
}
