// The floor for `make bench`: count lines of a file already in memory with memchr, the least any
// line-oriented parser must do. Prints the best of several passes as ns/line and lines/s.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: memchr-floor FILE [passes]\n"); return 64; }
    int passes = argc > 2 ? atoi(argv[2]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 66; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(size);
    if (!data || fread(data, 1, size, f) != (size_t)size) { fprintf(stderr, "read failed\n"); return 74; }
    fclose(f);
    double best = 1e30;
    long lines = 0;
    for (int p = 0; p < passes; p++) {
        double t0 = now();
        long n = 0;
        const char *q = data, *end = data + size;
        while ((q = memchr(q, '\n', end - q)) != NULL) { n++; q++; }
        double dt = now() - t0;
        if (dt < best) best = dt;
        lines = n;
    }
    printf("%ld %.6f\n", lines, best);  /* machine-readable: lines seconds */
    free(data);
    return 0;
}
