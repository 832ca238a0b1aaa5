/* chart.h: one PNG per problem, the ratio against the size, one line per
 * tool, drawn by gnuplot (Debian's gnuplot-nox). */
#ifndef CHAD_ADBENCH_CHART_H
#define CHAD_ADBENCH_CHART_H
/* x orders the sizes on the axis; the size's label names its tick. */
void chart_add(const char *problem, const char *size, double x, const char *tool, double ratio);
/* Writes DIR/adbench-PROBLEM.png (and the .gp script that draws it). */
void chart_write_all(const char *dir);
#endif
