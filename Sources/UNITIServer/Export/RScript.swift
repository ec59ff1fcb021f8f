import Foundation

/// The R script beside a study's export: base R only (no packages), it reads the long file and
/// each questionnaire's wide file by the names they are downloaded under
/// (``ExportFileNames``), from its working directory, and gives each column its type:
///
/// - a time with the participant's offset becomes a UTC `POSIXct` in its own column and the
///   offset in minutes in `<name>_offset` beside it (local time = UTC + offset);
/// - yes/no and single choices become factors whose levels are the options' texts;
/// - a multiple choice's options (`1`/`0`) become logical columns, its `2,3` stays text;
/// - numbers, whole numbers, dates and `true`/`false` their R types;
///
/// then sets each column's label as the attribute `label` (as haven and Hmisc do) and prints a
/// summary of each file. What each column is comes from the same ``ExportColumn``s the wide
/// codebook writes, so the script and the codebook cannot disagree. Every string is written with
/// `\u` escapes, so the script reads the same in any locale.
enum RScript {
    static func script(study: String, layouts: [WideLayout]) -> String {
        var text = """
            # UNITI: reads the export of the study \(study) as downloaded, with base R only.
            # Put this file beside the files and run it there: Rscript \(ExportFileNames.rScript(study: study))
            # (or in R: setwd("<that folder>"); source("\(ExportFileNames.rScript(study: study))")).
            # It reads \(ExportFileNames.answers(study: study)) into `answers`, \(ExportFileNames.prompts(study: study)) into `prompts` and each wide file it finds into
            # `wide[["<questionnaire>"]]`: times as UTC POSIXct with <name>_offset (minutes east of UTC,
            # local time = UTC + offset), choices as factors, multiple-choice options as logicals, and
            # each column's label in attr(column, "label").

            \(prelude)

            """
        text += "answers <- uniti_read(\(literal(ExportFileNames.answers(study: study))), \(specification(ExportColumn.long)))\n"
        text += "prompts <- uniti_read(\(literal(ExportFileNames.prompts(study: study))), \(specification(PromptTable.columns)))\n"
        text += "wide <- list()\n"
        for layout in layouts {
            text += "wide[[\(literal(layout.questionnaire))]] <- uniti_read(\(literal(layout.file)), \(specification(layout.columns)))\n"
        }
        text += """
            wide <- wide[!vapply(wide, is.null, logical(1))]
            if (is.null(answers) && is.null(prompts) && length(wide) == 0) {
              stop("none of the export's files is in ", getwd(), ": run this script in their folder")
            }
            for (uniti_name in names(uniti_read_files)) {
              cat("\\n== ", uniti_name, ": ", nrow(uniti_read_files[[uniti_name]]), " rows\\n", sep = "")
              print(summary(uniti_read_files[[uniti_name]]))
            }
            rm(uniti_name)

            """
        return text
    }

    /// The functions the script calls: reading a file by a column specification, and a time.
    static let prelude = #"""
        uniti_read_files <- list()

        # A time with a UTC offset (2027-01-15T09:00:00+01:00, also with a fraction, Z or +0100):
        # the UTC time and the offset in minutes.
        uniti_time <- function(x) {
          pattern <- "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:?[0-9]{2})$"
          bad <- !is.na(x) & !grepl(pattern, x)
          if (any(bad)) stop("not a time with a UTC offset: ", x[bad][1])
          given <- !is.na(x)
          offset <- rep(NA_integer_, length(x))
          seconds <- rep(NA_real_, length(x))
          local <- paste0(substr(x[given], 1, 10), " ", substr(x[given], 12, 19))
          seconds[given] <- as.numeric(as.POSIXct(local, format = "%Y-%m-%d %H:%M:%S", tz = "UTC"))
          rest <- substring(x[given], 20)
          fraction <- grepl("^\\.", rest)
          seconds[given][fraction] <- seconds[given][fraction] + as.numeric(paste0("0", sub("^(\\.[0-9]+).*$", "\\1", rest[fraction])))
          zone <- gsub(":", "", sub("^\\.[0-9]+", "", rest))
          minutes <- integer(length(zone))
          signed <- zone != "Z" & zone != "z"
          minutes[signed] <- (as.integer(substr(zone[signed], 2, 3)) * 60L + as.integer(substr(zone[signed], 4, 5))) *
            ifelse(substr(zone[signed], 1, 1) == "-", -1L, 1L)
          offset[given] <- minutes
          seconds[given] <- seconds[given] - minutes * 60
          list(utc = as.POSIXct(seconds, origin = "1970-01-01", tz = "UTC"), offset = offset)
        }

        # Reads `file` (NULL when it is not here) and types and labels each column as `columns` says:
        # list(name = list(kind, label[, levels, labels])).
        uniti_read <- function(file, columns) {
          if (!file.exists(file)) {
            message("not here, not read: ", file)
            return(NULL)
          }
          data <- read.csv(file, colClasses = "character", na.strings = "", encoding = "UTF-8", check.names = FALSE)
          missing <- setdiff(names(columns), names(data))
          if (length(missing) > 0) stop(file, " lacks the columns ", paste(missing, collapse = ", "), ": download the file and this script together")
          result <- list()
          for (name in names(data)) {
            column <- columns[[name]]
            if (is.null(column)) column <- list("text", paste("column", name, "(not described by this script)"))
            x <- data[[name]]
            kind <- column[[1]]
            label <- column[[2]]
            if (kind == "time") {
              time <- uniti_time(x)
              result[[name]] <- structure(time$utc, label = paste0(label, " (UTC)"))
              result[[paste0(name, "_offset")]] <- structure(time$offset, label = paste0("UTC offset of ", name, " in minutes (local time = ", name, " + offset)"))
              next
            }
            value <- switch(kind,
              text = x,
              integer = as.integer(x),
              number = as.numeric(x),
              boolean = x == "true",
              chosen = x == "1",
              date = as.Date(x, format = "%Y-%m-%d"),
              utc = uniti_time(x)$utc,
              choice = factor(x, levels = column[[3]], labels = column[[4]]),
              stop("unknown kind ", kind))
            attr(value, "label") <- label
            result[[name]] <- value
          }
          data <- structure(result, class = "data.frame", row.names = seq_len(nrow(data)))
          uniti_read_files[[file]] <<- data
          data
        }
        """#

    /// The columns as the R list `uniti_read` takes.
    static func specification(_ columns: [ExportColumn]) -> String {
        let entries = columns.map { column -> String in
            var parts = [literal(kind(column.type)), literal(column.text)]
            if case .choice(let options) = column.type {
                parts.append("c(" + options.map { literal(String($0.value)) }.joined(separator: ", ") + ")")
                parts.append("c(" + options.map { literal($0.text) }.joined(separator: ", ") + ")")
            }
            return "\n  \(literal(column.name)) = list(\(parts.joined(separator: ", ")))"
        }
        return "list(" + entries.joined(separator: ",") + ")"
    }

    static func kind(_ type: ColumnType) -> String {
        switch type {
        case .text: "text"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .localTime: "time"
        case .utcTime: "utc"
        case .date: "date"
        case .choice: "choice"
        case .chosen: "chosen"
        }
    }

    /// An R string literal in double quotes: ASCII only, anything else as `\u{…}`, so the script
    /// means the same in any locale R runs in.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += (scalar.value > 0xFFFF ? "\\U{" : "\\u{") + String(scalar.value, radix: 16) + "}"
                }
            }
        }
        return result + "\""
    }
}
