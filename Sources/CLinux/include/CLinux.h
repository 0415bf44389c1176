// Linux headers that Glibc's Swift module does not export.
#pragma once
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// The CPUs in this process's affinity mask (`taskset`, a cgroup's cpuset); 0 if it cannot be read.
int clinux_affinity_cpu_count(void);
