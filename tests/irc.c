/* irc.c: the core pipeline on textual IR, without Clang.
 *
 *   chad-irc FILE.ir            differentiate every function, print the C
 *   chad-irc --dump FILE.ir     also print every stage of the pipeline
 *   chad-irc --primal FILE.ir   also print the primal functions: the output
 *                               is a translation unit that needs no plugin
 *   chad-irc --recompute FILE.ir  loops never store their residuals (the
 *                               plugin's -fplugin-arg-chad-recompute)
 *   chad-irc --no-fuse FILE.ir  consecutive loops are never fused (the
 *                               plugin's -fplugin-arg-chad-no-fuse)
 *
 * For debugging, bug reports, and tests of the emitter that compile its
 * output with a C compiler. Exit status 1 on any error, with a located
 * message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "emit/emit.h"

static char *read_all(const char *path) {
  FILE *in = fopen(path, "rb");
  if (!in)
    return NULL;
  fseek(in, 0, SEEK_END);
  long n = ftell(in);
  fseek(in, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, in);
  buf[got] = '\0';
  fclose(in);
  return buf;
}

int main(int argc, char **argv) {
  bool dump = false, primal = false, recompute = false, no_fuse = false;
  for (int i = 1; i < argc - 1; i++) {
    dump |= strcmp(argv[i], "--dump") == 0;
    primal |= strcmp(argv[i], "--primal") == 0;
    recompute |= strcmp(argv[i], "--recompute") == 0;
    no_fuse |= strcmp(argv[i], "--no-fuse") == 0;
  }
  /* --primal is read below, once the module exists */
  const char *path = argv[argc - 1];
  if (argc < 2) {
    fprintf(stderr, "usage: chad-irc [--dump] FILE.ir\n");
    return 2;
  }
  char *text = read_all(path);
  if (!text) {
    fprintf(stderr, "chad-irc: cannot read %s\n", path);
    return 1;
  }
  Module *m = module_new();
  Diag d;
  int status = 0;
  if (!parse_module(m, text, path, &d)) {
    fprintf(stderr, "%s:%d:%d: error: %s\n", path, d.loc.line, d.loc.col, d.msg);
    status = 1;
  }
  int n = m->funcs.len;
  if (primal && !status)
    printf("#include <math.h>\n\n");
  AdOptions opt = {.dump = dump ? stdout : NULL, .recompute = recompute,
                    .no_fuse = no_fuse};
  for (int i = 0; i < n && !status; i++) {
    Func *f = m->funcs.items[i];
    if (f->is_custom) /* the user's C and its g_fwd/g_rev: nothing to emit */
      continue;
    char *defs = NULL;
    if (!ad_differentiate(m, f, &opt, &d) || !(defs = emit_definitions(m, f, &d))) {
      fprintf(stderr, "%s:%d:%d: error: %s\n", path, d.loc.line, d.loc.col, d.msg);
      status = 1;
      break;
    }
    char *protos = emit_prototypes(m, f);
    char *prim = primal ? emit_primal(m, f, &d) : NULL;
    printf("%s%s\n%s", prim ? prim : "", protos, defs);
    free(prim);
    free(protos);
    free(defs);
  }
  module_free(m);
  free(text);
  return status;
}
