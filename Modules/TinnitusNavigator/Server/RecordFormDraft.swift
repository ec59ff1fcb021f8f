import Foundation
import UNITIServer
import TinnitusNavigatorShared

/// A health-record form as typed: the fields as text (so a wrong value is shown again as it was
/// typed), the problems by field, and the entry they make when there are none. The rules are the
/// shared ones (``HealthRecordProblem``); only reading text into numbers, days and times is the
/// form's own, as it is the shell's.
struct RecordFormDraft {
    let kind: RecordPageKind
    let id: String?
    var fields: [String: String] = [:]
    /// Problems by the name of the input they belong to, already worded.
    var errors: [String: String] = [:]
    /// The language problems are worded in.
    let language: String
    /// The zone times are typed and shown in.
    let clock: RecordClock

    init(kind: RecordPageKind, id: String?, language: String, clock: RecordClock) {
        self.kind = kind
        self.id = id
        self.language = language
        self.clock = clock
    }

    init(kind: RecordPageKind, id: String?, language: String, clock: RecordClock, form: PortalForm) {
        self.init(kind: kind, id: id, language: language, clock: clock)
        fields = form.fields.filter { $0.key != CSRF.fieldName }
    }

    // MARK: Filling from an entry

    mutating func fill(_ event: HealthEvent) {
        fields = ["title": event.title, "at": clock.inputMinute(event.at), "type": event.type.rawValue,
                  "description": event.description ?? ""]
    }

    mutating func fill(_ therapy: Therapy) {
        fields = ["name": therapy.name, "type": therapy.type.rawValue, "start": therapy.start, "end": therapy.end ?? "",
                  "note": therapy.note ?? ""]
    }

    mutating func fill(_ audiogram: Audiogram) {
        fields = ["date": audiogram.date, "note": audiogram.note ?? ""]
        for values in audiogram.thresholds where Audiogram.standardFrequencies.contains(values.hz) {
            fields["left-\(values.hz)"] = values.left.map(String.init) ?? ""
            fields["right-\(values.hz)"] = values.right.map(String.init) ?? ""
        }
        for (name, value) in [("pitchLeft", audiogram.pitchLeft), ("pitchRight", audiogram.pitchRight),
                              ("loudnessLeft", audiogram.loudnessLeft), ("loudnessRight", audiogram.loudnessRight)] {
            fields[name] = value.map(String.init) ?? ""
        }
    }

    // MARK: Making an entry

    /// The event the form makes, or nil with ``errors`` filled.
    mutating func event(id: String, createdAt: Date?, now: Date) -> HealthEvent? {
        let at = clock.parseMinute(fields["at"] ?? "")
        if at == nil { errors["at"] = text("time", ["text": fields["at"] ?? ""]) }
        let type = HealthEvent.Kind(rawValue: fields["type"] ?? "")
        if type == nil { errors["type"] = text("choice") }
        let event = HealthEvent(id: id, title: fields["title"] ?? "", at: at ?? Date(timeIntervalSince1970: 0), type: type ?? .other,
                                description: fields["description"], createdAt: createdAt ?? now, updatedAt: now)
        note(event.problems)
        return errors.isEmpty ? event : nil
    }

    /// The therapy the form makes, or nil with ``errors`` filled.
    mutating func therapy(id: String, createdAt: Date?, now: Date) -> Therapy? {
        let type = Therapy.Kind(rawValue: fields["type"] ?? "")
        if type == nil { errors["type"] = text("choice") }
        let therapy = Therapy(id: id, name: fields["name"] ?? "", type: type ?? .other, start: fields["start"] ?? "",
                              end: fields["end"], note: fields["note"], createdAt: createdAt ?? now, updatedAt: now)
        note(therapy.problems)
        return errors.isEmpty ? therapy : nil
    }

