#!/usr/bin/env python3
"""digamma_ref.py: the reference table of test_special.c (mpmath, 40
digits), and the Taylor coefficients of ir/special.inc at the positive zero
of digamma."""
import mpmath as mp

mp.mp.dps = 50
XS = [1e-300, 1e-8, 0.001, 0.1, 0.5, 0.9, 0.96, 1.0, 1.2, 1.4, 1.4616321449683622, 1.5,
      1.9, 1.97, 2.0, 2.5, 3.7, 5.0, 7.25, 9.99, 10.0, 10.5, 30.0, 100.0, 1e5, 1e10, 1e15,
      1e300, -1e-8, -0.25, -0.5, -0.9, -1.25, -1.5, -2.75, -3.3, -10.1, -20.75, -1000.25,
      -123456.875]

print("/* references */")
for x in XS:
    print("    {%r, %s}," % (x, mp.nstr(mp.digamma(mp.mpf(x)), 21)))

x0 = mp.findroot(mp.digamma, 1.46)
hi = float(x0)
print("/* zero: %r + %r */" % (hi, float(x0 - mp.mpf(hi))))
print(", ".join("%.17e" % float((-1) ** (k + 1) * mp.zeta(k + 1, x0)) for k in range(1, 39)))
