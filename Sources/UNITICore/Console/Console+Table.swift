extension Console {
    /// Prints a table, each line cut to the terminal's width when standard output is a terminal
    /// (a cut line beats one the terminal wraps into the next row) and the table allows it;
    /// piped output stays whole.
    public func table(_ table: TextTable) {
        for text in table.lines(fittingWidth: isTerminal && table.cutsToTerminalWidth ? width : nil) { line(text) }
    }
}
