// Intentionally empty: CLinux only re-exports system headers (see include/CLinux.h).
