/* A mistyped plugin argument must not silently drop the plugin. */
// diag-args: -fplugin-arg-chad-bogus
// expect-global-error: chad: unknown plugin argument 'bogus'
double f(double x) { return x; }
