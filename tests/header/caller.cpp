// caller.cpp: a C++ caller of a.c's derivatives through the generated
// header (its extern "C" block gives them C linkage).
#include <cmath>
#include <cstdio>

#include "a_chad.h"

int main() {
  double gx = 0, gy = 0;
  rosen_rev(1.0, &gx, 1.0, &gy, 1.0); // the minimum: gradient zero
  float v[2] = {6, 8}, vb[2] = {0, 0};
  float dn = 0, dv[2] = {1, 0};
  float n = norm2_fwd(v, dv, 2, &dn);
  norm2_rev(v, vb, 2, 2.0f);
  bool ok = gx == 0 && gy == 0 && n == 10.0f && std::fabs(dn - 0.6f) < 1e-6f &&
            std::fabs(vb[0] - 1.2f) < 1e-6f && std::fabs(vb[1] - 1.6f) < 1e-6f;
  std::printf("caller.cpp: %s\n", ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
  return ok ? 0 : 1;
}
