__attribute__((differentiable)) double f(double x) { double r = 1;
if (x > 0) if (x > -1) if (x > -2) if (x > -3) if (x > -4) if (x > -5) if (x > -6) if (x > -7) r = r * x;
return r; }

