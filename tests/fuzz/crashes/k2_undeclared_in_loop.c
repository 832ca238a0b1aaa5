__attribute__((differentiable))
double arithmetic(double x, double y, int n) {
{ double s_ = 0; for (int i_ = 0; i_ < 2147483647; i_++) s_ += m; m = s_; }