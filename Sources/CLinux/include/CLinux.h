// Linux headers that Glibc's Swift module does not export.
#pragma once
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
