/// Why a ClearText stage refused its input. The CLI prints ``description`` as the message.
public enum ClearTextError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The mask is not the page's size.
    case maskSizeMismatch(page: String, pageWidth: Int, pageHeight: Int, maskWidth: Int, maskHeight: Int)
    /// A box lies completely outside its page.
    case boxOutsidePage(page: String, box: String, rect: String)
    /// A parameter is out of its range.
    case invalidParameter(name: String, reason: String)

    public var description: String {
        switch self {
        case let .maskSizeMismatch(page, pw, ph, mw, mh):
            return "\(page): the ink mask is \(mw)×\(mh) but the page is \(pw)×\(ph)"
        case let .boxOutsidePage(page, box, rect):
            return "\(page): text box '\(box)' (\(rect)) lies outside the page"
        case let .invalidParameter(name, reason):
            return "\(name): \(reason)"
        }
    }
}
