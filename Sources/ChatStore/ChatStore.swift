public enum ChatStoreModule: Sendable {}
