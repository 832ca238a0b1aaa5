/* support.c: helpers shared by the CUnit programs (see support.h).
 * Requires CUnit's registry to be initialised by the test's main before
 * suites are added; support_run_all cleans it up. */
#include "support.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int support_run_all(void) {
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
                      CU_get_number_of_suites_failed();
  bool framework_error = CU_get_error() != CUE_SUCCESS;
  CU_cleanup_registry();
  return failures || framework_error ? 1 : 0;
}

char *support_read_file(const char *path) {
  FILE *in = fopen(path, "rb");
  if (!in)
    return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, in)) > 0;) {
    len += got;
    if (cap - len - 1 == 0) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger)
        free(buf);
      buf = bigger;
    }
  }
  fclose(in);
  if (buf)
    buf[len] = '\0';
  return buf;
}

static int compare_strings(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

char **support_list_files(const char *dir, const char *suffix, int *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d)
    return NULL;
  int cap = 16;
  char **list = malloc(sizeof(char *) * (size_t)cap);
  for (struct dirent *ent; (ent = readdir(d));) {
    if (!ends_with(ent->d_name, suffix))
      continue;
    if (*n == cap)
      list = realloc(list, sizeof(char *) * (size_t)(cap *= 2));
    size_t size = strlen(dir) + strlen(ent->d_name) + 2;
    list[*n] = malloc(size);
    snprintf(list[*n], size, "%s/%s", dir, ent->d_name);
    (*n)++;
  }
  closedir(d);
  qsort(list, (size_t)*n, sizeof(char *), compare_strings);
  return list;
}

void support_free_list(char **list, int n) {
  for (int i = 0; i < n; i++)
    free(list[i]);
  free(list);
}

/* A fatal CUnit failure with a message built at run time (CUnit copies it
 * before leaving the test). */
static void fail_fatal(const char *what, const Diag *d) {
  char msg[700];
  snprintf(msg, sizeof msg, "%s: %d:%d: %s", what, d->loc.line, d->loc.col,
           d->msg);
  fprintf(stderr, "%s\n", msg);
  CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_TRUE);
}

Module *support_parse(const char *text, CheckMode mode) {
  Module *m = module_new();
  Diag d = {0};
  if (!parse_module(m, text, "<test>", &d)) {
    module_free(m);
    fail_fatal("parse error", &d);
    return NULL;
  }
  if (!check_module(m, mode, &d)) {
    module_free(m);
    fail_fatal("type error", &d);
    return NULL;
  }
  return m;
}
