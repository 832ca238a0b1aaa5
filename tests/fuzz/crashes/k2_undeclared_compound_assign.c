#include "chad.h"
CHAD_DIFFERENTIABLE
double compound(double x, double  else y) {
    double a = x;
    a += y;