/// What `load` checks of a table before its first INSERT: that every column it sends is there. A table
/// made from an older docs/clickhouse.sql lacks `historical`, and a server that skips unknown fields
/// (current releases by default) would take the rows without it, silently; one that checks them (18.16)
/// would refuse every row with a parse error that does not say what to do. Either way `load` stops
/// first and says what to run (exit 78).
enum TableCheck {
    /// What the rows of a table are.
    enum Kind {
        /// Chat lines: `--table`, created by docs/clickhouse.sql.
        case lines
        /// Capture's records: `--records-table`.
        case records
    }

    /// Checks `client`'s table for `columns`.
    ///
    /// - Throws: ``LoadError/schema(table:advice:)`` for a records table that does not exist or any
    ///   table that lacks columns; the query's own errors when the server cannot answer (temporary ones
    ///   are retried like an INSERT). A lines table that does not exist is left to the INSERT's error.
    static func check(_ client: ClickHouseClient, columns: [String], kind: Kind) throws(LoadError) {
        let present = try client.columns()
        if present.isEmpty {
            guard kind == .records else { return }
            throw LoadError.schema(
                table: client.table,
                advice:
                    "does not exist: create it (Scripts/clickhouse_schema.sh URL runs docs/clickhouse.sql, which leaves "
                    + "existing tables as they are), or leave capture's records out with --records-table none")
        }
        let missing = columns.filter { !present.contains($0) }
        guard !missing.isEmpty else { return }
        throw LoadError.schema(
            table: client.table, advice: advice(missing: missing, present: present, table: client.table))
    }

    /// What to do about `missing` columns.
    static func advice(missing: [String], present: [String], table: String) -> String {
        let lacks =
            "lacks the column\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) that load sends: "
        if missing == ["historical"] {
            return lacks + "a table made before load sent it; add it with "
                + "ALTER TABLE \(table) ADD COLUMN historical UInt8 DEFAULT 0 (on a Distributed table: on it and on "
                + "every shard's local table; docs/clickhouse.sql, \"Tables made before\")"
        }
        if missing.allSatisfy({ $0.hasSuffix("_ms") }) && present.contains("time") {
            return lacks
                + "a table with DateTime64 times (docs/clickhouse-current.sql) is loaded with --times datetime64"
        }
        return lacks + "create the table of docs/clickhouse.sql (or load into one that has them)"
    }
}
