import Hummingbird
import UNITIProtocol

// The payloads handlers return as they are: Hummingbird encodes them with the context's
// `responseEncoder` (``ServerRequestContext``). The types live in `UNITIProtocol`, which the
// apps share and which must not import Hummingbird, so the conformances are declared here (same
// package, so not `@retroactive`).
extension StatusMessage: ResponseEncodable {}
extension SessionTokens: ResponseEncodable {}
extension Profile: ResponseEncodable {}
extension AnswerSheetBatchResult: ResponseEncodable {}
extension AnswerSheetPage: ResponseEncodable {}
extension ModuleRecordBatchResult: ResponseEncodable {}
extension ModuleRecordPage: ResponseEncodable {}
extension PromptEventBatchResult: ResponseEncodable {}
extension MembershipResponse: ResponseEncodable {}
extension ConsentStatus: ResponseEncodable {}
extension ComparisonReport: ResponseEncodable {}
