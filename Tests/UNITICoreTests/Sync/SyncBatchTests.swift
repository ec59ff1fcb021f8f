import Foundation
import Testing
@testable import UNITICore

@Suite("Sync batches", .timeLimit(.minutes(10)))
struct SyncBatchTests {
    func entry(_ id: Int64, bytes: Int) -> Outbox.Entry {
        Outbox.Entry(id: id, clientID: "sheet:\(id)", kind: "answerSheet", moduleID: "tyt", payload: Data(count: bytes),
                     createdAt: Date(), attempts: 0, nextAttemptAt: Date(), state: .pending, lastError: nil, lastErrorCode: nil, revision: 0)
    }

    @Test("entries are split in order into request bodies below the byte limit; an oversized one goes alone")
    func chunksStayBelowTheBodyLimit() {
        let entries = [entry(1, bytes: 400), entry(2, bytes: 400), entry(3, bytes: 400), entry(4, bytes: 5000), entry(5, bytes: 10)]
        let chunks = SyncEngine.chunks(of: entries, maximumBytes: 1000)
        #expect(chunks.map { $0.map(\.id) } == [[1, 2], [3], [4], [5]])
        #expect(SyncEngine.chunks(of: [], maximumBytes: 1000).isEmpty)
    }
}
