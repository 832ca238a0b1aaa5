// adolc_end.h: ends what adolc_shim.h began (back to plain doubles).
#undef double
#undef malloc
#undef free
