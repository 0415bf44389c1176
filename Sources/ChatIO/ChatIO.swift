public enum ChatIOModule: Sendable {}
