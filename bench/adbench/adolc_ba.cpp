// ADOL-C on ADBench's BA objective, the C source itself taped through
// adolc_shim.h's macro trick (`double` -> `adouble`), not a transcription.
// As ADBench's tools do, the Jacobian is built block by block: one tape of
// compute_reproj_error (15 inputs: camera, point, weight; 2 outputs) and one
// of compute_zach_weight_error, replayed per observation.  A tape records
// one branch of rodrigues_rotate_point's `theta != 0`; the taping point has
// theta != 0, like every observation of ADBench's BA files.
#include "adolc_shim.h"
#define ba_objective adolc_ba_objective
#include CHAD_ADBENCH_C_BA
#undef ba_objective
#include "adolc_end.h"
#include "adolc_api.h"

extern "C" void adolc_ba_tape(short tag, const double *cam, const double *X, double w, const double *feat) {
    adouble in[15], f[2], err[2], werr, aw;
    double out[2];
    adb_trace_on(tag, 1000);
    for (int i = 0; i < 11; i++)
        in[i] <<= cam[i];
    for (int i = 0; i < 3; i++)
        in[11 + i] <<= X[i];
    in[14] <<= w;
    f[0] = feat[0];
    f[1] = feat[1];
    compute_reproj_error(in, in + 11, in + 14, f, err);
    err[0] >>= out[0];
    err[1] >>= out[1];
    trace_off();

    adb_trace_on(tag + 1, 100);
    aw <<= w;
    compute_zach_weight_error(&aw, &werr);
    werr >>= out[0];
    trace_off();
}

// J (2 x 15, row-major) of the reprojection error at in = (cam, X, w)
extern "C" void adolc_ba_block(short tag, const double *in, double *J) {
    double *rows[2] = {J, J + 15};
    jacobian(tag, 2, 15, in, rows);
}

extern "C" double adolc_ba_weight(short tag, double w) {
    double g;
    gradient(tag + 1, 1, &w, &g);
    return g;
}
