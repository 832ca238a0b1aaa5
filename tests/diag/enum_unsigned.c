/* An enum without negative enumerators is an unsigned int to clang: its
   variables are outside the subset (its enumerators are plain ints). */
enum mode { PLAIN, SQUARE };

__attribute__((differentiable))
double f(double x, enum mode m) { // expect-error: cannot differentiate 'f': parameter 'm' has type 'enum mode' (aka 'unsigned int'); only 'int' integers are supported
  return m == SQUARE ? x * x : x;
}
