import UNITIProtocol

/// The wide file of one questionnaire: one row per sheet, the sheet's own columns (those of the
/// long file that are the same on every row of a sheet), then one column per item, a multiple
/// choice as its chosen values as written (`2,3`) followed by one 0/1 column per option.
///
/// An item keeps its column across versions while its label, type and encoding stay the same;
/// an item whose type or encoding changed gets a column of its own (`label_vN`, N the first
/// version with it), and the wide codebook says which versions each column covers. Sheet
/// columns added later (the prompt table's) go before the items; the scripts read by name.
struct WideLayout: Sendable {
    var questionnaire: String
    /// The file name (``ExportFileNames/wide(study:questionnaire:)``).
    var file: String
    /// Every column, the sheet's first.
    var columns: [ExportColumn] { Self.sheetColumns + variables.flatMap(\.columns) }
    var variables: [Variable]

    /// The long file's columns that a sheet has once.
    static let sheetColumns = ExportColumn.long.filter(\.perSheet)

    /// One item's column(s) and the versions it covers.
    struct Variable: Sendable {
        var label: String
        var versions: [Int]
        var element: QuestionnaireElement
        /// The answer's column, then for a multiple choice one per option (value order).
        var columns: [ExportColumn]
        var options: [Int]

        /// The cells of a sheet answering version `version` with `answer` (nil: not answered).
        func cells(version: Int, answer: AnswerValue?) -> [String] {
            guard versions.contains(version), let answer else { return Array(repeating: "", count: columns.count) }
            guard !options.isEmpty else { return [answer.description] }
            let chosen: Set<Int> = switch answer {
            case .choices(let values): Set(values)
            case .number(let value): [Int(value)]
            case .text(let text): Set(text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            }
            return [answer.description] + options.map { chosen.contains($0) ? "1" : "0" }
        }
    }

    /// The layouts of a study's questionnaires (every version, ``ServerStore/questionnaires(studyId:)``),
    /// one per questionnaire id in the documents' order.
    static func layouts(study: String, _ documents: [QuestionnaireDocument]) -> [WideLayout] {
        var order: [String] = []
        var byId: [String: [QuestionnaireDocument]] = [:]
        for document in documents {
            if byId[document.id] == nil { order.append(document.id) }
            byId[document.id, default: []].append(document)
        }
        return order.map { id in
            WideLayout(questionnaire: id, file: ExportFileNames.wide(study: study, questionnaire: id),
                       variables: variables(byId[id]!.sorted { $0.version < $1.version }))
        }
    }

    /// The items of a questionnaire's versions as variables (see the type's description).
    static func variables(_ versions: [QuestionnaireDocument]) -> [Variable] {
        var taken = Set(sheetColumns.map { $0.name.lowercased() })
        // The first candidate that is short enough and free (else the last, made free with `_`).
        func claim(_ candidates: [String]) -> String {
            var name = candidates.first { $0.utf8.count <= 64 && !taken.contains($0.lowercased()) } ?? candidates[candidates.count - 1]
            while taken.contains(name.lowercased()) { name += "_" }
            taken.insert(name.lowercased())
            return name
        }
        var variables: [Variable] = []
        var index: [String: Int] = [:]
        for document in versions {
            for item in document.definition.items where item.element.isQuestion {
                let key = "\(item.label)\u{0}\(item.element.typeName)\u{0}\(Codebook.encoding(item.element))"
                if let known = index[key] {
                    variables[known].versions.append(document.version)
                    continue
                }
                let base = SPSSSyntax.variableName(item.label)
                let name = claim([base, "\(base)_v\(document.version)", "item\(variables.count + 1)"])
                let text = item.text?.text(in: "en") ?? item.label
                var columns = [column(name, text, item.element)]
                var options: [Int] = []
                if case .multipleChoice(let choices, _, _) = item.element {
                    for choice in choices {
                        let suffix = choice.value < 0 ? "m\(-choice.value)" : String(choice.value)
                        let option = claim(["\(name)_\(suffix)", "\(name)_option\(suffix)"])
                        columns.append(ExportColumn(name: option, text: "\(text): \(choice.text.text(in: "en"))", type: .chosen, level: .nominal))
                        options.append(choice.value)
                    }
                }
                index[key] = variables.count
                variables.append(Variable(label: item.label, versions: [document.version], element: item.element,
                                          columns: columns, options: options))
            }
        }
        return variables
    }

    /// An item's answer column.
    static func column(_ name: String, _ text: String, _ element: QuestionnaireElement) -> ExportColumn {
        func labels(_ options: [ChoiceOption]) -> [ChoiceLabel] { options.map { ChoiceLabel(value: $0.value, text: $0.text.text(in: "en")) } }
        let (type, level): (ColumnType, MeasurementLevel) = switch element {
        case .yesNo: (.choice([ChoiceLabel(value: 0, text: "yes"), ChoiceLabel(value: 1, text: "no")]), .nominal)
        case .singleChoice(let options): (.choice(labels(options)), .nominal)
        case .scale, .samValence, .samArousal: (.integer, .ordinal)
        case .slider: (.number, .scale)
        case .date: (.date, .scale)
        case .multipleChoice, .freeText, .headline, .text, .unsupported: (.text, .nominal)
        }
        return ExportColumn(name: name, text: text, type: type, level: level)
    }

    /// A sheet's row: its cells in the order of ``columns``.
    func cells(_ exported: ExportedSheet) -> [String] {
        let rows = exported.rows
        let fields = StudyExport.fields(rows[0])
        var cells = Self.sheetFieldIndexes.map { fields[$0] }
        let answers = exported.sheet.answers
        for variable in variables {
            cells += variable.cells(version: exported.sheet.questionnaireVersion, answer: answers[variable.label]?.value)
        }
        return cells
    }

    /// Where each sheet column is among the long file's fields.
    static let sheetFieldIndexes = sheetColumns.map { column in StudyExport.header.firstIndex(of: column.name)! }
}
