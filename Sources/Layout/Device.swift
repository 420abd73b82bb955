// Devices and viewports. Everything in Layout is measured in points (the reader's logical
// unit); a device's scale turns points into the pixels the renderer writes.

public import Geometry

/// How the device is held.
public enum ScreenOrientation: String, Sendable, Hashable, CaseIterable, Codable {
    case portrait, landscape
}

/// A screen the reader runs on: its size in points held upright, its pixel density, the insets
/// that system bars and rounded corners take, and the text size it reads comfortably.
public struct DeviceProfile: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    /// Size in points in portrait (width ≤ height for handhelds; a desktop window is given as
    /// it opens and "portrait" then means the same window stood on end).
    public var size: Size
    /// Pixels per point.
    public var scale: Double
    /// Safe-area insets in portrait, in points.
    public var safeAreaPortrait: EdgeInsets
    /// Safe-area insets in landscape (home indicator and sensor housing move to the sides).
    public var safeAreaLandscape: EdgeInsets
    /// Body text smaller than this (points per em) is hard for a young reader on this device.
    public var readableTextSize: Double

    public init(
        name: String, size: Size, scale: Double, safeAreaPortrait: EdgeInsets = .zero,
        safeAreaLandscape: EdgeInsets = .zero, readableTextSize: Double = 18
    ) {
        self.name = name
        self.size = size
        self.scale = scale
        self.safeAreaPortrait = safeAreaPortrait
        self.safeAreaLandscape = safeAreaLandscape
        self.readableTextSize = readableTextSize
    }

    /// The original 2008 iPhone (and iPod touch): 320×480 points at 1×, no safe-area insets
    /// beyond the 20-point status bar.
    public static let iPhone2008 = DeviceProfile(
        name: "iphone-2008", size: Size(width: 320, height: 480), scale: 1,
        safeAreaPortrait: EdgeInsets(top: 20), safeAreaLandscape: EdgeInsets(top: 20), readableTextSize: 16)
    /// A current phone (iPhone 15 Pro class): 393×852 points at 3× = 1179×2556 pixels.
    public static let phone = DeviceProfile(
        name: "phone", size: Size(width: 393, height: 852), scale: 3,
        safeAreaPortrait: EdgeInsets(top: 59, bottom: 34),
        safeAreaLandscape: EdgeInsets(top: 0, left: 59, bottom: 21, right: 59), readableTextSize: 18)
    /// A tablet (iPad Air class): 820×1180 points at 2×.
    public static let tablet = DeviceProfile(
        name: "tablet", size: Size(width: 820, height: 1180), scale: 2,
        safeAreaPortrait: EdgeInsets(top: 24, bottom: 20), safeAreaLandscape: EdgeInsets(top: 24, bottom: 20),
        readableTextSize: 20)
    /// A desktop browser window at 1×.
    public static let desktop = DeviceProfile(
        name: "desktop", size: Size(width: 1280, height: 800), scale: 1, readableTextSize: 18)

    public static let named: [DeviceProfile] = [.iPhone2008, .phone, .tablet, .desktop]

    /// A named profile ("iphone-2008", "phone", "tablet", "desktop") or a custom `WxH` or
    /// `WxH@scale` (points; no insets); nil when the text is neither.
    public static func parse(_ text: String) -> DeviceProfile? {
        let lower = text.lowercased()
        if let p = named.first(where: { $0.name == lower }) { return p }
        if lower == "iphone" { return .iPhone2008 }
        var sizePart = Substring(lower), scale = 1.0
        if let at = lower.firstIndex(of: "@") {
            sizePart = lower[..<at]
            var s = lower[lower.index(after: at)...]
            if s.hasSuffix("x") { s = s.dropLast() }
            guard let v = Double(s), v > 0, v <= 8 else { return nil }
            scale = v
        }
        let parts = sizePart.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]),
              w >= 16, h >= 16, w <= 10_000, h <= 10_000 else { return nil }
        return DeviceProfile(name: text, size: Size(width: w, height: h), scale: scale)
    }

    /// The viewport the reader gets when the device is held `orientation`.
    public func viewport(_ orientation: ScreenOrientation) -> Viewport {
        let long = max(size.width, size.height), short = min(size.width, size.height)
        // A desktop window opens wider than tall: its "portrait" stands it on end.
        let s = orientation == .portrait ? Size(width: short, height: long) : Size(width: long, height: short)
        return Viewport(
            size: s, scale: scale,
            safeArea: orientation == .portrait ? safeAreaPortrait : safeAreaLandscape,
            readableTextSize: readableTextSize, orientation: orientation)
    }

    public var description: String {
        "\(name) \(Int(size.width))×\(Int(size.height)) pt @\(scale)x"
    }
}

/// One screen's drawing area.
public struct Viewport: Sendable, Hashable, Codable {
    /// Size in points.
    public var size: Size
    public var scale: Double
    public var safeArea: EdgeInsets
    public var readableTextSize: Double
    public var orientation: ScreenOrientation

    public init(size: Size, scale: Double, safeArea: EdgeInsets = .zero, readableTextSize: Double = 18,
                orientation: ScreenOrientation? = nil) {
        self.size = size
        self.scale = scale
        self.safeArea = safeArea
        self.readableTextSize = readableTextSize
        self.orientation = orientation ?? (size.width > size.height ? .landscape : .portrait)
    }

    public var bounds: Rect { Rect(origin: .zero, size: size) }
    /// The part no system bar or corner covers.
    public var safeBounds: Rect { bounds.inset(by: safeArea) }
    /// Pixel size of a full-screen image.
    public var pixelWidth: Int { Int((size.width * scale).rounded()) }
    public var pixelHeight: Int { Int((size.height * scale).rounded()) }
}
