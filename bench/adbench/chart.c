/* chart.c: the charts of adbench (see chart.h).  The points are kept in
 * memory and written, per problem, as a gnuplot script with inline data
 * blocks, so the script alone reproduces the chart. */
#define _POSIX_C_SOURCE 200809L
#include "chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 512
#define MAX_NAMES 32

struct point {
    const char *problem, *size, *tool;
    double x, ratio;
};
static struct point points[MAX_POINTS];
static int npoints;

/* The names are copied: the callers' labels live in buffers they reuse. */
void chart_add(const char *problem, const char *size, double x, const char *tool, double ratio) {
    if (npoints < MAX_POINTS)
        points[npoints++] = (struct point){strdup(problem), strdup(size), strdup(tool), x, ratio};
}

/* The distinct values of a field among the points of one problem (or of
 * all problems), in order of first appearance. */
static int distinct(const char *problem, int tool_field, const char **out) {
    int n = 0;
    for (int i = 0; i < npoints; i++) {
        const char *v = tool_field ? points[i].tool : points[i].problem;
        int seen = 0;
        if (problem && strcmp(points[i].problem, problem) != 0)
            continue;
        for (int j = 0; j < n; j++)
            seen |= strcmp(out[j], v) == 0;
        if (!seen && n < MAX_NAMES)
            out[n++] = v;
    }
    return n;
}

/* The x axis: sizes by increasing x, each tick labelled with its name. */
static void write_xtics(FILE *f, const char *problem) {
    const char *sep = "";
    fprintf(f, "set xtics rotate by -30 (");
    for (int i = 0; i < npoints; i++) {
        int first = 1;
        if (strcmp(points[i].problem, problem) != 0)
            continue;
        for (int j = 0; j < i; j++)
            if (strcmp(points[j].problem, problem) == 0 && points[j].x == points[i].x)
                first = 0;
        if (first) {
            fprintf(f, "%s\"%s\" %g", sep, points[i].size, points[i].x);
            sep = ", ";
        }
    }
    fprintf(f, ")\n");
}

static void write_script(FILE *f, const char *problem, const char *png) {
    const char *tools[MAX_NAMES];
    int ntools = distinct(problem, 1, tools);
    fprintf(f, "# adbench: time(derivative) / time(ADBench objective) for %s\n", problem);
    for (int t = 0; t < ntools; t++) {
        fprintf(f, "$tool%d << EOD\n", t);
        for (int i = 0; i < npoints; i++)
            if (strcmp(points[i].problem, problem) == 0 && strcmp(points[i].tool, tools[t]) == 0)
                fprintf(f, "%g %g\n", points[i].x, points[i].ratio);
        fprintf(f, "EOD\n");
    }
    fprintf(f, "set terminal pngcairo size 720,440 font \",10\"\nset output \"%s\"\n", png);
    fprintf(f, "set title \"%s: time(derivative) / time(ADBench's C objective)\"\n", problem);
    fprintf(f, "set logscale y\nset ylabel \"ratio (log scale)\"\nset xlabel \"size\"\n");
    fprintf(f, "set key outside right\nset grid ytics\nset offsets 0.3, 0.3, 0, 0\nset bmargin 6\n");
    write_xtics(f, problem);
    fprintf(f, "plot ");
    for (int t = 0; t < ntools; t++)
        fprintf(f, "%s$tool%d using 1:2 with linespoints pt %d title \"%s\"", t ? ", " : "", t, t + 4, tools[t]);
    fprintf(f, "\n");
}

void chart_write_all(const char *dir) {
    const char *problems[MAX_NAMES];
    int n = distinct(NULL, 0, problems);
    printf("\nCharts:");
    for (int p = 0; p < n; p++) {
        char gp[4096], png[4096], cmd[8300];
        snprintf(gp, sizeof gp, "%s/adbench-%s.gp", dir, problems[p]);
        snprintf(png, sizeof png, "%s/adbench-%s.png", dir, problems[p]);
        FILE *f = fopen(gp, "w");
        if (!f) {
            printf(" cannot write %s;", gp);
            continue;
        }
        write_script(f, problems[p], png);
        fclose(f);
        snprintf(cmd, sizeof cmd, "gnuplot '%s'", gp);
        printf(system(cmd) == 0 ? " %s" : " (gnuplot failed on %s)", png);
    }
    printf("\n");
}
