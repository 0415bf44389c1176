print("alloc")
