/* test_passes.c: each pass on IR text, compared with expected IR text.
 *
 * A case in tests/passes is a file ending in .ir:
 *   ; pass: anf | simplify | cse | dce | licm | linmap | flatten | materialize | indvar | hoist
 *           | unswitch | readd | merge | fuse | sweep | scalarize
 *   (def ...)            the input function(s); the pass runs on the last,
 *                        after normalisation to ANF (passes require it)
 *   ; expect:
 *   ; (def ...)          the expected output, each line behind "; "
 * The input is checked in AD mode (linear maps and zeros allowed), the
 * output must check too, and the interpreter must give the same result on
 * the `; args:` line when the output is free of linear maps (numbers, and
 * arrays written [x0 x1 ...]). */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "support.h"

/* Passes other than anf require A-normal form: the input is normalised
 * first, so cases can be written naturally. */
static Expr *run_pass(Module *m, const char *pass, Func *f) {
  Expr *e = anf_func(m, f)->body;
  if (!strcmp(pass, "anf"))
    return e;
  if (!strcmp(pass, "simplify"))
    return simplify_expr(m, e);
  if (!strcmp(pass, "cse"))
    return cse_expr(m, e);
  if (!strcmp(pass, "dce"))
    return dce_expr(m, e);
  if (!strcmp(pass, "licm"))
    return licm_expr(m, e);
  if (!strcmp(pass, "licm-primal")) /* its output is normalised again */
    return anf_body(m, f, licm_primal_expr(m, e));
  if (!strcmp(pass, "readd"))
    return readd_expr(m, e);
  if (!strcmp(pass, "merge"))
    return merge_accums(m, e);
  if (!strcmp(pass, "linmap"))
    return anf_expr(m, linmap_eliminate(m, e));
  if (!strcmp(pass, "flatten")) /* renamed, so the output reads unambiguously */
    return anf_body(m, f, flatten_ifs(m, e));
  if (!strcmp(pass, "unswitch")) /* its output is normalised again */
    return anf_body(m, f, unswitch_expr(m, e));
  if (!strcmp(pass, "hoist")) /* its output is normalised again */
    return anf_body(m, f, hoist_reads(m, e));
  if (!strcmp(pass, "indvar")) /* its output is normalised again */
    return anf_body(m, f, indvar_expr(m, e));
  if (!strcmp(pass, "fuse")) { /* in rounds until nothing fuses, as ad/driver.c runs it */
    for (int round = 0; round < 16; round++) {
      Expr *live = dce_expr(m, e);
      Expr *fused = fuse_loops(m, live, NULL, NULL);
      if (fused == live)
        return live;
      Func copy = *f;
      copy.body = simplify_expr(m, anf_body(m, f, fused));
      e = anf_func(m, &copy)->body;
    }
    return e;
  }
  if (!strcmp(pass, "sweep")) { /* in rounds until nothing fuses, as ad/driver.c runs it */
    for (int round = 0; round < 16; round++) {
      Expr *fused = fuse_sweeps(m, e, NULL, NULL);
      if (fused == e)
        return e;
      e = anf_body(m, f, fused);
    }
    return e;
  }
  if (!strcmp(pass, "scalarize")) /* its output is normalised again */
    return anf_body(m, f, scalarize_buffers(m, e));
  if (!strcmp(pass, "materialize"))
    return anf_expr(m, materialize_expr(m, e));
  return NULL;
}

/* The text after "; expect:", with the "; " of each line removed. */
static char *expected_text(const char *text) {
  const char *p = strstr(text, "; expect:");
  if (!p)
    return NULL;
  p = strchr(p, '\n');
  char *out = calloc(strlen(text) + 1, 1);
  size_t n = 0;
  while (p && *++p) {
    if (strncmp(p, "; ", 2) == 0)
      p += 2;
    else if (*p == ';')
      p += 1;
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    memcpy(out + n, p, len);
    n += len;
    out[n++] = '\n';
    p = end;
  }
  while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
    n--;
  out[n] = '\0';
  return out;
}

static char *trimmed(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
    s[--n] = '\0';
  return s;
}

static void test_pass_cases(void) {
  int nfiles = 0;
  char **files = support_list_files(CHAD_TEST_DIR "/passes", ".ir", &nfiles);
  CU_ASSERT_TRUE_FATAL(nfiles >= 6);
  for (int i = 0; i < nfiles; i++) {
    char *text = support_read_file(files[i]);
    char pass[32] = "";
    const char *ph = strstr(text, "; pass:");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
    sscanf(ph + 7, "%31s", pass);
    Module *m = support_parse(text, CHECK_AD);
    Func *f = m->funcs.items[m->funcs.len - 1];
    Func before = *f;
    f->body = run_pass(m, pass, f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->body);
    Diag d;
    if (!check_func(m, f, CHECK_AD, &d)) {
      fprintf(stderr, "%s: output does not check: %s\n", files[i], d.msg);
      CU_FAIL("pass output does not type-check");
    }
    char *got = trimmed(func_to_string(f));
    char *want = expected_text(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    if (strcmp(got, want) != 0) {
      fprintf(stderr, "%s (%s):\n--- got\n%s\n--- want\n%s\n", files[i], pass, got, want);
      CU_FAIL("pass output differs from the expected IR");
    }
    const char *args = strstr(text, "; args:");
    if (args && check_func(m, f, CHECK_FINAL, &d)) {
      Value vals[8];
      int n = 0;
      Arena *a = arena_new();
      for (const char *q = args + 7; n < f->nparams && n < 8;) {
        char *end;
        while (*q == ' ')
          q++;
        Type *t = f->params[n]->type;
        if (*q == '[' && t->kind == TY_ARRAY) { /* [x0 x1 ...]: an array */
          Value elems[64];
          int len = 0;
          for (q++; len < 64; q = end) {
            double v = strtod(q, &end);
            if (end == q)
              break;
            elems[len++] = t->elem->kind == TY_INT ? val_int((long long)v) : val_f64(v);
          }
          while (*q == ' ')
            q++;
          if (*q != ']')
            break;
          vals[n++] = val_array(a, len, elems);
          q++;
          continue;
        }
        double v = strtod(q, &end);
        if (end == q)
          break;
        vals[n] = t->kind == TY_INT ? val_int((long long)v) : val_f64(v);
        n++;
        q = end;
      }
      Value r1, r2;
      Func *orig = module_add(m, "orig$", before.nparams, before.params, before.ret, before.body);
      Diag od;
      bool runnable = check_func(m, orig, CHECK_FINAL, &od); /* no linear maps */
      /* each run gets its own arrays: accumulations write into them */
      Value fresh[8];
      for (int k = 0; k < n; k++)
        fresh[k] = vals[k].kind == V_ARRAY ? val_array(a, vals[k].n, vals[k].elems) : vals[k];
      bool ok = interp_call(m, a, f->name, n, vals, &r1, &d) &&
                (!runnable || interp_call(m, a, orig->name, n, fresh, &r2, &d));
      if (!ok)
        fprintf(stderr, "%s: %s\n", files[i], d.msg);
      CU_ASSERT_TRUE(ok);
      if (ok && runnable && !val_eq(&r1, &r2)) {
        fprintf(stderr, "%s: the pass changed the result\n", files[i]);
        CU_FAIL("pass changed the program's value");
      }
      arena_free(a);
    }
    free(got);
    free(want);
    free(text);
    module_free(m);
  }
  printf("\n  %d pass cases\n", nfiles);
  support_free_list(files, nfiles);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("passes on IR text", NULL, NULL);
  CU_add_test(s, "each pass against expected output", test_pass_cases);
  return support_run_all();
}
