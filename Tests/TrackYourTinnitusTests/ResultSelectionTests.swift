import Testing
@testable import TrackYourTinnitus

@Suite("Result selection for charts (thesis 5.2)", .timeLimit(.minutes(10)))
struct ResultSelectionTests {
    @Test("up to 20 results, all are shown", arguments: [0, 1, 7, 20])
    func small(count: Int) {
        #expect(ResultSelection.selectedIndices(count: count) == Array(0..<count))
    }

    @Test("each band deletes every k-th result until half of those above 20 are gone",
          arguments: [(21, 21), (22, 21), (30, 25), (40, 31), (41, 31), (60, 41), (80, 54), (81, 51), (120, 70), (160, 90)])
    func bands(count: Int, shown: Int) {
        #expect(ResultSelection.selectedIndices(count: count).count == shown)
    }

    @Test("the deleted positions are the k-th ones, not the first ones as in the printed code")
    func deletesTheKthPositions() {
        let kept = ResultSelection.selectedIndices(count: 30)  // 21–40: every 4th, 5 to delete
        let deleted = Set(0..<30).subtracting(kept).sorted()
        #expect(deleted == [4, 8, 12, 16, 20])
        #expect(kept.first == 0)
        #expect(kept.last == 29)  // the latest result is always shown here
        let third = Set(0..<50).subtracting(ResultSelection.selectedIndices(count: 50)).sorted()
        #expect(third == [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45])
    }

    @Test("above 160 only the latest 160 are considered, thinned to 90", arguments: [161, 200, 43_800])
    func large(count: Int) {
        let indices = ResultSelection.selectedIndices(count: count)
        #expect(indices.count == 90)
        #expect(indices.first == count - 160)
        #expect(indices.last == count - 1)
        #expect(indices == indices.sorted())
    }

    @Test("select keeps the order of the results")
    func selectKeepsOrder() {
        let results = Array(100..<130)
        let selected = ResultSelection.select(results)
        #expect(selected == selected.sorted())
        #expect(selected.count == 25)
    }
}