    /// The audiogram the form makes, or nil with ``errors`` filled. An edit keeps what the form
    /// does not show (custom frequencies, thresholds of discomfort) as it was.
    mutating func audiogram(id: String, keeping existing: Audiogram?, now: Date) -> Audiogram? {
        var thresholds: [EarValues] = []
        for hz in Audiogram.standardFrequencies {
            let left = number("left-\(hz)"), right = number("right-\(hz)")
            if left != nil || right != nil { thresholds.append(EarValues(hz: hz, left: left, right: right)) }
        }
        let custom = existing?.thresholds.filter { !Audiogram.standardFrequencies.contains($0.hz) } ?? []
        let audiogram = Audiogram(
            id: id, date: (fields["date"] ?? "").trimmingCharacters(in: .whitespaces), thresholds: thresholds + custom,
            discomfort: existing?.discomfort ?? [],
            pitchLeft: number("pitchLeft"), pitchRight: number("pitchRight"),
            loudnessLeft: number("loudnessLeft"), loudnessRight: number("loudnessRight"),
            note: fields["note"], createdAt: existing?.createdAt ?? now, updatedAt: now)
        note(audiogram.problems)
        return errors.isEmpty ? audiogram : nil
    }

    /// A whole number typed into `name`, nil when empty; a problem beside it when it is none.
    private mutating func number(_ name: String) -> Int? {
        let typed = (fields[name] ?? "").trimmingCharacters(in: .whitespaces)
        guard !typed.isEmpty else { return nil }
        guard let value = Int(typed) else {
            errors[name] = text("number", ["text": typed])
            return nil
        }
        return value
    }

    /// Words each problem and puts it beside its input (the first one per input wins).
    private mutating func note(_ problems: [HealthRecordProblem]) {
        for problem in problems {
            let (input, message) = place(problem)
            if errors[input] == nil { errors[input] = message }
        }
    }

    /// The input a problem belongs to and its words.
    private func place(_ problem: HealthRecordProblem) -> (String, String) {
        switch problem {
        case .required(let field):
            (field.rawValue, text("required"))
        case .tooLong(let field, let limit):
            (field.rawValue, text("tooLong", ["limit": "\(limit)"]))
        case .notADay(let field, let typed):
            (field.rawValue, text("day", ["text": typed]))
        case .endBeforeStart(let start, let end):
            ("end", text("endBeforeStart", ["start": start, "end": end]))
        case .frequency(_, let hz):
            ("form", text("frequency", ["hz": "\(hz)"]))
        case .duplicateFrequency(_, let hz):
            ("form", text("duplicateFrequency", ["hz": "\(hz)"]))
        case .missingFrequency(let hz):
            ("row-\(hz)", text("missingFrequency", ["hz": "\(hz)"]))
        case .level(let field, let value, let hz, let ear):
            (field == .thresholds && Audiogram.standardFrequencies.contains(hz) ? "\(ear.rawValue)-\(hz)" : "form",
             text("level", ["value": "\(value)", "hz": "\(hz)", "ear": PortalText.text("portal.record.ear.\(ear.rawValue)", language)]))
        case .pitch(let field, let value):
            (field.rawValue, text("pitch", ["value": "\(value)"]))
        case .loudness(let field, let value):
            (field.rawValue, text("loudness", ["value": "\(value)"]))
        }
    }

    private func text(_ name: String, _ values: [String: String] = [:]) -> String {
        PortalText.text("portal.record.error.\(name)", language, values)
    }

    // MARK: The page

    /// What the form template shows: the typed values, the problems, the choices.
    func page() -> RecordFormPage {
        var page = RecordFormPage(kind: kind, fields: fields, errors: errors, editing: id != nil,
                                  action: id.map { "/record/\(kind.path)/\($0)" } ?? "/record/\(kind.path)",
                                  back: "/record/\(kind.path)", formError: errors["form"])
        switch kind {
        case .events:
            page.types = HealthEvent.Kind.allCases.map { type in
                .init(value: type.rawValue, label: PortalText.text("portal.record.eventType.\(type.rawValue)", language),
                      selected: fields["type"] == type.rawValue)
            }
        case .therapies:
            page.types = Therapy.Kind.allCases.map { type in
                .init(value: type.rawValue, label: PortalText.text("portal.record.therapyType.\(type.rawValue)", language),
                      selected: fields["type"] == type.rawValue)
            }
        case .audiograms:
            page.rows = Audiogram.standardFrequencies.map { hz in
                .init(hz: "\(hz)", left: fields["left-\(hz)"] ?? "", right: fields["right-\(hz)"] ?? "",
                      leftInvalid: errors["left-\(hz)"] != nil, rightInvalid: errors["right-\(hz)"] != nil,
                      problem: errors["left-\(hz)"] ?? errors["right-\(hz)"] ?? errors["row-\(hz)"])
            }
        }
        return page
    }
}
