extension Console {
    /// Prints a table fitted to the terminal's width when standard output is a terminal and the
    /// table allows it: a row too long goes on below, its free text wrapped between words
    /// (``TextTable/wrappedRows(width:)``), so nothing is cut off; piped output stays one line a row.
    public func table(_ table: TextTable) {
        for row in table.wrappedRows(width: isTerminal && table.cutsToTerminalWidth ? width : nil) {
            for text in row { line(text) }
        }
    }
}
