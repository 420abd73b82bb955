// Unicode line breaking, UAX #14 (Unicode 15.0 rules), with the numeric tailoring of
// Example 7 in section 8.2 (the one the Unicode LineBreakTest exercises).
//
// The rules are applied as a single left-to-right pass that keeps just enough context for the
// rules with a left-hand repetition (`X SP*`, `NU (NU|SY|IS)*`, RI pairs) — no backtracking and
// no allocation beyond the result.

/// Whether a line may end before a given character.
public enum LineBreakOpportunity: UInt8, Sendable, Hashable {
    /// Not here (inside a word, before punctuation, ...).
    case prohibited
    /// A line may end here.
    case allowed
    /// A line must end here (after a newline or paragraph separator, and at the end of text).
    case mandatory
}

public enum LineBreaker {
    /// Break opportunities for `scalars`: element `i` says whether a line may end *before*
    /// scalar `i`; element 0 is always `.prohibited` and element `count` (end of text)
    /// `.mandatory`, so the result has `count + 1` elements.
    public static func opportunities(_ scalars: [Unicode.Scalar]) -> [LineBreakOpportunity] {
        opportunities(codePoints: scalars.map(\.value))
    }

    public static func opportunities(_ text: String) -> [LineBreakOpportunity] {
        opportunities(codePoints: text.unicodeScalars.map(\.value))
    }

    /// Raw code points, so tests can feed lone surrogates (class SG) as the Unicode data does.
    public static func opportunities(codePoints: [UInt32]) -> [LineBreakOpportunity] {
        let classes = codePoints.map { UnicodeProperties.lineBreakClass($0) }
        return opportunities(classes: classes)
    }

    static func opportunities(classes raw: [LineBreakClass]) -> [LineBreakOpportunity] {
        let n = raw.count
        var result = [LineBreakOpportunity](repeating: .prohibited, count: n + 1)
        guard n > 0 else {
            result[0] = .mandatory
            return result
        }
        result[n] = .mandatory

        // LB1: resolve classes the algorithm does not use; remember the pseudo-class facts.
        var cls = [LineBreakClass](repeating: .AL, count: n)
        var eastAsianWide = [Bool](repeating: false, count: n)
        var pictographCn = [Bool](repeating: false, count: n)
        for i in 0..<n {
            switch raw[i] {
            case .AI, .SG, .XX, .SA: cls[i] = .AL  // SA marks were resolved to CM by the generator
            case .CJ: cls[i] = .NS
            case .OPW: cls[i] = .OP; eastAsianWide[i] = true
            case .CPW: cls[i] = .CP; eastAsianWide[i] = true
            case .IDX: cls[i] = .ID; pictographCn[i] = true
            default: cls[i] = raw[i]
            }
        }

        // Context of the text before the current position.
        // `a`: class of the previous character after LB9/LB10 (a base absorbs its CM/ZWJ).
        var a = cls[0]
        var aIndex = 0  // index of the base character `a` came from
        if a == .CM || a == .ZWJ { a = .AL }  // LB10 at start of text
        var beforeA: LineBreakClass? = nil  // class of the character before `a` (for LB21a)
        var lastNonSpace = a  // class before a run of spaces (LB8, LB14–LB17)
        var riCount = a == .RI ? 1 : 0  // consecutive RIs ending at `a` (LB30a)
        var number: NumberState = a == .NU ? .digits : .none  // LB25 tailoring

        for i in 1..<n {
            var b = cls[i]
            let rawPrev = cls[i - 1]
            var decision: LineBreakOpportunity
            var absorbed = false

            // LB4, LB5: after hard line breaks.
            if rawPrev == .BK || rawPrev == .LF || rawPrev == .NL {
                decision = .mandatory
                if b == .CM || b == .ZWJ { b = .AL }  // LB10: nothing to attach to
            } else if rawPrev == .CR {
                decision = b == .LF ? .prohibited : .mandatory
                if b == .CM || b == .ZWJ { b = .AL }
            } else if b == .BK || b == .CR || b == .LF || b == .NL {
                decision = .prohibited  // LB6
            } else if b == .SP || b == .ZW {
                decision = .prohibited  // LB7
            } else if lastNonSpace == .ZW {
                decision = .allowed  // LB8
                if b == .CM || b == .ZWJ { b = .AL }
            } else if rawPrev == .ZWJ {
                decision = .prohibited  // LB8a
                if b == .CM || b == .ZWJ {
                    if isAbsorbingBase(a) { absorbed = true } else { b = .AL }
                }
            } else {
                if b == .CM || b == .ZWJ {
                    if isAbsorbingBase(a) {
                        absorbed = true  // LB9
                    } else {
                        b = .AL  // LB10
                    }
                }
                if absorbed {
                    decision = .prohibited
                } else {
                    let next = nextBase(cls, after: i)
                    decision = pair(
                        a: a, b: b, beforeA: beforeA, lastNonSpace: lastNonSpace,
                        aWide: eastAsianWide[aIndex], bWide: eastAsianWide[i],
                        aPictographCn: pictographCn[aIndex], riCount: riCount,
                        number: number, afterB: next)
                }
            }
            result[i] = decision

            // Advance the context past character i.
            if absorbed { continue }
            beforeA = a
            a = b
            aIndex = i
            if b != .SP { lastNonSpace = b }
            riCount = b == .RI ? riCount + 1 : 0
            switch b {
            case .NU: number = .digits
            case .SY, .IS: number = number == .digits ? .digits : .none
            case .CL, .CP: number = number == .digits ? .closed : .none
            default: number = .none
            }
        }
        return result
    }

