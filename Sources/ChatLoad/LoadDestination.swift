/// Where the rows of one kind of capture file go: chat lines (`DIR/<channel>/`) to `--table`, capture's
/// records (`DIR/_session/`) to `--records-table`. Each has its table's client, the batch being filled
/// or retried, and whether the table's columns were checked (``TableCheck``) before its first INSERT.
final class LoadDestination {
    let client: ClickHouseClient
    let kind: TableCheck.Kind
    /// The columns its rows carry.
    let columns: [String]
    var batch = LoadBatch()
    var checked = false

    init(client: ClickHouseClient, kind: TableCheck.Kind, columns: [String]) {
        self.client = client
        self.kind = kind
        self.columns = columns
    }
}

@available(*, unavailable)
extension LoadDestination: Sendable {}
