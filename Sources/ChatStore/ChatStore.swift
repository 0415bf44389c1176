public enum ChatStoreModule {}
