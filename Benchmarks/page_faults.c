// What a first touch of fresh anonymous memory costs on this machine: the floor under the per-line
// cost of a replay that must hold more memory (channels_bench's 1,000- and 10,000-channel rows write
// 83-87 MB of new ring memory; the 1-channel row reuses one hot ring). Maps 100 MiB with
// MAP_NORESERVE, as the rings' mapped storage does, and writes one byte per 4 KiB page: one page at a
// time, then populated ahead in steps of 64 and 256 KiB (MADV_POPULATE_WRITE, Linux 5.14+).
//
// Usage: cc -O2 -o page-faults Benchmarks/page_faults.c && ./page-faults
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/// ns per 4 KiB page to write one byte into each page of a fresh mapping, populating `step` bytes
/// ahead (0: let every page fault on its own).
static double touch(size_t total, size_t step) {
    char *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    double t0 = now();
    for (size_t off = 0; off < total; off += 4096) {
        if (step && off % step == 0) madvise(p + off, step, MADV_POPULATE_WRITE);
        p[off] = 1;
    }
    double t1 = now();
    munmap(p, total);
    return (t1 - t0) * 1e9 / (double)(total / 4096);
}

int main(void) {
    const size_t total = 100u << 20;
    const size_t steps[] = {0, 64u << 10, 256u << 10};
    for (int i = 0; i < 3; i++) {
        double best = 1e18;
        for (int pass = 0; pass < 3; pass++) {
            double ns = touch(total, steps[i]);
            if (ns >= 0 && ns < best) best = ns;
        }
        if (steps[i] == 0)
            printf("first touch, page by page:        %6.0f ns per 4 KiB page\n", best);
        else
            printf("populated ahead in %3zu KiB steps: %6.0f ns per 4 KiB page\n", steps[i] >> 10, best);
    }
    return 0;
}
