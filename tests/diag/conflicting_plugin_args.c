/* forward-only and reverse-only together would make no derivative at all:
 * the plugin refuses to run instead of picking one. */
// diag-args: -fplugin-arg-chad-forward-only -fplugin-arg-chad-reverse-only
// expect-global-error: chad: plugin arguments 'forward-only' and 'reverse-only' exclude each other
double f(double x) { return x; }
