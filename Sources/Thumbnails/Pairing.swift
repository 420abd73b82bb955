// Which pages share a cell of the overview grid: exactly the pages that share a landscape screen
// in the reader, so the overview never splits a spread the reader keeps together.

import BookModel
import Layout

/// One overview cell is one landscape screen: a page alone, two facing pages, or a double page
/// scanned whole.
typealias PageGroup = Screen

extension Screen {
    /// Page slots the cell takes in a grid row.
    var span: Int { kind == .single ? 1 : 2 }
}

enum Pairing {
    static func pageGroups(for book: Book) -> [PageGroup] {
        SpreadComposer().screens(for: book, orientation: .landscape)
    }
}
