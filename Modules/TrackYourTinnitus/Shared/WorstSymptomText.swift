import Foundation
import UNITIProtocol

/// How the momentary questionnaire names the person's worst symptom (thesis FR9), shared by the
/// module on the device and its server part for the portal: item 8's `{worstSymptom}` becomes
/// the phrase of the symptom chosen in the baseline (its value, 0 to 7), or a neutral phrase
/// before a choice or with "none of these" (8).
public enum WorstSymptomText {
    /// The placeholder in the questionnaire's texts.
    public static let placeholder = "{worstSymptom}"
    /// The label of the baseline item that asks for it, in whichever questionnaire asks it.
    public static let itemLabel = "worst-symptom"
    /// The bundled questionnaires whose item asks for it: the module's own baseline and the
    /// shell's shared case history (the momentary questionnaire's item 8 has the same label,
    /// and is a rating of it).
    public static let askedIn = ["tyt-worst-symptom", "uniti-case-history"]
    /// The symptoms by value, as the string tables name their phrases (`tyt.symptom.phrase.<name>`).
    public static let names = ["fallingAsleep", "feelingLow", "relaxing", "worries", "following", "concentrating",
                               "irritability", "soundSensitivity"]

    /// The key of the phrase for a chosen value; nil, "none of these" or an unknown value: the neutral one.
    public static func phraseKey(_ value: Int?) -> String {
        guard let value, names.indices.contains(value) else { return "tyt.symptom.phrase.neutral" }
        return "tyt.symptom.phrase.\(names[value])"
    }

    /// `definition` with the placeholder replaced in every language of every item's text by
    /// `phrase(language)`.
    public static func personalized(_ definition: QuestionnaireDefinition, phrase: (String) -> String) -> QuestionnaireDefinition {
        var definition = definition
        definition.items = definition.items.map { item in
            guard var text = item.text, text.values.values.contains(where: { $0.contains(placeholder) }) else { return item }
            for (language, value) in text.values where value.contains(placeholder) {
                text.values[language] = value.replacingOccurrences(of: placeholder, with: phrase(language))
            }
            var copy = item
            copy.text = text
            return copy
        }
        return definition
    }
}
