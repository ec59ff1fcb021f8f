import Foundation
import UNITIServer

// The view models of the TinnitusNavigator record pages (``PortalRoutes/registerRecordPages(on:)``),
// kept beside those pages so that they move with them into the module's server part. Optional
// values a template tests with a section (`{{#note}}`) are nil when there is nothing, never "".

/// `record.mustache`: how many entries of each kind, and the newest event and audiogram.
struct RecordOverviewPage: PortalPage {
    var template: String { "record" }
    var events: String
    var therapies: String
    var audiograms: String
    var latestEvent: String?
    var latestAudiogram: String?
}

/// `record-events.mustache`, `record-therapies.mustache`, `record-audiograms.mustache`: one
/// page of a kind's entries (events and audiograms newest first, therapies by latest start).
struct RecordListPage<Entry: Sendable>: PortalPage {
    let kind: RecordPageKind
    var template: String { "record-\(kind.path)" }
    var entries: [Entry]
    /// The person has no entry of this kind at all (not just none on this page).
    var empty: Bool
    var paging: PortalPaging.Pager?
}

/// An event as its list shows it.
struct RecordEventRow: Sendable {
    var id: String
    var title: String
    var at: String
    var type: String
    var description: String?
}

/// A therapy as its list shows it.
struct RecordTherapyRow: Sendable {
    var id: String
    var name: String
    var start: String
    var type: String
    var ongoing: Bool
    var end: String?
    var note: String?
}

/// An audiogram as its list shows it: the date, each ear's average and the grade.
struct RecordAudiogramRow: Sendable {
    var id: String
    var date: String
    var left: String
    var right: String
    var grade: String
}

/// `record-audiogram.mustache`: one audiogram's thresholds, averages and grade beside its
/// picture (served from its own route; `width` and `height` size the `<img>`).
struct AudiogramPage: PortalPage {
    var template: String { "record-audiogram" }
    var id: String
    var date: String
    var note: String?
    var rows: [Threshold]
    var left: String
    var right: String
    var grade: String
    var width: String
    var height: String
    var alt: String

    struct Threshold: Sendable {
        var hz: String
        var left: String
        var right: String
    }
}

/// `record-<kind>-form.mustache`: the form of one kind of entry (``RecordFormDraft``) with what
/// was typed, each problem beside its field, and the kind's choices: the types of an event or a
/// therapy, the frequency rows of an audiogram.
struct RecordFormPage: PortalPage {
    let kind: RecordPageKind
    var template: String { "record-\(kind.singular)-form" }
    var fields: [String: String]
    var errors: [String: String]
    var editing: Bool
    var action: String
    var back: String
    var formError: String?
    var types: [TypeChoice]?
    var rows: [FrequencyRow]?

    struct TypeChoice: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    struct FrequencyRow: Sendable {
        var hz: String
        var left: String
        var right: String
        var leftInvalid: Bool
        var rightInvalid: Bool
        var problem: String?
    }
}

/// `record-delete.mustache`: the confirmation before an entry is deleted.
struct RecordDeletePage: PortalPage {
    var template: String { "record-delete" }
    var action: String
    var back: String
    var question: String
}
