public enum ChatIOModule {}
