// sched_getaffinity and CPU_COUNT are GNU extensions: defined here, where _GNU_SOURCE reaches them
// (the Swift Glibc module imports <sched.h> without it).
#define _GNU_SOURCE
#include <sched.h>
#include "CLinux.h"

int clinux_affinity_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

#include <fcntl.h>
#include <stdio.h>

int clinux_rename_exchange(const char *first, const char *second) {
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
}
