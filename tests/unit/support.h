/* support.h: helpers shared by the CUnit programs in tests/unit. */
#ifndef CHAD_TEST_SUPPORT_H
#define CHAD_TEST_SUPPORT_H

#include <CUnit/CUnit.h>

#include "ir/ir.h"

/* Runs all registered suites verbosely; returns the process exit status
 * (0 when every assertion passed). Call after adding the suites. */
int support_run_all(void);

/* Contents of a file, malloc'd and NUL-terminated; NULL if unreadable. */
char *support_read_file(const char *path);

/* Paths of the files in `dir` ending in `suffix`, sorted; malloc'd array of
 * malloc'd strings, count in *n. */
char **support_list_files(const char *dir, const char *suffix, int *n);
void support_free_list(char **list, int n);

/* Parses `text` into a fresh module (aborting the test with the message on a
 * parse error) and type-checks it in `mode`. */
Module *support_parse(const char *text, CheckMode mode);

#endif
