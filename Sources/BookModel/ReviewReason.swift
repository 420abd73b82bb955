// Why `picturebook clear` left a text box exactly as scanned (book.json `reviewReason`, beside
// `needsReview`). Recorded so that `clear --report`, the editor and anyone reading the book can
// say why without clearing the page again.

/// Why `clear` left a box as scanned and flagged it for review.
public enum ReviewReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The glyph filter gave up much of the box's mask: the box lies in a drawing.
    case inDrawing
    /// Letters of the box are joined to a drawing's strokes: they stay, and clearing the rest
    /// would leave half words, so the whole box stays as scanned.
    case joinedToDrawing
    /// After the fill, a third or more of the box's text was still on the page.
    case textLeft
    /// The fill made edges the box's ground does not have.
    case edgesMade
    /// The fill shaded the box's ground towards its ink: smears, ghosts of letters, a frame or
    /// a divider carried into the box.
    case smeared
    /// The box's line runs on past its end: clearing it left a half word beside it.
    case runsOn
    /// A line of text in no box lies right beside the box (the rest of its block, which the
    /// detector missed): clearing the box would leave that line standing alone.
    case lineBeside
    /// The fill would take part of letters and leave the rest (ascenders or descenders reaching
    /// past the box, a neighbour's letters reaching into it).
    case lettersCut

    /// For a person reviewing the box.
    public var description: String {
        switch self {
        case .inDrawing: "its ink could not be shown to be type alone (it lies in a drawing)"
        case .joinedToDrawing: "letters of it touch a drawing's strokes (clearing the others would leave half words)"
        case .textLeft: "the fill left its text on the page (the mask missed letters, or took the art across them)"
        case .edgesMade: "the fill made edges its ground does not have (letters left in pieces or as outlines, streaks, blotches)"
        case .smeared: "the fill left smears on its ground (a shade of the ink: ghosts of letters, a band or a line beside the box carried into it)"
        case .runsOn: "its line runs on past the box (clearing it would leave half a word beside it)"
        case .lineBeside: "a line of text in no box lies beside it (clearing it would leave half of its block)"
        case .lettersCut: "letters reach past the box (clearing it would leave pieces of them: ascenders, descenders, a neighbour's tails)"
        }
    }
}
