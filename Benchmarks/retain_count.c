// An LD_PRELOAD counter of Swift reference-count increments, for `make alloc` (Tests/AllocationChecks):
// counts the calls of swift_retain, swift_retain_n, swift_bridgeObjectRetain and
// swift_bridgeObjectRetain_n of the whole process into retain_count_retains, which the harness reads by
// name (dlsym) around each scenario. The retains themselves go to the runtime's own entry points (the
// next definition, RTLD_NEXT), unchanged. Only calls that cross into libswiftCore are seen: a build
// with the runtime linked in statically (--static-swift-stdlib, the release `chatcap`) is not counted,
// which is why the harness is built without it.
//
// Why count: a retain and a release on a line's path are two atomic read-modify-writes, and the
// release, a locked instruction after the line's output, waits for its stores; they crept in where a
// class reference was bound from a property (`guard let sink`, `if let renderer`) or an existential
// compared with nil (issue #39; README, "No reference counting a line").
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

atomic_long retain_count_retains;

static void *(*next_retain)(void *);
static void *(*next_retain_n)(void *, unsigned);
static void *(*next_bridge_retain)(void *);
static void *(*next_bridge_retain_n)(void *, int);

#define COUNT(n) atomic_fetch_add_explicit(&retain_count_retains, (n), memory_order_relaxed)

void *swift_retain(void *object) {
    if (!next_retain) next_retain = (void *(*)(void *))dlsym(RTLD_NEXT, "swift_retain");
    COUNT(1);
    return next_retain(object);
}

void *swift_retain_n(void *object, unsigned n) {
    if (!next_retain_n) next_retain_n = (void *(*)(void *, unsigned))dlsym(RTLD_NEXT, "swift_retain_n");
    COUNT(n);
    return next_retain_n(object, n);
}

void *swift_bridgeObjectRetain(void *object) {
    if (!next_bridge_retain) next_bridge_retain = (void *(*)(void *))dlsym(RTLD_NEXT, "swift_bridgeObjectRetain");
    COUNT(1);
    return next_bridge_retain(object);
}

void *swift_bridgeObjectRetain_n(void *object, int n) {
    if (!next_bridge_retain_n)
        next_bridge_retain_n = (void *(*)(void *, int))dlsym(RTLD_NEXT, "swift_bridgeObjectRetain_n");
    COUNT(n);
    return next_bridge_retain_n(object, n);
}
