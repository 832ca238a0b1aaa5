// adolc_shim.h: included by the ADOL-C translation units right before they
// include one of ADBench's plain-C sources.  Those sources are taped as they
// are, through a macro trick rather than a transcription: every `double` in
// them becomes ADOL-C's `adouble`, and malloc/free become new[]/delete[],
// because an adouble must be constructed (each one takes a location on the
// tape) and malloc'd memory holds no constructed objects.  The system
// headers come first, so the sources' own #includes of them are no-ops and
// the macros reach ADBench's code only.  adolc_end.h undoes the macros.
#ifndef CHAD_ADBENCH_ADOLC_SHIM_H
#define CHAD_ADBENCH_ADOLC_SHIM_H
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <cmath>
#include <cstdlib>
#include <adolc/adolc.h>

// bytes is n * sizeof(double), which the macro has made n * sizeof(adouble)
inline void *adb_malloc(size_t bytes) { return new adouble[bytes / sizeof(adouble)]; }
inline void adb_free(adouble *p) { delete[] p; }

// ADOL-C has no lgamma.  GMM calls it only on a constant (the Wishart
// normalisation, a function of D and m), so a passive value is exact.
inline adouble lgamma(const badouble &a) { return adouble(std::lgamma(a.getValue())); }

// Tape buffer sizes (elements) for about `ops` operations, so that a tape
// stays in memory instead of spilling to files in the working directory.
inline void adb_trace_on(short tag, double ops) {
    double n = ops * 2 + 65536;
    unsigned size = n > 4e9 ? 4000000000u : (unsigned)n;
    trace_on(tag, 1, size, size * 2, size, size);
}
#endif

#define double adouble
#define malloc adb_malloc
#define free adb_free