    private enum NumberState { case none, digits, closed }

    /// Classes that a following CM/ZWJ attaches to (LB9).
    @inline(__always)
    private static func isAbsorbingBase(_ c: LineBreakClass) -> Bool {
        switch c {
        case .BK, .CR, .LF, .NL, .SP, .ZW: return false
        default: return true
        }
    }

    /// The class of the first character after `i` that is not a mark attached to it.
    private static func nextBase(_ cls: [LineBreakClass], after i: Int) -> LineBreakClass? {
        var j = i + 1
        while j < cls.count && (cls[j] == .CM || cls[j] == .ZWJ) { j += 1 }
        return j < cls.count ? cls[j] : nil
    }

    /// LB11–LB31 for the pair (a, b); spaces between are summarised by `lastNonSpace`.
    private static func pair(
        a: LineBreakClass, b: LineBreakClass, beforeA: LineBreakClass?, lastNonSpace: LineBreakClass,
        aWide: Bool, bWide: Bool, aPictographCn: Bool, riCount: Int, number: NumberState,
        afterB: LineBreakClass?
    ) -> LineBreakOpportunity {
        if b == .WJ || a == .WJ { return .prohibited }  // LB11
        if a == .GL { return .prohibited }  // LB12
        if b == .GL && a != .SP && a != .BA && a != .HY { return .prohibited }  // LB12a
        if b == .CL || b == .CP || b == .EX || b == .IS || b == .SY { return .prohibited }  // LB13
        if lastNonSpace == .OP { return .prohibited }  // LB14
        if lastNonSpace == .QU && b == .OP { return .prohibited }  // LB15
        if (lastNonSpace == .CL || lastNonSpace == .CP) && b == .NS { return .prohibited }  // LB16
        if lastNonSpace == .B2 && b == .B2 { return .prohibited }  // LB17
        if a == .SP { return .allowed }  // LB18
        if b == .QU || a == .QU { return .prohibited }  // LB19
        if b == .CB || a == .CB { return .allowed }  // LB20
        if b == .BA || b == .HY || b == .NS || a == .BB { return .prohibited }  // LB21
        if (a == .HY || a == .BA) && beforeA == .HL { return .prohibited }  // LB21a
        if a == .SY && b == .HL { return .prohibited }  // LB21b
        if b == .IN { return .prohibited }  // LB22
        let aAlpha = a == .AL || a == .HL, bAlpha = b == .AL || b == .HL
        if (aAlpha && b == .NU) || (a == .NU && bAlpha) { return .prohibited }  // LB23
        if a == .PR && (b == .ID || b == .EB || b == .EM) { return .prohibited }  // LB23a
        if (a == .ID || a == .EB || a == .EM) && b == .PO { return .prohibited }
        if (a == .PR || a == .PO) && bAlpha { return .prohibited }  // LB24
        if aAlpha && (b == .PR || b == .PO) { return .prohibited }
        // LB25, tailored: (PR|PO) × (OP|HY)? NU; (OP|HY) × NU; NU (NU|SY|IS)* × (NU|SY|IS|CL|CP);
        // NU (NU|SY|IS)* (CL|CP)? × (PO|PR).
        if (a == .PR || a == .PO) && b == .NU { return .prohibited }
        if (a == .PR || a == .PO) && (b == .OP || b == .HY) && afterB == .NU { return .prohibited }
        if (a == .OP || a == .HY) && b == .NU { return .prohibited }
        if number == .digits && (b == .NU || b == .SY || b == .IS || b == .CL || b == .CP) { return .prohibited }
        if number != .none && (b == .PO || b == .PR) { return .prohibited }
        // LB26, LB27: Korean syllable blocks.
        if a == .JL && (b == .JL || b == .JV || b == .H2 || b == .H3) { return .prohibited }
        if (a == .JV || a == .H2) && (b == .JV || b == .JT) { return .prohibited }
        if (a == .JT || a == .H3) && b == .JT { return .prohibited }
        let aHangul = a == .JL || a == .JV || a == .JT || a == .H2 || a == .H3
        let bHangul = b == .JL || b == .JV || b == .JT || b == .H2 || b == .H3
        if aHangul && b == .PO { return .prohibited }
        if a == .PR && bHangul { return .prohibited }
        if aAlpha && bAlpha { return .prohibited }  // LB28
        if a == .IS && bAlpha { return .prohibited }  // LB29
        if (aAlpha || a == .NU) && b == .OP && !bWide { return .prohibited }  // LB30
        if a == .CP && !aWide && (bAlpha || b == .NU) { return .prohibited }
        if a == .RI && b == .RI && riCount % 2 == 1 { return .prohibited }  // LB30a
        if b == .EM && (a == .EB || aPictographCn) { return .prohibited }  // LB30b
        return .allowed  // LB31
    }
}
