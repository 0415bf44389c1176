/// The version `chatcap --version` prints (and the man page carries).
enum ChatcapVersion {
    static let string = "0.9.0"
}
