extension LoadCounters {
    /// The end-of-run sentence: `loaded 1234 rows (5 of them capture records) in 3 INSERTs (… bytes
    /// compressed, … as rows) from 12 files`, then what went wrong, each only when it happened.
    ///
    /// - Parameter withRecords: capture's records went to a table of their own (`--records-table`).
    public func summary(withRecords: Bool) -> String {
        "loaded \(rowsAcknowledged) rows"
            + (withRecords ? " (\(recordsAcknowledged) of them capture records)" : "")
            + " in \(batches) INSERTs (\(bodyBytesAcknowledged) bytes compressed, "
            + "\(rowBytesAcknowledged) as rows) from \(files) files"
            + (failedAttempts > 0 ? ", \(failedAttempts) failed attempts retried" : "")
            + (rereads > 0 ? ", \(rereads) files read again" : "")
            + (unparsedLines > 0 ? ", \(unparsedLines) lines not IRC (loaded with an empty type)" : "")
            + (skippedLines > 0 ? ", \(skippedLines) over-long lines skipped" : "")
            + (damagedFiles > 0 ? ", \(damagedFiles) damaged files loaded up to the damage" : "")
            + (ignoredEntries > 0 ? ", \(ignoredEntries) entries that are not .log.gz files ignored" : "")
    }
}
