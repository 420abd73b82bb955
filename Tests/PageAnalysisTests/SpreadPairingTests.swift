import Foundation
@testable import PageAnalysis
import Raster
import Testing

/// Which passing pairs become spreads when two of them share a page (SpreadDetector.choosePairs):
/// the non-overlapping set of the greatest total strength, not the first in page order.
@Suite struct SpreadPairingTests {
    /// A verdict as `findSpreads` gives it: passing with `strength`, or not passing (nil).
    static func verdict(_ strength: Double?) -> SpreadEvidence {
        var e = SpreadEvidence(correlation: 0, colorDifference: 0, structure: 0, isSpread: strength != nil)
        e.strength = strength ?? 0
        return e
    }

    static func choose(_ strengths: [Double?], available: [Bool]? = nil, byStrength: Bool = true) -> [Int] {
        var p = SpreadParameters()
        p.pairByStrength = byStrength
        return SpreadDetector(parameters: p).choosePairs(strengths.map(verdict), available: available ?? strengths.map { _ in true })
    }

    @Test func theStrongerOfTwoOverlappingPairsIsTaken() {
        // Pages 13–14 (index 12) pass at the bar, 14–15 at margin 8: the panorama wins.
        var s = [Double?](repeating: nil, count: 24)
        s[12] = 3.0
        s[13] = 8.0
        #expect(Self.choose(s) == [13])
        // The order-greedy pairing (the former detector, still a parameter) took the first.
        #expect(Self.choose(s, byStrength: false) == [12])
    }

    @Test func theTotalIsMaximisedAlongARun() {
        // Two pairs either side of a middle one: the middle only if it outweighs both.
        #expect(Self.choose([3.2, 8, 3.1]) == [1])
        #expect(Self.choose([4.5, 6, 4.5]) == [0, 2])
        #expect(Self.choose([5, 4, 4, 5]) == [0, 3])
        #expect(Self.choose([3, 4, 6, 4, 3]) == [0, 2, 4])
        #expect(Self.choose([3, 9, 3, 9, 3]) == [1, 3])
    }

    @Test func pairsThatShareNoPageAreAllTakenAndTiesGoInPageOrder() {
        #expect(Self.choose([3, nil, 5, nil, nil, 4]) == [0, 2, 5])
        // Equal strengths (a short book judged by the profile test alone): exactly the page order.
        #expect(Self.choose([3, 3, 3, 3, 3]) == [0, 2, 4])
        #expect(Self.choose([3, 3, 3, 3]) == Self.choose([3, 3, 3, 3], byStrength: false))
        #expect(Self.choose([0, 0]) == [0])
        #expect(Self.choose([]) == [])
    }

    @Test func pairsThatMayNotBeTakenAreLeftAloneHoweverStrong() {
        // Pair 1 (a page marked single or in a listed spread) is the strongest but unavailable:
        // its neighbours are taken as if it did not pass.
        #expect(Self.choose([3, 9, 3], available: [true, false, true]) == [0, 2])
        #expect(Self.choose([3, 9, 3], available: [false, false, false]) == [])
        #expect(Self.choose([nil, 9, 3], available: [true, false, true]) == [2])
    }

    /// One picture across three pages P | L | R, cut twice: the fold between L and R lost 12 px and
    /// R was rescanned lightly, as in SeamContinuityTests; the cut between P and L lost more and P was
    /// rescanned harder and tilted into a different exposure, so P–L continues only weakly. Both
    /// pass; page order would take P–L and leave L–R, the pairing by strength takes L–R.
    @Test func aBookWhereAWeakCandidateOverlapsAStrongOneTakesTheStrongOne() {
        let detector = SpreadDetector()
        let wide = SeamContinuityTests.landscape(seed: 77, width: 1260, height: 560)
        let p = SeamContinuityTests.rescanned(wide.cropped(to: .init(x: 0, y: 0, width: 400, height: 560)), gain: 0.8, shift: -9)
        let l = wide.cropped(to: .init(x: 448, y: 0, width: 400, height: 560))
        let r = SeamContinuityTests.rescanned(wide.cropped(to: .init(x: 860, y: 0, width: 400, height: 560)), gain: 1.08, shift: 5)
        var pages = (1...4).map { SeamContinuityTests.landscape(seed: $0, width: 400, height: 560) }
        pages += [p, l, r]
        pages += (5...9).map { SeamContinuityTests.landscape(seed: $0, width: 400, height: 560) }
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        let verdicts = detector.findSpreads(pages: edges, candidates: (0..<(pages.count - 1)).map { (left: $0, right: $0 + 1) })
        let weak = 4, strong = 5
        #expect(verdicts[weak].isSpread && verdicts[strong].isSpread, "\(verdicts[weak]) \(verdicts[strong])")
        #expect(verdicts[weak].strength < verdicts[strong].strength, "\(verdicts[weak].strength) \(verdicts[strong].strength)")
        #expect(verdicts.indices.filter { verdicts[$0].isSpread } == [weak, strong])
        let all = [Bool](repeating: true, count: verdicts.count)
        #expect(detector.choosePairs(verdicts, available: all) == [strong])
        var greedy = SpreadParameters()
        greedy.pairByStrength = false
        #expect(SpreadDetector(parameters: greedy).choosePairs(verdicts, available: all) == [weak])
    }

    @Test func theStrengthIsTheBestMarginOfATestThatTookThePair() {
        let detector = SpreadDetector()
        let (pages, panorama) = SeamContinuityTests.book()
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        let verdicts = detector.findSpreads(pages: edges, candidates: (0..<(pages.count - 1)).map { (left: $0, right: $0 + 1) })
        let e = verdicts[panorama]
        #expect(e.isSpread)
        #expect(e.strength >= detector.parameters.minimumMargin)
        // The profile test does not take this pair (SeamContinuityTests), so its strength is the
        // margin of one of the two continuity measures, whichever took it and stands higher.
        #expect(e.strength == e.margin || e.strength == e.extrapolationMargin, "\(e)")
        #expect(e.strength <= max(e.margin ?? 0, e.extrapolationMargin ?? 0))
        // A pair no test took has no strength.
        #expect(verdicts.indices.filter { $0 != panorama }.allSatisfy { verdicts[$0].strength == 0 })
    }
}
