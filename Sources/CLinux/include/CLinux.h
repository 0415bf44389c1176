// Linux headers that Glibc's Swift module does not export.
#pragma once
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// The CPUs in this process's affinity mask (`taskset`, a cgroup's cpuset); 0 if it cannot be read.
int clinux_affinity_cpu_count(void);

/// Swaps the names `first` and `second` (both must exist) in one step (renameat2, RENAME_EXCHANGE):
/// anyone opening either path sees one or the other, never neither. 0, or -1 with errno.
int clinux_rename_exchange(const char *first, const char *second);
