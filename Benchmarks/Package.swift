// swift-tools-version: 6.1
// Benchmarks live in their own package so that CI and `make test` never build them.
//   pbbench           in-process timings the Tools/bench-*.sh scripts put beside peer tools
// Run through the scripts: `make bench` or `Tools/bench-codecs.sh`.
import PackageDescription

let package = Package(
    name: "PicturebookBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Picturebook", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "pbbench",
            dependencies: [
                .product(name: "Codecs", package: "Picturebook"),
                .product(name: "Raster", package: "Picturebook"),
                .product(name: "FileIO", package: "Picturebook"),
            ],
            path: "Sources/pbbench"),
    ]
)
