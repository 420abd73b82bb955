// swift-tools-version: 6.1
// Picturebook: scanned picture books → clear, multilingual digital books.
//
// One module per stage, data flowing one way: C libraries and the C shim → FileIO, Geometry →
// Raster → Codecs → Typesetting → BookModel → (Generator) → PageAnalysis → ClearText → Layout →
// Render, Thumbnails → the `picturebook` executable. Documentation/Architecture.md says what each
// module holds.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

// The modules that loop over pixels are optimized in debug builds too. The test suite generates
// 1600×2000 pages and analyzes them; unoptimized, the generator's noise and blur loops alone made
// the PageAnalysis suites ~1,200 s of a 1,530 s serial run (perf: NoiseField, boxBlur,
// splitMix64 on top). With -O here TextOverArt went from 420 s to 61 s of CPU, at the price of a
// few minutes' more compiling. Debug builds keep -enable-testing, so @testable still works; the
// assertions these modules rely on are preconditions, which -O keeps.
let pixelSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "Picturebook",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "picturebook", targets: ["picturebook"]),
        .library(name: "FileIO", targets: ["FileIO"]),
        .library(name: "Geometry", targets: ["Geometry"]),
        .library(name: "Raster", targets: ["Raster"]),
        .library(name: "Codecs", targets: ["Codecs"]),
        .library(name: "Typesetting", targets: ["Typesetting"]),
        .library(name: "BookModel", targets: ["BookModel"]),
        .library(name: "Generator", targets: ["Generator"]),
        .library(name: "PageAnalysis", targets: ["PageAnalysis"]),
        .library(name: "ClearText", targets: ["ClearText"]),
        .library(name: "Layout", targets: ["Layout"]),
        .library(name: "Render", targets: ["Render"]),
        .library(name: "Thumbnails", targets: ["Thumbnails"]),
        .library(name: "Preparation", targets: ["Preparation"]),
        .library(name: "Library", targets: ["Library"]),
        .library(name: "Reader", targets: ["Reader"]),
        .library(name: "Formats", targets: ["Formats"]),
        .library(name: "OCR", targets: ["OCR"]),
        .library(name: "Glossary", targets: ["Glossary"]),
        .library(name: "Accounts", targets: ["Accounts"]),
        .library(name: "Editor", targets: ["Editor"]),
        .library(name: "TextDetection", targets: ["TextDetection"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        // Already in the graph through Hummingbird; named here because the request fuzz harness
        // calls the router itself and needs a channel for its request context.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.0.0"),
    ],
    targets: [
        systemLibrary("CPNG", pkgConfig: "libpng16", apt: "libpng-dev"),
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg62-turbo-dev"),
        systemLibrary("CFreeType", pkgConfig: "freetype2", apt: "libfreetype-dev"),
        systemLibrary("CHarfBuzz", pkgConfig: "harfbuzz", apt: "libharfbuzz-dev"),
        systemLibrary("CFriBidi", pkgConfig: "fribidi", apt: "libfribidi-dev"),
        // libhyphen ships no pkg-config file; its header and library are in the default paths.
        .systemLibrary(name: "CHyphen", providers: [.apt(["libhyphen-dev"])]),
        systemLibrary("CThai", pkgConfig: "libthai", apt: "libthai-dev"),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        systemLibrary("CTesseract", pkgConfig: "tesseract", apt: "libtesseract-dev"),
        systemLibrary("CSodium", pkgConfig: "libsodium", apt: "libsodium-dev"),
        systemLibrary("CTIFF", pkgConfig: "libtiff-4", apt: "libtiff-dev"),
        systemLibrary("COpenJPEG", pkgConfig: "libopenjp2", apt: "libopenjp2-7-dev"),
        systemLibrary("CPoppler", pkgConfig: "poppler-glib", apt: "libpoppler-glib-dev"),
        .target(name: "CShim", dependencies: ["CPNG", "CJPEG"]),
        // TIFF, JPEG 2000 and PDF behind plain-C functions (no library type reaches Swift).
        // poppler itself (not only poppler-glib) for setErrorCallback: see poppler_quiet.cpp.
        .target(
            name: "CScanShim", dependencies: ["CTIFF", "COpenJPEG", "CPoppler"],
            linkerSettings: [.linkedLibrary("poppler"), .linkedLibrary("tiff"), .linkedLibrary("openjp2")]),
        // ONNX Runtime opened with dlopen at run time (not packaged by Debian; optional).
        .target(name: "COnnxRuntime", linkerSettings: [.linkedLibrary("dl")]),

        .target(name: "FileIO", swiftSettings: swiftSettings),
        .target(name: "Geometry", swiftSettings: pixelSettings),
        .target(name: "Raster", dependencies: ["Geometry"], swiftSettings: pixelSettings),
        .target(name: "Codecs", dependencies: ["Raster", "FileIO", "CShim", "CScanShim", "CPNG", "CJPEG", "CZlib"], swiftSettings: pixelSettings),
        .target(
            name: "Typesetting",
            dependencies: ["Raster", "CFreeType", "CHarfBuzz", "CFriBidi", "CHyphen", "CThai"],
            swiftSettings: pixelSettings),
        .target(name: "BookModel", dependencies: ["Geometry", "FileIO"], swiftSettings: swiftSettings),
        .target(name: "Glossary", dependencies: ["BookModel", "FileIO", "CZlib"], swiftSettings: swiftSettings),
        .target(
            name: "Generator",
            dependencies: ["Raster", "Geometry", "Typesetting", "Codecs", "FileIO", "BookModel"],
            swiftSettings: pixelSettings),
        .target(name: "PageAnalysis", dependencies: ["Raster", "Geometry"], swiftSettings: pixelSettings),
        // The learned text-line detector (DBNet through ONNX Runtime); PageAnalysis masks its lines.
        .target(name: "TextDetection", dependencies: ["Raster", "Geometry", "COnnxRuntime"], swiftSettings: pixelSettings),
        .target(name: "ClearText", dependencies: ["Raster", "Geometry"], swiftSettings: pixelSettings),
        // Pure screen geometry: spreads, fits, popouts, ClearText blocks, transitions (no pixels).
        .target(name: "Layout", dependencies: ["Geometry", "BookModel", "Typesetting"], swiftSettings: swiftSettings),
        // Screens and transition frames as images.
        .target(
            name: "Render", dependencies: ["Layout", "Raster", "Codecs", "Typesetting", "BookModel", "Geometry", "FileIO"],
            swiftSettings: pixelSettings),
        // Batch page thumbnails, overview grids and library grids.
        .target(
            name: "Thumbnails",
            dependencies: ["Layout", "Raster", "Codecs", "BookModel", "FileIO", "Geometry", "Typesetting"],
            swiftSettings: pixelSettings),
        // Per-page preparation shared by the CLI and the reader: clearing, popout crops, resized JPEGs.
        .target(
            name: "Preparation",
            dependencies: ["BookModel", "Codecs", "FileIO", "Raster", "Geometry", "PageAnalysis", "ClearText"],
            swiftSettings: swiftSettings),
        // Standard formats out (ALTO, hOCR, IIIF, CBZ, EPUB) and in (ALTO, hOCR, IIIF): pure
        // functions from a book and its scans' bytes to documents and archives.
        .target(name: "Formats", dependencies: ["BookModel", "Geometry", "Layout", "CZlib"], swiftSettings: swiftSettings),
        // `prepare`: a whole library (or one shard of it) through the stages, locked, resumable.
        .target(
            name: "Library", dependencies: ["BookModel", "FileIO", "Preparation", "Thumbnails"],
            swiftSettings: swiftSettings),
        // Reading the text of boxes with Tesseract (`picturebook ocr`); no C type in its API.
        .target(name: "OCR", dependencies: ["Raster", "Geometry", "CTesseract"], swiftSettings: swiftSettings),
        // Editor accounts: Argon2id password hashes (libsodium), the users file, sessions and the
        // sign-in rate limit; no HTTP in it.
        .target(name: "Accounts", dependencies: ["CSodium", "FileIO"], swiftSettings: swiftSettings),
        // Editing a book: page saves checked by the BookModel validator, the per-book journal,
        // revisions, conflicts, undo, restore, history; no HTTP in it.
        .target(name: "Editor", dependencies: ["BookModel", "FileIO"], swiftSettings: swiftSettings),
        // The web reader's HTTP server (`picturebook serve`); Web/ holds the browser app.
        .target(
            name: "Reader",
            dependencies: [
                "Preparation", "BookModel", "Codecs", "FileIO", "Raster", "Geometry", "Layout", "Typesetting", "Formats",
                "Accounts", "Editor",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            resources: [.copy("Web")],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "picturebook",
            dependencies: [
                "BookModel", "Codecs", "FileIO", "Raster", "Typesetting", "Generator", "PageAnalysis", "ClearText",
                "Layout", "Render", "Thumbnails", "Preparation", "Library", "Reader", "Formats", "OCR", "Glossary",
                "Accounts", "Editor", "TextDetection",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),

        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
        // Fuzz harnesses (Tests/Fuzz/README.md): `make fuzz` builds picturebook-fuzz with libFuzzer and
        // ASan; built plainly it replays inputs, and FuzzRegressionTests runs every saved input.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "Codecs", "Raster", "BookModel", "Reader",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/Fuzz/FuzzTargets", swiftSettings: swiftSettings),
        .executableTarget(
            name: "picturebook-fuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/picturebook-fuzz",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "FuzzRegressionTests", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/RegressionTests",
            swiftSettings: swiftSettings),

        .testTarget(name: "FileIOTests", dependencies: ["FileIO"], swiftSettings: swiftSettings),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry"], swiftSettings: swiftSettings),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "TestSupport"], swiftSettings: swiftSettings),
        // Fixtures/Scans: tiny TIFF, JPEG 2000 and PDF files from Tools/make-scan-fixtures.py, read by path.
        .testTarget(
            name: "CodecsTests", dependencies: ["Codecs", "CScanShim", "Raster", "TestSupport"], exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
        // Golden/ holds reference PNGs the tests read by path (not bundled resources).
        .testTarget(
            name: "TypesettingTests", dependencies: ["Typesetting", "Codecs"], exclude: ["Golden"],
            swiftSettings: swiftSettings),
        .testTarget(name: "GlossaryTests", dependencies: ["Glossary", "BookModel"], swiftSettings: swiftSettings),
        .testTarget(name: "BookModelTests", dependencies: ["BookModel", "FileIO", "Geometry", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GeneratorTests", dependencies: ["Generator", "Raster", "Geometry", "Codecs", "BookModel"],
            swiftSettings: swiftSettings),
        .testTarget(name: "ClearTextTests", dependencies: ["ClearText", "Raster", "Geometry"], swiftSettings: swiftSettings),
        .testTarget(name: "LayoutTests", dependencies: ["Layout", "BookModel", "Geometry"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RenderTests", dependencies: ["Render", "Layout", "BookModel", "Raster", "Codecs"], exclude: ["Golden"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ThumbnailsTests", dependencies: ["Thumbnails", "BookModel", "Codecs", "Raster", "FileIO", "TestSupport", "picturebook"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PageAnalysisTests",
            dependencies: ["PageAnalysis", "Generator", "Raster", "Geometry", "BookModel", "Codecs", "picturebook"],
            swiftSettings: swiftSettings),
        .testTarget(name: "EditorTests", dependencies: ["Editor", "Accounts", "BookModel", "FileIO"], swiftSettings: swiftSettings),
        .testTarget(name: "CLITests", dependencies: ["Codecs", "Raster", "BookModel", "Editor", "picturebook"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TextDetectionTests", dependencies: ["TextDetection", "PageAnalysis", "Codecs", "Raster", "Geometry"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PreparationTests", dependencies: ["Preparation", "BookModel", "ClearText", "Codecs", "Raster", "Geometry", "TestSupport"],
            exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FormatsTests", dependencies: ["Formats", "BookModel", "Geometry", "Codecs", "Raster", "picturebook"],
            exclude: ["check-iiif.py", "iiif-test-image.py", "iiif-validate-patient.py"], swiftSettings: swiftSettings),
        .testTarget(
            name: "OCRTests", dependencies: ["OCR", "Raster", "Geometry", "Typesetting", "Codecs"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ReaderTests",
            dependencies: [
                "Reader", "Preparation", "BookModel", "Codecs", "Raster", "FileIO", "Accounts", "Editor",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings),
    ]
)
