print("chatcap")
